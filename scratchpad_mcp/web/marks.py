"""The words a search matched, marked in its results: each shown line cut into (text, matched) pieces, which the
search template renders as text and <mark>, every piece escaped and its controls made visible as elsewhere.

By words: the words whose term (folded, stemmed: the index's own analyzer) is among the query's; exact: the
query's text, case folded; a regular expression: its matches, by RE2 as the search ran it (never an empty match).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import re2

from scratchpad_adapters.regex_engine import options
from scratchpad_adapters.stemming import default_analyzer

Pieces = list[tuple[str, bool]]

_ANALYZER = default_analyzer()


def marked_lines(text: str, query: str, *, exact: bool, regex: bool) -> list[Pieces]:
    """`text`'s lines, each as pieces of unmatched and matched text, in order."""
    lines = text.split("\n")
    if regex:
        try:
            pattern = re2.compile(query, options(case_sensitive=False))
        except re2.error:  # the search refused it first; nothing to mark
            return [[(line, False)] for line in lines]
        return [pieces(line, (m.span() for m in pattern.finditer(line))) for line in lines]
    if exact:
        literal = re.compile(re.escape(query), re.IGNORECASE)
        return [pieces(line, (m.span() for m in literal.finditer(line))) for line in lines]
    terms = set(_ANALYZER.terms(query))
    return [pieces(line, _ANALYZER.spans(line, terms)) for line in lines]


def pieces(line: str, spans: Iterable[tuple[int, int]]) -> Pieces:
    out: Pieces = []
    at = 0
    for start, end in spans:
        if end <= start or start < at:  # an empty match, or one inside the last
            continue
        if start > at:
            out.append((line[at:start], False))
        out.append((line[start:end], True))
        at = end
    if at < len(line) or not out:
        out.append((line[at:], False))
    return out
