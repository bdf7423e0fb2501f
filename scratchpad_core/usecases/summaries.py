"""summarize_file: a cached summary of a long file, one summarizer call per version at most."""

from __future__ import annotations

from ..bounds import SUMMARY_THRESHOLD_CHARS
from ..errors import SummaryUnavailable
from ..limits import estimated_tokens, utf8_len
from ..model import UsageDelta, sha256_hex
from ..ports import UnitOfWork
from ..results import SummaryResult
from .base import UseCaseBase, checked, require_file
from .expiry import live


class Summaries(UseCaseBase):
    def summarize_file(self, agent_id: str, path: str) -> SummaryResult:
        """A cached summary of a long file; one summarizer call per file version at most."""
        agent_id, path = checked(agent_id, path)

        def lookup(uow: UnitOfWork) -> tuple[int, int, str, str | None]:
            record = require_file(live(uow, uow.files.get(agent_id, path), self._clock()), agent_id, path)
            head = uow.files.get_version(record.id, record.current_version)
            assert head is not None, "the head version is always retained"
            if len(head.content) <= SUMMARY_THRESHOLD_CHARS:
                raise SummaryUnavailable.said(
                    "{path} has only {chars:,} characters (~{tokens:,} tokens); "
                    "summaries are for files over {threshold:,} characters. {do.read_instead}",
                    path=path, chars=len(head.content), tokens=estimated_tokens(head.content),
                    threshold=SUMMARY_THRESHOLD_CHARS, agent_id=agent_id,
                )  # fmt: skip
            cached = uow.summaries.get(record.id, record.current_version)
            if cached is not None:
                self._count(uow, agent_id, UsageDelta(bytes_saved=max(0, head.bytes - utf8_len(cached))))
            return record.id, record.current_version, head.content, cached

        file_id, version, content, cached = self._transact(lookup)
        tokens = estimated_tokens(content)
        if cached is not None:
            return SummaryResult(path, version, cached, True, tokens)
        if self._summarizer is None:
            raise SummaryUnavailable("summarize_file is not configured in this store (no summarizer).")
        summary = self._summarizer.summarize(path, content)
        model = self._summarizer.model

        def store(uow: UnitOfWork) -> None:
            record = uow.files.get(agent_id, path)
            unchanged = record is not None and (record.id, record.current_version) == (file_id, version)
            if unchanged and record is not None and record.sha256 == sha256_hex(content):  # not replaced meanwhile
                uow.summaries.put(file_id, version, summary, model, self._clock())
            saved = max(0, utf8_len(content) - utf8_len(summary))
            self._count(uow, agent_id, UsageDelta(bytes_saved=saved))

        self._transact(store)
        return SummaryResult(path, version, summary, False, tokens)
