"""Regular-expression search for untrusted patterns: RE2 (google-re2), linear in the text, in bounded memory,
with one time budget across a search.

RE2 runs no construct that needs backtracking; scratchpad_adapters.regex_refusals says, in one line, which one
a refused pattern used. Compiled programs and their match caches stay within MAX_MEM each (a larger pattern is
refused); nothing is captured (a search needs only where a match starts). A line is matched as a whole, so a
long one is searched in growing windows from its start (each holds the matches that fit in it: RE2 reads the
whole line for ^, $ and \\b), the budget checked before each window from the time the one before took.
"""

from __future__ import annotations

import time

import re2

from scratchpad_core.errors import InvalidInput
from scratchpad_core.ports import Matcher

from .regex_refusals import refusal

DEFAULT_BUDGET_SECONDS = 2.0
MAX_MEM = 8 << 20  # bytes RE2 may use for one pattern (its programs and the DFA's cache)
WINDOW = 16 << 10  # bytes of a line searched first; each further window doubles (a line has at most 1 MiB)


def options(case_sensitive: bool) -> re2.Options:
    chosen = re2.Options()
    chosen.max_mem = MAX_MEM
    chosen.log_errors = False  # a refusal is the caller's answer, not a line on the server's stderr
    chosen.never_capture = True
    chosen.case_sensitive = case_sensitive
    return chosen


class BoundedRegexEngine:
    """Compiles patterns into matchers that share one time budget per search."""

    def __init__(self, budget_seconds: float = DEFAULT_BUDGET_SECONDS) -> None:
        self.budget_seconds = budget_seconds

    def compile(self, pattern: str, case_sensitive: bool) -> Matcher:
        try:
            encoded = pattern.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidInput("Invalid regex: it is not valid Unicode (a lone surrogate); send UTF-8 text.") from None
        try:
            compiled = re2.compile(encoded, options(case_sensitive))
        except re2.error as error:
            raise InvalidInput(refusal(pattern, error, MAX_MEM)) from None
        deadline = time.monotonic() + self.budget_seconds

        def over() -> InvalidInput:
            return InvalidInput(
                f"Regex search stopped after {self.budget_seconds:g} seconds (its time budget): there is more text "
                "than this pattern can be matched against in time. Narrow the prefix, simplify the pattern, or "
                "search by words."
            )

        def match(line: str) -> int | None:
            data = line.encode("utf-8")
            size, end, took = len(data), min(len(data), WINDOW), 0.0
            while True:
                started = time.monotonic()
                if started + took * 2 > deadline:  # the next window costs about twice the last (none yet: 0)
                    raise over()
                found = compiled.search(data, 0, end)
                took = time.monotonic() - started
                if found is not None:
                    at = found.start()
                    return at if line.isascii() else len(data[:at].decode("utf-8", "ignore"))
                if end == size:
                    return None
                end = min(size, 2 * end)

        return match
