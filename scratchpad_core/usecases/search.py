"""search_files: find lines in the current version of the agent's files."""

from __future__ import annotations

import re

from ..bounds import DEFAULT_SEARCH_RESULTS, MAX_QUERY_CHARS, MAX_SEARCH_RESULTS, check_range
from ..errors import InvalidInput
from ..model import UsageDelta
from ..paths import check_agent_id, check_prefix
from ..ports import Matcher, UnitOfWork
from ..results import SearchMatch, SearchResult
from ..text import split_keepends
from .base import UseCaseBase

MATCH_CHARS = 200
_LEAD_CHARS = 60


class Search(UseCaseBase):
    def search_files(
        self,
        agent_id: str,
        query: str,
        prefix: str | None = None,
        *,
        max_results: int = DEFAULT_SEARCH_RESULTS,
        regex: bool = False,
        case_sensitive: bool = False,
    ) -> SearchResult:
        """Lines matching `query` (a literal, or a regular expression with regex=True), in path order."""
        agent_id = check_agent_id(agent_id)
        prefix = check_prefix(prefix)
        if not query or len(query) > MAX_QUERY_CHARS:
            raise InvalidInput(f"Invalid query: it must be 1..{MAX_QUERY_CHARS} characters.")
        check_range("max_results", max_results, MAX_SEARCH_RESULTS)
        matcher = self._matcher(query, regex, case_sensitive)

        def work(uow: UnitOfWork) -> SearchResult:
            matches: list[SearchMatch] = []
            files = 0
            more = False
            for path, content in uow.files.iter_current(agent_id, prefix):
                files += 1
                for number, raw in enumerate(split_keepends(content), 1):
                    line = raw.rstrip("\n").removesuffix("\r")  # match and show the line without its ending
                    at = matcher(line)
                    if at is None:
                        continue
                    if len(matches) == max_results:
                        more = True
                        break
                    matches.append(SearchMatch(path, number, _window(line, at)))
                if more:
                    break
            return SearchResult(matches, len(matches), more, files)

        # The scan reads a snapshot, so a long search holds up no writer; the operation is counted after.
        result = self._transact(work, read_only=True)
        self._transact(lambda uow: self._count(uow, agent_id, UsageDelta()))
        return result

    def _matcher(self, query: str, regex: bool, case_sensitive: bool) -> Matcher:
        if regex:
            if self._regex is None:
                raise InvalidInput("Regular expression search is not available in this store; use regex=false.")
            return self._regex.compile(query, case_sensitive)
        if case_sensitive:
            return lambda line: _found(line.find(query))
        pattern = re.compile(re.escape(query), re.IGNORECASE)  # a literal: no backtracking to bound
        return lambda line: None if (match := pattern.search(line)) is None else match.start()


def _found(index: int) -> int | None:
    return None if index < 0 else index


def _window(line: str, at: int) -> str:
    if len(line) <= MATCH_CHARS:
        return line
    start = max(0, min(at - _LEAD_CHARS, len(line) - MATCH_CHARS))
    head = "…" if start else ""
    tail = "…" if start + MATCH_CHARS < len(line) else ""
    return head + line[start : start + MATCH_CHARS] + tail
