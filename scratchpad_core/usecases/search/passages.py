"""Word search over the index: documents found term by term, ranked (scratchpad_core.search.ranking), made passages.

Frequent words (COMMON_WORDS, and any word in more than RARE_DOCUMENTS of the agent's documents) are indexed like
every word, but a query reads their documents only when its rarer words give fewer passages than asked for,
rarest first (so "the" never reads a third of a store, and a search's cost does not grow with the store);
otherwise they count in the score of the passages the rarer words found, read from those passages' own text.
A query of frequent words only reads all of them but the common English words (a line holding more of them
must rank higher, and only their documents say which lines do).
"""

from __future__ import annotations

import bisect
import contextlib
import heapq
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ...model import Posting
from ...ports import SearchReader
from ...results import SearchMatch, SearchResult
from ...search.indexing import MAX_TF, line_starts, rows_of
from ...search.ranking import K1, PASSAGE_LINES, B, Scorer, passage_score, window
from ...text import MATCH_CHARS, around
from ..expiry import Visible

RARE_DOCUMENTS = 1000  # a word in more of the agent's documents is frequent, as the common words are
ENTRY_CHARS = 500  # a longer log entry shows this much around its first match (a line: text.MATCH_CHARS)
OWNERS_AT_ONCE = 500  # owners looked up in one call
REACH = PASSAGE_LINES - 2  # lines read on each side of a matching line to build its passage


@dataclass(frozen=True)
class Passage:
    score: float
    path: str
    first: int  # a file's first line, or a log entry's id
    match: SearchMatch


def word_search(
    index: SearchReader,
    agent_id: str,
    terms: list[str],
    prefix: str,
    max_results: int,
    shown: Visible = lambda path, updated_at: True,
    floors: Mapping[int, int] | None = None,
    pairs: Sequence[tuple[str, str]] = (),
) -> SearchResult:
    """The best passages of the agent's files and log entries under `prefix`; a file that is not `shown` (expired:
    by its path and last write), and the entries of a log (by its owner) below its id in `floors` (past their
    rule's max_age), are left out before ranking, so a page is full when there are more; `pairs` (ranking.token_pairs)
    rank a line holding a token's words side by side higher. Only the owners of the
    documents found are looked up: a search's cost does not grow with the agent's files."""
    stats = index.statistics(agent_id)
    if not stats.documents:
        return SearchResult([], 0, False)
    frequencies = {t: stats.common[t] if t in index.analyzer.common else index.frequency(agent_id, t) for t in terms}
    frequent = sorted((t for t in terms if t in index.analyzer.common or frequencies[t] > RARE_DOCUMENTS),
                      key=lambda t: (frequencies[t], t))  # fmt: skip
    rare = [t for t in terms if t not in frequent]
    scorer = Scorer.of(terms, frequencies, stats, pairs)
    needed = max_results + 1
    wanted: Visible = lambda path, at: path.startswith(prefix) and shown(path, at)  # noqa: E731
    search = _Search(index, scorer, agent_id, wanted, dict(floors or {}))
    if not rare:  # every word is frequent: all but the common English ones are read, so that a line holding
        rare = [t for t in frequent if t not in index.analyzer.common]  # more of them ranks higher
        frequent = [t for t in frequent if t not in rare]
    search.add({t: index.postings(agent_id, t) for t in rare})
    passages = search.passages(needed)
    for term in frequent:  # a frequent word's own documents are read only when the rarer ones found too few
        if len(passages) >= needed:
            break
        search.add({term: index.postings(agent_id, term)})
        passages = search.passages(needed)
    page = passages[:max_results]
    return SearchResult([p.match for p in page], len(page), len(passages) > max_results)


