"""search_files: passages of the agent's files and log entries that hold the query's words, best first (the
default); or, with exact=True (or regex=True), lines of the current files matching the query, in path order, then
log entries holding such a line (scanning.py)."""

from __future__ import annotations

import contextlib
import functools
import re

from ...bounds import DEFAULT_SEARCH_RESULTS, MAX_QUERY_CHARS, MAX_SEARCH_RESULTS, check_range
from ...errors import InvalidInput, StorageError
from ...model import UsageDelta
from ...paths import check_agent_id, check_prefix
from ...ports import Matcher, UnitOfWork
from ...results import SearchResult
from ...search.ranking import token_pairs
from ..aging import aged_floors
from ..base import UseCaseBase
from ..expiry import visible
from .indexer import CATCH_UP_BATCH, catch_up
from .overlay import OverlayIndex
from .passages import word_search
from .scanning import scan


class Search(UseCaseBase):
    def search_files(
        self,
        agent_id: str,
        query: str,
        prefix: str | None = None,
        *,
        max_results: int = DEFAULT_SEARCH_RESULTS,
        exact: bool = False,
        regex: bool = False,
        case_sensitive: bool = False,
    ) -> SearchResult:
        """Passages of the agent's files and log entries holding the query's words, best first; with exact=True,
        lines holding the query as it is (regex=True: a regular expression), in path order, then log entries
        holding such a line."""
        agent_id = check_agent_id(agent_id)
        prefix = check_prefix(prefix)
        if not query or len(query) > MAX_QUERY_CHARS:
            raise InvalidInput.said(
                "Invalid {argument}: it must be 1..{most} characters.", argument="query", most=MAX_QUERY_CHARS
            )
        check_range("max_results", max_results, MAX_SEARCH_RESULTS)
        if exact or regex:
            result = self._lines(agent_id, query, prefix, max_results, regex, case_sensitive)
        else:
            result = self._words(agent_id, query, prefix, max_results)
        self._transact(lambda uow: self._count(uow, agent_id, UsageDelta()))
        return result

    def _words(self, agent_id: str, query: str, prefix: str, max_results: int) -> SearchResult:
        """The search ranks in a snapshot, after the agent's backlog was caught up (usecases.indexer): in bulk
        by a store that writes, else (and for what was written since) through an overlay of it (usecases.overlay).
        Finding the backlog is one probe of an index whose size is the backlog's."""

        def work(uow: UnitOfWork) -> SearchResult | None:
            terms = list(dict.fromkeys(uow.index.analyzer.terms(query)))
            if not terms:
                raise InvalidInput.said(
                    "Invalid {argument}: it has no word (letters or digits) to search for; {do.find_symbols}.",
                    argument="query",
                )
            if writes and uow.index.lagging(agent_id) != ([], []):
                return None
            index = OverlayIndex.of(uow, agent_id) if not writes else None  # (then the backlog was empty)
            now = self._clock()
            shown, floors = visible(uow, agent_id, now), aged_floors(uow, agent_id, now)  # expired, aged: not there
            pairs = token_pairs(uow.index.analyzer.terms, query)
            return word_search(index or uow.index, agent_id, terms, prefix, max_results, shown, floors, pairs)

        writes = self._writes_index
        result = self._transact(work, read_only=True)
        if result is None:
            with contextlib.suppress(StorageError):  # a store that may not write after all: the overlay
                while self._transact(lambda uow: catch_up(uow, agent_id)) == CATCH_UP_BATCH:
                    pass  # (a batch that found fewer left nothing written before it)
            writes = False  # what was written since the catch-up, if anything, through the overlay
            result = self._transact(work, read_only=True)
        assert result is not None
        return result

    def catch_up_index(self, limit: int = CATCH_UP_BATCH) -> int:
        """Index up to `limit` files and logs of the agents' backlogs, a transaction an agent, skipping an agent
        another replica's pass is at (the server's background pass, usecases.indexer); returns how many."""
        agents = self._transact(lambda uow: uow.index.behind(limit), read_only=True)
        done = 0
        for agent in agents:
            done += self._transact(functools.partial(_claimed, agent_id=agent, limit=limit - done))
            if done >= limit:
                break
        return done

    def catch_up_all_indexes(self) -> int:
        """Bring every agent's backlog up to date, whole, a transaction a batch, with no turn taken (the caller
        needs it done: a scrub, so that no index row keeps the text of a version since pruned or an entry since
        dropped); returns how many files and logs. What is written meanwhile may stay in a backlog."""
        agents = self._transact(lambda uow: uow.index.behind(CATCH_UP_BATCH), read_only=True)
        done, seen = 0, set[str]()
        while agents:
            seen.update(agents)
            for agent in agents:
                while (step := self._transact(functools.partial(catch_up, agent_id=agent))) == CATCH_UP_BATCH:
                    done += step
                done += step
            later = self._transact(lambda uow: uow.index.behind(CATCH_UP_BATCH), read_only=True)
            agents = [agent for agent in later if agent not in seen]  # (behind's limit: more agents than it)
        return done

    def _lines(
        self, agent_id: str, query: str, prefix: str, max_results: int, regex: bool, case_sensitive: bool
    ) -> SearchResult:
        matcher = self._matcher(query, regex, case_sensitive)

        def work(uow: UnitOfWork) -> SearchResult:
            return scan(uow, agent_id, prefix, matcher, max_results, self._clock())

        # The scan reads a snapshot, so a long search holds up no writer.
        return self._transact(work, read_only=True)

    def _matcher(self, query: str, regex: bool, case_sensitive: bool) -> Matcher:
        if regex:
            if self._regex is None:
                raise InvalidInput.said("Regular expression search is not available in this store; {do.drop_regex}.")
            return self._regex.compile(query, case_sensitive)
        if case_sensitive:
            return lambda line: _found(line.find(query))
        pattern = re.compile(re.escape(query), re.IGNORECASE)  # a literal: no backtracking to bound
        return lambda line: None if (match := pattern.search(line)) is None else match.start()


def _claimed(uow: UnitOfWork, agent_id: str, limit: int) -> int:
    return catch_up(uow, agent_id, limit) if uow.index.claim(agent_id) else 0


def _found(index: int) -> int | None:
    return None if index < 0 else index
