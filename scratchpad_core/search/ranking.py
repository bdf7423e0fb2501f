"""How word search ranks: BM25 over the agent's documents (lines and log entries), then passages.

A document's score is BM25 (k1 = 1.2, b = 0.75) with idf = ln(1 + (N - n + 0.5) / (n + 0.5)), where N is the
number of the agent's documents, n how many hold the term and the average length is the agent's (the index's
Statistics): rarer words and more of the query's words score higher, longer documents a little lower. Every
backend computes it here, from the same terms, so their rankings agree.

A file passage is built around a matching line: adjacent matching lines join it (words close together, even
across lines, rank higher), with a line of context on each side, at most PASSAGE_LINES lines. Its score is
its best line's plus OTHER_LINES_WEIGHT times each other matching line's.
"""

from __future__ import annotations

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


def idf(documents: int, frequency: int) -> float:
    return math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5))


@dataclass(frozen=True)
class Scorer:
    """BM25 of documents for one query: each query term's idf, and the agent's average document length."""

    weights: dict[str, float]  # query term -> idf, in the query's order
    average: float

    @classmethod
    def of(cls, terms: Sequence[str], frequencies: Mapping[str, int], stats: Statistics) -> Scorer:
        average = stats.length / stats.documents if stats.documents else 1.0
        return cls({t: idf(stats.documents, frequencies.get(t, 0)) for t in terms}, average or 1.0)

    def score(self, counts: Mapping[str, int], length: int) -> float:
        norm = K1 * (1 - B + B * length / self.average)
        total = 0.0
        for term, weight in self.weights.items():
            tf = min(counts.get(term, 0), MAX_TF)
            if tf:
                total += weight * tf * (K1 + 1) / (tf + norm)
        return total

    def score_terms(self, terms: Sequence[str]) -> float:
        return self.score(Counter(terms), len(terms)) if terms else 0.0

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