@dataclass
class _Search:
    index: SearchReader
    scorer: Scorer
    agent_id: str
    wanted: Visible  # (path, last write; 0 for a log) -> whether its documents are searched
    floors: dict[int, int]  # a log's owner -> its oldest entry a reader sees
    owners: dict[int, str] = field(default_factory=dict)  # the owners searched, looked up as their documents come
    left_out: set[int] = field(default_factory=set)
    found: dict[int, tuple[float, int, int]] = field(default_factory=dict)  # row -> (score so far, owner, entry)
    slots: dict[int, tuple[Sequence[int], list[int]]] = field(default_factory=dict)  # owner -> slots, line starts
    lines: dict[tuple[int, int], tuple[float, frozenset[str]]] = field(default_factory=dict)  # scores, query words

    def add(self, postings: Mapping[str, list[Posting]]) -> None:
        """Score the documents of these terms (ranking.Scorer.score, one term at a time, inlined: thousands)."""
        self._look_up({owner for documents in postings.values() for _, owner, _, _, _ in documents})
        owners, found, average, floors = self.owners, self.found, self.scorer.average, self.floors
        for term, documents in postings.items():
            weight = self.scorer.weights[term]
            for row, owner, entry, count, length in documents:
                if owner in owners and (owner > 0 or entry >= floors.get(owner, 0)):
                    tf = min(count, MAX_TF)
                    score = weight * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))
                    before = found.get(row)
                    found[row] = (score if before is None else before[0] + score, owner, entry)

    def _look_up(self, owners: set[int]) -> None:
        new = sorted(owners - self.owners.keys() - self.left_out)
        for at in range(0, len(new), OWNERS_AT_ONCE):
            batch = new[at : at + OWNERS_AT_ONCE]
            found = self.index.owners(self.agent_id, batch)
            for owner in batch:
                path, updated_at = found.get(owner, ("", 0))
                if owner in found and self.wanted(path, updated_at):
                    self.owners[owner] = path
                else:
                    self.left_out.add(owner)

    def passages(self, needed: int) -> list[Passage]:
        """The best `needed` passages (fewer when there are no more), best first."""
        target = 2 * needed  # built in the order of their documents' scores, then sorted by their own
        found, owners = self.found, self.owners
        key: Callable[[int], tuple[float, str, int]] = lambda row: (-found[row][0], owners[found[row][1]], row)  # noqa: E731
        order = heapq.nsmallest(4 * target, found, key=key)  # the best first: usually all that is read
        built: list[Passage] = []
        taken: dict[int, list[tuple[int, int]]] = {}  # owner -> lines or entries already in a passage
        at = 0
        while at < len(found) and len(built) < target:
            if at >= len(order):  # the best were not enough: the rest, in order
                order += sorted(set(found) - set(order), key=key)
            batch = order[at : at + target]
            texts = self._read(batch)
            for row in batch:
                at += 1
                passage = self._passage(row, texts, taken.setdefault(self.found[row][1], []))
                if passage is not None:
                    built.append(passage)
                    if len(built) == target:
                        break
        built.sort(key=lambda p: (-p.score, p.path, p.first))
        return built[:needed]

    def _read(self, rows: Sequence[int]) -> dict[tuple[int, int], str]:
        """(owner, line or entry) -> its text, for the lines around each of these rows and their entries."""
        wanted: dict[int, set[int]] = {}
        entries: dict[int, set[int]] = {}
        for row in rows:
            _, owner, entry = self.found[row]
            if owner < 0:
                entries.setdefault(owner, set()).add(entry)
                continue
            slots, starts = self._slots(owner)
            line = _line_of(slots, starts, row)
            if line is None:
                continue
            lines = wanted.setdefault(owner, set())
            lines.update(range(max(1, line - REACH), min(len(starts) - 1, line + REACH) + 1))
        ids: list[int] = []
        where: dict[int, tuple[int, int]] = {}
        for owner, lines in wanted.items():
            slots, starts = self._slots(owner)
            for line in lines:
                for slot in slots[starts[line - 1] : starts[line]]:
                    if slot:
                        ids.append(abs(slot))
                        where[abs(slot)] = (owner, line)
        pieces = self.index.texts(ids)
        texts: dict[tuple[int, int], str] = {}
        for owner, lines in wanted.items():
            for line in lines:
                texts[owner, line] = ""
        for row_id in ids:  # a long line's pieces, in order
            texts[where[row_id]] += pieces.get(row_id, "")
        for owner, numbers in entries.items():
            for entry, text in self.index.entry_texts(owner, sorted(numbers)).items():
                texts[owner, entry] = text
        return texts

    def _slots(self, owner: int) -> tuple[Sequence[int], list[int]]:
        if owner not in self.slots:
            slots = self.index.owner_slots(owner)
            self.slots[owner] = (slots, line_starts(slots))
        return self.slots[owner]

    def _line(self, owner: int, number: int, text: str) -> tuple[float, frozenset[str]]:
        """A line's (or entry's) score (its best piece's) and the query words it holds."""
        key = (owner, number)
        if key not in self.lines:
            rows = rows_of(self.index.analyzer, text)
            score = max((self.scorer.score_terms(r.terms) for r in rows), default=0.0)
            words = frozenset(self.scorer.weights).intersection(t for r in rows for t in r.terms)
            self.lines[key] = (score, words)
        return self.lines[key]

    def _passage(self, row: int, texts: Mapping[tuple[int, int], str], taken: list[tuple[int, int]]) -> Passage | None:
        _, owner, entry = self.found[row]
        path = self.owners[owner]
        analyzer = self.index.analyzer
        terms = frozenset(self.scorer.weights)
        if owner < 0:
            if any(lo <= entry <= hi for lo, hi in taken):
                return None
            taken.append((entry, entry))
            text = texts.get((owner, entry), "")
            shown = around(text, analyzer.first_match(text, terms) if len(text) > ENTRY_CHARS else 0, ENTRY_CHARS)
            score = self._line(owner, entry, text)[0]
            return Passage(score, path, entry, SearchMatch(path=path, entry=entry, text=shown))
        slots, starts = self._slots(owner)
        line = _line_of(slots, starts, row)
        if line is None or any(lo <= line <= hi for lo, hi in taken):
            return None
        total = len(starts) - 1

        def near(n: int) -> tuple[float, frozenset[str]]:
            return self._line(owner, n, texts.get((owner, n), ""))

        lo, hi = window(line, total, near, taken)
        taken.append((lo, hi))
        lines = [texts.get((owner, n), "") for n in range(lo, hi + 1)]
        shown = "\n".join(around(t, analyzer.first_match(t, terms) if len(t) > MATCH_CHARS else 0) for t in lines)
        score = passage_score([near(n)[0] for n in range(lo, hi + 1) if near(n)[0]])
        return Passage(score, path, lo, SearchMatch(path=path, line=lo, end_line=hi, text=shown))


def _line_of(slots: Sequence[int], starts: list[int], row: int) -> int | None:
    """The 1-based number of the line whose slots hold this row (a line's first piece, or a further one); None for
    a row its file does not list (a damaged index, which `db check` names: search-file), which is no result."""
    for slot in (row, -row):
        with contextlib.suppress(ValueError):
            return bisect.bisect_right(starts, slots.index(slot))
    return None
