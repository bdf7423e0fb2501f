"""search_files with exact=True or regex=True: the lines of the agent's current files that match, in path order,
then its log entries that hold a matching line, in path and entry order (what a reader sees: expired files and
entries past their rule's max_age are left out). `max_results` and `has_more` cover both; `files_searched`
counts the files read. A file result is `{path, line, text}`, a log result `{path, entry, text}` with the
entry's text around its first match, as a word search shows an entry."""

from __future__ import annotations

from collections.abc import Iterator

from ...ports import Matcher, TextMatcher, UnitOfWork
from ...results import SearchMatch, SearchResult
from ...text import around, split_keepends
from ..aging import seen_logs
from ..expiry import expired_paths
from .passages import ENTRY_CHARS

ENTRY_PAGE = 64  # entries read at once (each up to the entry size limit, 64 KiB by default)


def matching_lines(matcher: Matcher, text: str) -> Iterator[tuple[int, str, int]]:
    """(number, line, where the match starts in it) of each matching line of `text`, each matched and shown
    without its ending ('\\n', or '\\r\\n'); a TextMatcher searches the whole text at once."""
    raws: list[str] | None = None
    found = matcher.lines(text) if isinstance(matcher, TextMatcher) else _each_line(matcher, text)
    for number, at in found:
        raws = split_keepends(text) if raws is None else raws
        yield number, _shown(raws[number - 1]), at


def _shown(raw: str) -> str:
    return raw.removesuffix("\n").removesuffix("\r")


def _each_line(matcher: Matcher, text: str) -> Iterator[tuple[int, int]]:
    for number, raw in enumerate(split_keepends(text), 1):
        at = matcher(_shown(raw))
        if at is not None:
            yield number, at


def scan(uow: UnitOfWork, agent_id: str, prefix: str, matcher: Matcher, max_results: int, now: int) -> SearchResult:
    """The matches of the agent's files, then of its logs, under `prefix` (in the caller's snapshot)."""
    matches: list[SearchMatch] = []
    files = 0
    hidden = expired_paths(uow, agent_id, now)
    for path, content in uow.files.iter_current(agent_id, prefix):
        if path in hidden:
            continue
        files += 1
        for number, line, at in matching_lines(matcher, content):
            if len(matches) == max_results:
                return SearchResult(matches, len(matches), True, files)
            matches.append(SearchMatch(path=path, line=number, text=around(line, at)))
    for log in seen_logs(uow, agent_id, prefix, now):
        after = log.last_entry_id - log.entries
        while after < log.last_entry_id and (page := uow.logs.entries(log.id, after, ENTRY_PAGE)):
            for entry in page:
                found = next(matching_lines(matcher, entry.entry), None)
                if found is None:
                    continue
                if len(matches) == max_results:
                    return SearchResult(matches, len(matches), True, files)
                before = sum(map(len, split_keepends(entry.entry)[: found[0] - 1]))  # the lines above the match
                text = around(entry.entry, before + found[2], ENTRY_CHARS)
                matches.append(SearchMatch(path=log.path, entry=entry.id, text=text))
            after = page[-1].id
    return SearchResult(matches, len(matches), False, files)
