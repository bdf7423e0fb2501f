"""Regular-expression search for untrusted patterns: RE2 (google-re2), linear in the text, in bounded memory,
with one time budget across a search.

RE2 runs no construct that needs backtracking; scratchpad_adapters.regex_refusals says, in one line, which one
a refused pattern used. Compiled programs and their match caches stay within MAX_MEM each (a larger pattern is
refused); nothing is captured (a search needs only where a match starts).

A whole text is searched at once, in multi-line mode with `never_nl` (no match crosses a line's end; ^ and $
hold at each line's ends, \\b reads a line's end as a non-word character), which finds exactly the lines a
line-by-line search would, at RE2's speed; only a pattern that reads the text's own ends (\\A, \\z, (?-m)) or
may match '\\n' (\\C) is matched line by line. Each search runs in growing windows from where it starts (each
holds the matches that fit in it, RE2 reading past its end for $ and \\b), the budget checked before each
window from the time the one before took, so that one long line or file stops near the budget too.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import re2

from scratchpad_core.errors import InvalidInput
from scratchpad_core.ports import Matcher

from .regex_refusals import refusal

DEFAULT_BUDGET_SECONDS = 2.0
MAX_MEM = 8 << 20  # bytes RE2 may use for one pattern (its programs and the DFA's cache)
WINDOW = 16 << 10  # bytes searched first; each further window doubles (a file has at most 1 MiB by default)
_LINE_BY_LINE = re.compile(r"\\[ACz]|\(\?[a-zA-Z]*-[a-zA-Z]*m")  # the text's ends, a byte that may be '\n'


def options(case_sensitive: bool, *, never_nl: bool = False) -> re2.Options:
    chosen = re2.Options()
    chosen.max_mem = MAX_MEM
    chosen.log_errors = False  # a refusal is the caller's answer, not a line on the server's stderr
    chosen.never_capture = True
    chosen.case_sensitive = case_sensitive
    chosen.never_nl = never_nl
    return chosen


def compiled(pattern: bytes, chosen: re2.Options) -> re2._Regexp[bytes]:
    try:
        return re2.compile(pattern, chosen)
    except re2.error as error:
        raise refusal(pattern.decode("utf-8"), error, MAX_MEM) from None


class LineMatcher:
    """Where a pattern first matches in one line, within the search's deadline."""

    def __init__(self, line: re2._Regexp[bytes], deadline: float, budget: float) -> None:
        self._line = line
        self._deadline = deadline
        self._budget = budget

    def __call__(self, line: str) -> int | None:
        data = line.encode("utf-8")
        found = self._search(self._line, data, 0)
        return None if found is None else _chars(line, data, 0, found)

    def _search(self, regex: re2._Regexp[bytes], data: bytes, pos: int) -> int | None:
        """Where the first match at or after `pos` starts (bytes), searched in growing windows."""
        size, took = len(data), 0.0
        end = min(size, pos + WINDOW)
        while True:
            started = time.monotonic()
            if started + took * 2 > self._deadline:  # the next window costs about twice the last (none yet: 0)
                raise InvalidInput(
                    f"Regex search stopped after {self._budget:g} seconds (its time budget): there is more text "
                    "than this pattern can be matched against in time. Narrow the prefix, simplify the pattern, "
                    "or search by words."
                )
            found = regex.search(data, pos, end)
            took = time.monotonic() - started
            if found is not None:
                return found.start()
            if end == size:
                return None
            end = min(size, pos + 2 * (end - pos))


class TextMatcher(LineMatcher):
    """Also finds the matching lines of a whole text with one search per matching line (ports.TextMatcher)."""

    def __init__(self, line: re2._Regexp[bytes], text: re2._Regexp[bytes], deadline: float, budget: float) -> None:
        super().__init__(line, deadline, budget)
        self._text = text

    def lines(self, text: str) -> Iterator[tuple[int, int]]:
        # A line is matched without its ending: '\r\n' ends a line as '\n' does, and a last line drops its '\r'.
        plain = text.replace("\r\n", "\n") if "\r" in text else text
        plain = plain.removesuffix("\r") if not plain.endswith("\n") else plain
        data = plain.encode("utf-8")
        size, pos, number, counted = len(data), 0, 1, 0
        tail = bool(text) and not text.endswith("\n")  # a last line has no ending: it holds the text's end
        while pos < size or (pos == size and tail):
            start = self._search(self._text, data, pos)
            if start is None or (start == size and not tail):
                return  # no match, or an empty one after the last line's end, where no line is
            line_start = data.rfind(b"\n", 0, start) + 1
            number += data.count(b"\n", counted, line_start)
            counted = line_start
            yield number, _chars(plain, data, line_start, start)
            pos = data.find(b"\n", start) + 1
            if pos == 0:
                return


def _chars(text: str, data: bytes, line_start: int, start: int) -> int:
    """The match's start, in characters from its line's start (both given in bytes of `data`, text's UTF-8)."""
    return start - line_start if text.isascii() else len(data[line_start:start].decode("utf-8", "ignore"))


class BoundedRegexEngine:
    """Compiles patterns into matchers that share one time budget per search."""

    def __init__(self, budget_seconds: float = DEFAULT_BUDGET_SECONDS) -> None:
        self.budget_seconds = budget_seconds

    def compile(self, pattern: str, case_sensitive: bool) -> Matcher:
        try:
            encoded = pattern.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidInput("Invalid regex: it is not valid Unicode (a lone surrogate); send UTF-8 text.") from None
        line = compiled(encoded, options(case_sensitive))
        deadline = time.monotonic() + self.budget_seconds
        if _LINE_BY_LINE.search(pattern):
            return LineMatcher(line, deadline, self.budget_seconds)
        text = compiled(b"(?m)" + encoded, options(case_sensitive, never_nl=True))
        return TextMatcher(line, text, deadline, self.budget_seconds)
