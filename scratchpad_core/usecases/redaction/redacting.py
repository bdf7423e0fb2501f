"""Redaction (scratchpad_core.redaction.rules): remove a text from every retained version of every file and every kept
log entry of an agent, or of one file or one log; or one version's (one entry's) whole content. A dry run says
what would change, per version and entry, and changes nothing.

The history keeps each version or entry with its number, time and actor; the current version's redaction makes a
new version (so agents catching up with since_version see the change); sizes, hashes, the search index and the
agent's counters follow; a cached summary goes, and so do the kept request_ids that could give the text back
(redaction.could_confirm). An expired file (not yet pruned) is not found by a redaction of that file; one that
holds the text is deleted by an agent-wide redaction, as a prune would (a new version would bring it back)."""

from __future__ import annotations

from dataclasses import dataclass

from ...actors import LIBRARY, check_actor
from ...errors import LimitExceeded, NotFound, NothingToRedact
from ...limits import utf8_len
from ...model import UsageDelta, Version
from ...paths import check_agent_id
from ...ports import UnitOfWork
from ...redaction.rules import (
    Removal,
    Shape,
    check_secret,
    could_confirm,
    marker,
    remove_all,
    remove_text,
    stored_forms,
)
from ...results import RedactResult
from ..base import checked
from ..expiry import expire
from ..search.indexer import CATCH_UP_BATCH, catch_up, held_text, index_log, refresh_file
from ..writes import FileWrites
from .scan import FilePlan, LogPlan, Scan


@dataclass(frozen=True)
class Target:
    """What a redaction removes, and where it looks: the agent's files and/or logs, all or the one at `path`."""

    agent_id: str
    by: str
    dry_run: bool
    files: bool = False
    logs: bool = False
    path: str | None = None
    secret: str | None = None  # each occurrence of this text
    number: int | None = None  # or this version's (entry's) whole content

    def remove(self, content: str, shape: Shape) -> Removal | None:
        return remove_all(shape) if self.secret is None else remove_text(content, self.secret, shape)


class Redaction(FileWrites):
    def redact_everywhere(self, agent_id: str, text: str, *, by: str = LIBRARY, dry_run: bool = False) -> RedactResult:
        """Replace every occurrence of `text` in every retained version of every file and every kept entry of every
        log of the agent with the marker (dry_run: only say where)."""
        agent_id, secret = check_agent_id(agent_id), check_secret(text)
        return self._redact(Target(agent_id, by, dry_run, files=True, logs=True, secret=secret))

    def redact_text(
        self, agent_id: str, path: str, text: str, *, by: str = LIBRARY, dry_run: bool = False
    ) -> RedactResult:
        """Replace every occurrence of `text` in every retained version of the file with the marker."""
        agent_id, path = checked(agent_id, path)
        return self._redact(Target(agent_id, by, dry_run, files=True, path=path, secret=check_secret(text)))

    def redact_log_text(
        self, agent_id: str, path: str, text: str, *, by: str = LIBRARY, dry_run: bool = False
    ) -> RedactResult:
        """Replace every occurrence of `text` in every kept entry of the log with the marker."""
        agent_id, path = checked(agent_id, path)
        return self._redact(Target(agent_id, by, dry_run, logs=True, path=path, secret=check_secret(text)))

    def redact_version(
        self, agent_id: str, path: str, version: int, *, by: str = LIBRARY, dry_run: bool = False
    ) -> RedactResult:
        """Replace a retained version's whole content with a marker saying it was redacted, when and by `by`."""
        agent_id, path = checked(agent_id, path)
        return self._redact(Target(agent_id, by, dry_run, files=True, path=path, number=version))

    def redact_entry(
        self, agent_id: str, path: str, entry_id: int, *, by: str = LIBRARY, dry_run: bool = False
    ) -> RedactResult:
        """Replace one kept log entry's text with the marker (its id, time and actor stay)."""
        agent_id, path = checked(agent_id, path)
        return self._redact(Target(agent_id, by, dry_run, logs=True, path=path, number=entry_id))

    def _redact(self, target: Target) -> RedactResult:
        check_actor(target.by)
        self._transact(lambda uow: _refusals(uow, target, self._clock()), read_only=True)  # before any change

        def work(uow: UnitOfWork) -> RedactResult:
            now = self._clock()
            mark = marker(now, target.by)
            scan = Scan(uow, target.agent_id, target.path, target.number, now, grab=not target.dry_run)
            limits = self.limits
            files = scan.files(Shape(mark, mark + "\n", limits.max_file_bytes), target.remove) if target.files else []
            logs = scan.logs(Shape(mark, mark, limits.max_log_entry_bytes), target.remove) if target.logs else []
            if not files and not logs:
                if target.dry_run or target.secret is None:
                    raise NotFound(f"nothing to redact: {_missing(target)}; nothing was changed.")
                return RedactResult([], requests_forgotten=_forget(uow, target))  # (NothingToRedact, committed)
            plans: list[FilePlan | LogPlan] = [*files, *logs]
            for plan in plans:
                _check_sizes(plan)
            if target.dry_run:
                planned = [row for file in files for row in file.rows(file.next_version)]
                return RedactResult(planned + [row for log in logs for row in log.rows()], dry_run=True)
            grown = 0
            rows = []
            for file in files:
                made, bytes_grown = self._apply_file(uow, target, file, now)
                grown += bytes_grown
                rows.extend(file.rows(made))
            for log in logs:
                grown += _apply_log(uow, target.agent_id, log)
                rows.extend(log.rows())
            self._count(uow, target.agent_id, UsageDelta(bytes=grown, operations=0), quotas=False)
            return RedactResult(rows, requests_forgotten=_forget(uow, target))

        if not target.dry_run:  # the index first holds the current text only: no text of a version since pruned
            while self._transact(lambda uow: catch_up(uow, target.agent_id)) == CATCH_UP_BATCH:
                pass
        done = self._transact(work, read_only=target.dry_run)
        if not done.redacted:  # a text found nowhere: a kept request_id could still confirm it (it may have left)
            forgot = done.requests_forgotten
            raise NothingToRedact(
                f"nothing to redact: {_missing(target)}; "
                + (f"{forgot:,} request_id{'s' if forgot != 1 else ''} that could confirm it forgotten, nothing else "
                   "was changed." if forgot else "nothing was changed."),
                forgot,
            )  # fmt: skip
        return done

    def _apply_file(self, uow: UnitOfWork, target: Target, plan: FilePlan, now: int) -> tuple[int | None, int]:
        """Redact the plan's versions; returns the version it made (None: none) and the bytes it added."""
        record = plan.record
        if not plan.alive:  # expired: readers see it as deleted, and a new version would bring it back
            expire(uow, [record], now, self.limits)
            return None, 0
        indexed = uow.index.file_slots(record.id)  # what the index holds, read before any version changes
        held = None if indexed is None else held_text(uow, record.id, indexed)

        # Indexed here, not left to a catch-up: it would re-index from the redacted text the index does not hold;
        # before the agent's counters (one lock order: the file, the index's statistics, the counters).
        def index(number: int) -> None:
            refresh_file(uow, target.agent_id, record.id, number, held)

        made = None
        if record.current_version in plan.changes:  # a new version, so that readers catching up see the change
            content = plan.changes[record.current_version].content
            made = self._commit(
                uow,
                target.agent_id,
                record.path,
                content,
                record.current_version,
                target.by,
                indexed=index,
                quotas=False,  # removing a text is never refused for the bytes its marker adds
                prune=False,  # nor costs the oldest retained version its place in the history
            ).version
        else:
            index(record.current_version)
        grown = 0
        for number, removal in plan.changes.items():
            kept = uow.files.get_version(record.id, number)
            assert kept is not None, "a redaction's new version prunes no version"
            replaced = Version.of(number, removal.content, kept.created_at, kept.by)
            uow.files.replace_content(record.id, replaced)
            grown += replaced.bytes - kept.bytes
        uow.summaries.drop(record.id)  # a summary of a redacted version must not outlive it
        return made, grown


