"""Regular-expression search with a time budget, on the `regex` package's per-call timeout."""

from __future__ import annotations

import time

import regex

from scratchpad_core.errors import InvalidInput
from scratchpad_core.ports import Matcher

DEFAULT_BUDGET_SECONDS = 2.0


class BoundedRegexEngine:
    """Compiles patterns into matchers that share one time budget per search."""

    def __init__(self, budget_seconds: float = DEFAULT_BUDGET_SECONDS) -> None:
        self.budget_seconds = budget_seconds

    def compile(self, pattern: str, case_sensitive: bool) -> Matcher:
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
