"""How word search ranks: BM25 over the agent's documents (lines and log entries), then passages.

A document's score is BM25 (k1 = 1.2, b = 0.75) with idf = ln(1 + (N - n + 0.5) / (n + 0.5)), where N is the
number of the agent's documents, n how many hold the term and the average length is the agent's (the index's
Statistics): rarer words and more of the query's words score higher, longer documents a little lower. Every
backend computes it here, from the same terms, so their rankings agree.

A line (or entry) scores its BM25 plus, for each pair of words of one query identifier (a token holding '_', which
the analyzer splits: `sk_live_4242`) that it holds next to each other in that order, PHRASE_WEIGHT times the
lesser of the two words' idf, each pair once: the line holding the whole identifier ranks above one holding its
words apart. Other words get no such bonus: on LoCoMo, a bonus for any consecutive query words, or for the words
of any token ("Caroline's", "self-care"), moved recall both ways and replies' bytes (pending-docs/perf29.md).

A file passage is built around a matching line: adjacent matching lines join it (words close together, even
across lines, rank higher), with a line of context on each side, at most PASSAGE_LINES lines. Its score is
its best line's plus OTHER_LINES_WEIGHT times each other matching line's.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from .indexing import MAX_TF, Statistics

K1 = 1.2
B = 0.75
PASSAGE_LINES = 5
OTHER_LINES_WEIGHT = 0.5
JOIN_SHARE = 0.5  # a neighbour joins a passage when it scores at least this share of the passage's best line
PHRASE_WEIGHT = 1.0  # what a pair of query words side by side in a line adds, times the lesser of their idf


def token_pairs(terms_of: Callable[[str], Sequence[str]], query: str) -> list[tuple[str, str]]:
    """The pairs of consecutive terms within each of the query's identifiers (space-separated tokens holding '_'),
    not a word twice."""
    pairs = []
    for token in query.split():
        terms = terms_of(token) if "_" in token else ()
        pairs += [(a, b) for a, b in itertools.pairwise(terms) if a != b]
    return pairs


def idf(documents: int, frequency: int) -> float:
    return math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5))


@dataclass(frozen=True)
class Scorer:
    """BM25 of documents for one query: each query term's idf, and the agent's average document length."""

    weights: dict[str, float]  # query term -> idf, in the query's order
    average: float
    pairs: frozenset[tuple[str, str]] = frozenset()  # consecutive terms of one query token (token_pairs)

    @classmethod
    def of(
        cls,
        terms: Sequence[str],
        frequencies: Mapping[str, int],
        stats: Statistics,
        pairs: Iterable[tuple[str, str]] = (),
    ) -> Scorer:
        average = stats.length / stats.documents if stats.documents else 1.0
        weights = {t: idf(stats.documents, frequencies.get(t, 0)) for t in terms}
        return cls(weights, average or 1.0, frozenset(p for p in pairs if p[0] in weights and p[1] in weights))

    def score(self, counts: Mapping[str, int], length: int) -> float:
        norm = K1 * (1 - B + B * length / self.average)
        total = 0.0
        for term, weight in self.weights.items():
            tf = min(counts.get(term, 0), MAX_TF)
            if tf:
                total += weight * tf * (K1 + 1) / (tf + norm)
        return total

    def score_terms(self, terms: Sequence[str]) -> float:
        """A line's (or entry's piece's) score: BM25 and the pairs of query words it holds side by side."""
        if not terms:
            return 0.0
        return self.score(Counter(terms), len(terms)) + self.adjacency(terms)

    def adjacency(self, terms: Sequence[str]) -> float:
        """PHRASE_WEIGHT times the lesser idf of each pair of consecutive query terms next to each other in
        `terms`, in order (each pair once)."""
        if not self.pairs:
            return 0.0
        found = self.pairs.intersection(itertools.pairwise(terms))
        return PHRASE_WEIGHT * sum(min(self.weights[a], self.weights[b]) for a, b in found)

    def bound(self, terms: Iterable[str]) -> float:
        """The most these terms can add to any document's score."""
        return sum(self.weights[t] * (K1 + 1) for t in terms)


def passage_score(line_scores: Sequence[float]) -> float:
    """A passage's score from its matching lines' scores."""
    if not line_scores:
        return 0.0
    best = max(line_scores)
    return best + OTHER_LINES_WEIGHT * (sum(line_scores) - best)


def window(
    line: int, total: int, near: Callable[[int], tuple[float, frozenset[str]]], taken: Sequence[tuple[int, int]]
) -> tuple[int, int]:
    """The lines of the passage around matching line `line` (1-based) of a file of `total` lines: the adjacent
    lines that bring a query word the passage lacks and score at least JOIN_SHARE of `line` (near: a nearby
    line's score and query words; nearest first, at most PASSAGE_LINES - 2 lines in all), and a line of context
    on each side where there is one; never a line of a passage already `taken` (first, last)."""

    def free(n: int) -> bool:
        return 1 <= n <= total and not any(lo <= n <= hi for lo, hi in taken)

    least = JOIN_SHARE * near(line)[0]
    held = set(near(line)[1])

    def joins(n: int) -> bool:
        if not free(n):
            return False
        score, words = near(n)
        return score >= least and not words <= held

    lo = hi = line
    while hi - lo + 1 < PASSAGE_LINES - 2:
        if joins(hi + 1):
            hi += 1
            held |= near(hi)[1]
        elif joins(lo - 1):
            lo -= 1
            held |= near(lo)[1]
        else:
            break
    if free(lo - 1):  # a line of context on each side
        lo -= 1
    if free(hi + 1):
        hi += 1
    return lo, hi