def _apply_log(uow: UnitOfWork, agent_id: str, plan: LogPlan) -> int:
    """Redact the plan's entries and index the log again; returns the bytes it added."""
    log, grown = plan.record, 0
    for entry_id, (old_size, removal) in plan.changes.items():
        size = utf8_len(removal.content)
        uow.logs.replace_entry(log.id, entry_id, removal.content, size, old_size)
        grown += size - old_size
    uow.index.drop_entries(log.id)  # the entries' words go: the log is indexed again
    index_log(uow.index, uow.logs, agent_id, log.id, log.last_entry_id - log.entries + 1, log.last_entry_id)
    return grown


def _refusals(uow: UnitOfWork, target: Target, now: int) -> None:
    """Refuse, before anything changes, a redaction of an agent the store has never heard of, or of a file or a
    log it does not have (a Scan's own refusals, read without a lock)."""
    if uow.usage.find(target.agent_id) is None:
        raise NotFound(
            f"Unknown agent {target.agent_id!r}: the store holds no file, log or count of it; check the agent id. "
            "Nothing was changed."
        )
    if target.path is not None:
        Scan(uow, target.agent_id, target.path, None, now, grab=False).require(files=target.files)


def _forget(uow: UnitOfWork, target: Target) -> int:
    """Forget the agent's kept request_ids that could confirm a guess of what was removed."""
    forms = stored_forms(target.secret) if target.secret is not None else []
    log = target.path if target.logs else None
    gone = [
        kept
        for kept in uow.requests.kept(target.agent_id)
        if could_confirm(kept, files=target.files, logs=target.logs, log=log, forms=forms)
    ]
    for request in gone:
        uow.requests.forget(request.agent_id, request.caller, request.request_id)
    return len(gone)


def _check_sizes(plan: FilePlan | LogPlan) -> None:
    """Refuse a redaction whose one marker alone passes the size limit (a limit set below a marker's length)."""
    for number, removal in plan.sorted():
        if utf8_len(removal.content) > plan.shape.limit:
            raise LimitExceeded(
                f"Cannot redact {plan.what(number)}: even one marker ({utf8_len(removal.content):,} bytes) passes "
                f"the {plan.shape.limit:,}-byte {plan.limit}; name the redactor (by) in fewer characters. "
                "Nothing was changed."
            )


def _missing(target: Target) -> str:
    if target.number is not None:
        return f"version {target.number} of {target.path} is not retained"
    if target.path is None:
        return f"no retained version of {target.agent_id}'s files and no kept entry of its logs holds the text"
    return f"the text is not in any {'retained version' if target.files else 'kept entry'} of {target.path}"
