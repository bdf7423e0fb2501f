"""Regular-expression search with a time budget, on the `regex` package's per-call timeout."""

from __future__ import annotations

import time

import regex

from scratchpad_core.errors import InvalidInput
from scratchpad_core.ports import Matcher

DEFAULT_BUDGET_SECONDS = 2.0
MAX_REPETITION_PRODUCT = 100_000
# An escape (skipped), or a counted repetition {n}, {n,}, {,m} or {n,m}.
_COUNTED = regex.compile(r"\\.|\{(\d*)(?:,(\d*))?\}", regex.DOTALL)


def check_repetitions(pattern: str) -> None:
    """Refuse patterns whose counted repetitions would expand beyond what compiling can afford.

    The regex package expands x{n} into n copies when it compiles, before any time budget applies:
    (?:x{1000}){1000} takes about 280 MB, and (?:x{65535}){65535} exhausts memory. The product of all
    counts bounds the expansion however they nest; ordinary patterns (\\d{4}-\\d{2}) stay far below.
    """
    product = 1
    for match in _COUNTED.finditer(pattern):
        low, high = match.group(1), match.group(2)
        if low is None and high is None:
            continue  # an escape
        count = max(int(low or 0), int(high or 0)) if high != "" else int(low or 0)
        product *= max(count, 1)
        if product > MAX_REPETITION_PRODUCT:
            raise InvalidInput(
                f"Invalid regex: its counted repetitions ({{n}}, {{n,m}}) multiply to more than "
                f"{MAX_REPETITION_PRODUCT:,}, too costly to compile. Use smaller counts, or + and *."
            )


class BoundedRegexEngine:
    """Compiles patterns into matchers that share one time budget per search."""

    def __init__(self, budget_seconds: float = DEFAULT_BUDGET_SECONDS) -> None:
        self.budget_seconds = budget_seconds

    def compile(self, pattern: str, case_sensitive: bool) -> Matcher:
        check_repetitions(pattern)
        try:
            compiled = regex.compile(pattern, 0 if case_sensitive else regex.IGNORECASE)
        except regex.error as error:
            raise InvalidInput(
                f"Invalid regex: {error}. Fix the pattern, or pass regex=false for a literal search."
            ) from None
        deadline = time.monotonic() + self.budget_seconds

        def match(line: str) -> int | None:
            remaining = deadline - time.monotonic()
            try:
                if remaining <= 0:
                    raise TimeoutError
                found = compiled.search(line, timeout=remaining)
            except TimeoutError:
                raise InvalidInput(
                    f"Regex search stopped after {self.budget_seconds:g} seconds: the pattern is too costly "
                    "(nested repetition backtracks). Simplify it, narrow the prefix, or search literally."
                ) from None
            return None if found is None else found.start()

        return match
