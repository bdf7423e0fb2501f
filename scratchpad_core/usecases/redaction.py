"""Redaction (scratchpad_core.redaction): remove one version's content, a text from every retained version of a
file, or one log entry's text. The history keeps each version or entry with its number, time and actor; the
current version's redaction makes a new version (so agents catching up with since_version see the change);
sizes, hashes, the search index, the agent's counters follow, and a cached summary goes."""

from __future__ import annotations

from collections.abc import Callable

from ..actors import LIBRARY, check_actor
from ..errors import NotFound
from ..limits import utf8_len
from ..model import UsageDelta, Version
from ..ports import UnitOfWork
from ..redaction import check_secret, marker, scrub, stored_forms, whole
from ..results import RedactResult
from .base import checked, require_file
from .expiry import live
from .indexer import held_text, index_log, refresh_file
from .writes import FileWrites

Change = Callable[[Version, str], str | None]  # (a retained version, the marker) -> its new content, or None


class Redaction(FileWrites):
    def redact_version(self, agent_id: str, path: str, version: int, *, by: str = LIBRARY) -> RedactResult:
        """Replace a retained version's whole content with a marker saying it was redacted, when and by `by`."""
        return self._redact(
            agent_id, path, by, lambda v, mark: whole(mark) if v.version == version else None,
            f"version {version} of {path} is not retained", stored_forms(f'"{path}"'),
        )  # fmt: skip

    def redact_text(self, agent_id: str, path: str, text: str, *, by: str = LIBRARY) -> RedactResult:
        """Replace every occurrence of `text` in every retained version of the file with the marker."""
        secret = check_secret(text)
        return self._redact(
            agent_id, path, by, lambda v, mark: scrub(v.content, secret, mark),
            f"the text is not in any retained version of {path}", stored_forms(secret),
        )  # fmt: skip

    def redact_entry(self, agent_id: str, path: str, entry_id: int, *, by: str = LIBRARY) -> RedactResult:
        """Replace one kept log entry's text with the marker (its id, time and actor stay)."""
        agent_id, path = checked(agent_id, path)
        check_actor(by)

        def work(uow: UnitOfWork) -> RedactResult:
            log = uow.logs.lock(agent_id, path)
            if log is None or log.entries == 0:
                raise NotFound(f"Log not found: {path}. Use list_logs to see this agent's logs.")
            first = log.last_entry_id - log.entries + 1
            found = uow.logs.entries(log.id, entry_id - 1, 1) if first <= entry_id <= log.last_entry_id else []
            if not found or found[0].id != entry_id:
                raise NotFound(f"nothing to redact: entry {entry_id} of {path} is not kept (it keeps "
                               f"{first}..{log.last_entry_id}).")  # fmt: skip
            mark = marker(self._clock(), by)
            old, size = utf8_len(found[0].entry), utf8_len(mark)
            uow.logs.replace_entry(log.id, entry_id, mark, size, old)
            uow.index.drop_entries(log.id)  # the entry's words go: the log is indexed again
            index_log(uow.index, uow.logs, agent_id, log.id, first, log.last_entry_id)
            self._count(uow, agent_id, UsageDelta(bytes=size - old, operations=0))
            return RedactResult(path, [entry_id])

        return self._transact(work)

    def _redact(
        self, agent_id: str, path: str, by: str, change: Change, missing: str, forget: list[str]
    ) -> RedactResult:
        agent_id, path = checked(agent_id, path)
        check_actor(by)

        def work(uow: UnitOfWork) -> RedactResult:
            record = require_file(uow.files.lock(agent_id, path), path)
            if live(uow, record, self._clock()) is None:  # as if deleted: a new version would bring it back
                raise NotFound(
                    f"File not found: {path} has expired under a retention rule; nothing was changed. A prune "
                    "(`scratchpad-mcp db prune`) removes it with every version for good."
                )
            mark = marker(self._clock(), by)
            indexed = uow.index.file_slots(record.id)  # what the index holds, read before any version changes
            held = None if indexed is None else held_text(uow, record.id, indexed)
            changed: dict[int, str] = {}
            for info in uow.files.list_versions(record.id):
                old = uow.files.get_version(record.id, info.version)
                assert old is not None, "a listed version is retained"
                content = change(old, mark)
                if content is not None and content != old.content:
                    changed[old.version] = content
            if not changed:
                raise NotFound(f"nothing to redact: {missing}; nothing was changed.")

            # Indexed here, not left to a catch-up: it would re-index from the redacted text the index does not hold;
            # before the agent's counters (one lock order: the file, the index's statistics, the counters).
            def index(number: int) -> None:
                refresh_file(uow, agent_id, record.id, number, held)

            made = None
            if record.current_version in changed:  # a new version, so that readers catching up see the change
                current = changed[record.current_version]
                made = self._commit(uow, agent_id, path, current, record.current_version, by, indexed=index)
            else:
                index(record.current_version)
            grown = 0
            for number, redacted in changed.items():
                kept = uow.files.get_version(record.id, number)
                if kept is None:  # pruned by the new version (max_versions)
                    continue
                replaced = Version.of(number, redacted, kept.created_at, kept.by)
                uow.files.replace_content(record.id, replaced)
                grown += replaced.bytes - kept.bytes
            uow.summaries.drop(record.id)  # a summary of a redacted version must not outlive it
            uow.requests.forget_holding(agent_id, forget)  # nor a reply kept for a repeat (a snippet of it)
            self._count(uow, agent_id, UsageDelta(bytes=grown, operations=0))
            return RedactResult(path, sorted(changed), None if made is None else made.version)

        return self._transact(work)
