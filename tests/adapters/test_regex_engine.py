"""The RE2 engine itself: a whole text searched at once finds the lines a line-by-line search finds, a long line
searched in growing windows gives the answers one search of it would, the budget holds on one costly line,
offsets count characters, and a refused pattern leaves nothing on stderr."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchpad_adapters.regex_engine import WINDOW, BoundedRegexEngine, LineMatcher, TextMatcher
from scratchpad_core.errors import InvalidInput
from scratchpad_core.text import split_keepends

ENGINE = BoundedRegexEngine()


def at(pattern: str, line: str, case_sensitive: bool = False) -> int | None:
    return ENGINE.compile(pattern, case_sensitive)(line)


@pytest.mark.parametrize(
    ("pattern", "line", "expected"),
    [
        ("needle$", "x" * (8 * WINDOW) + "needle", 8 * WINDOW),  # found in the last window only
        ("needle$", "x" * WINDOW + "needle" + "x", None),  # '$' holds only at the line's end, not a window's
        (r"x\b", "x" * (WINDOW - 1) + "yz", None),  # \b reads past a window's end
        ("^y", "x" * WINDOW + "y", None),  # '^' only at the line's start
        ("ab{20}c", "a" * (WINDOW - 10) + "b" * 20 + "c", WINDOW - 11),  # a match across a window's end
        ("a.*z", "a" + "m" * (3 * WINDOW) + "z", 0),  # a match as long as the line
        ("needle", "é" * 10 + "needle", 10),  # offsets count characters, not bytes
        ("NEEDLE", "ü" * (2 * WINDOW) + "needle", 2 * WINDOW),
        ("^$", "", 0),
    ],
)
def test_windows_answer_as_one_search_would(pattern: str, line: str, expected: int | None) -> None:
    assert at(pattern, line) == expected


def test_case_sensitivity_is_an_option() -> None:
    assert at("Straße", "STRASSE straße") == 8
    assert at("hello", "HELLO", case_sensitive=True) is None
    assert at("(?i)hello", "HELLO", case_sensitive=True) == 0


def test_one_costly_line_stops_near_the_budget_not_at_its_end() -> None:
    """A pattern that keeps RE2 off its fast path reads about 10 µs a byte: one search of a 1 MiB line would take
    over 10 s. Windows stop it within the budget."""
    engine = BoundedRegexEngine(budget_seconds=0.5)
    line = ("abcdefghij klmnopqrstuvwxyz0123456789 " * 30_000)[: 1 << 20]
    match = engine.compile(r"(?:.{999}x|y)" * 5, False)
    started = time.monotonic()
    with pytest.raises(InvalidInput, match=r"^Regex search stopped after 0.5 seconds"):
        match(line)
    assert time.monotonic() - started < 1.5


def test_a_refused_pattern_says_nothing_on_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(InvalidInput, match="lookahead"):
        ENGINE.compile("a(?=b)", False)
    assert capfd.readouterr().err == ""


def test_a_pattern_that_is_not_unicode_is_refused() -> None:
    with pytest.raises(InvalidInput, match="lone surrogate"):
        ENGINE.compile("\ud800", False)


def test_deep_nesting_and_many_groups_compile_small_and_fast() -> None:
    started = time.monotonic()
    assert ENGINE.compile("(" * 499 + "a" + ")" * 499, False)("a" * 100_000) == 0
    assert ENGINE.compile("(a)" * 333, False)("a" * 1000) == 0
    assert time.monotonic() - started < 2


PATTERNS = [
    "^",
    "$",
    "^$",
    "^a",
    "a$",
    "b\\b",
    "\\ba",
    "\\Ba",
    "a\\B",
    "[^x]+b",
    "a\\sb",
    "\\S+$",
    "\\D{3}",
    "(?s)a.b",
    "(?i)É",
    "a\\n?b",
    "^\\s*$",
    "(?-m:^a)",
    "\\Aa",
    "b\\z",
    "a\\Cb",
    ".*",
    "(a|é)_",
    "\\pL+\\r?$",
    "\\r",
]


def per_line(pattern: str, text: str) -> list[tuple[int, int]]:
    """What matching each line on its own finds: (number, start) of each matching line."""
    match = LineMatcher(ENGINE.compile(pattern, False)._line, time.monotonic() + 10, 10)  # type: ignore[attr-defined]
    found = []
    for number, raw in enumerate(split_keepends(text), 1):
        at = match(raw.removesuffix("\n").removesuffix("\r"))
        if at is not None:
            found.append((number, at))
    return found


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(PATTERNS), st.text(alphabet="ab x_é\n\r\t", max_size=40))
def test_a_whole_text_search_finds_the_lines_a_line_by_line_search_finds(pattern: str, text: str) -> None:
    matcher = ENGINE.compile(pattern, False)
    whole = list(matcher.lines(text)) if isinstance(matcher, TextMatcher) else None
    assert whole is None or whole == per_line(pattern, text), (pattern, text)


def test_patterns_that_read_the_texts_ends_are_matched_line_by_line() -> None:
    for pattern in ("\\Aa", "b\\z", "(?-m:^a)", "(?i-m)a$", "a\\Cb"):
        assert not isinstance(ENGINE.compile(pattern, False), TextMatcher), pattern
    assert isinstance(ENGINE.compile("^a$", False), TextMatcher)


def test_a_long_text_with_no_match_and_one_at_its_end() -> None:
    text = "line of text\n" * 80_000 + "the needle\r\n"
    matcher = ENGINE.compile("needle$", False)
    assert isinstance(matcher, TextMatcher)
    started = time.monotonic()
    assert list(matcher.lines(text)) == [(80_001, 4)]
    assert time.monotonic() - started < 1
