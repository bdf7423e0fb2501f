"""list_files (literal prefixes, byte order, paging) and search_files's exact and regex modes (the default word
search: test_word_search.py)."""

from __future__ import annotations

import concurrent.futures
import dataclasses
import threading
import time

import pytest

from scratchpad_adapters import open_backend
from scratchpad_adapters.factory import Backend
from scratchpad_adapters.regex_engine import BoundedRegexEngine
from scratchpad_core.errors import InvalidInput, InvalidPath
from scratchpad_core.ports import Matcher
from scratchpad_core.results import FileInfo, SearchMatch, SearchResult
from scratchpad_core.service import Scratchpad

A = "agent-a"


def paths(store: Scratchpad, prefix: str | None = None) -> list[str]:
    return [f.path for f in store.list_files(A, prefix).files]


def test_prefix_is_literal_and_case_sensitive(store: Scratchpad) -> None:
    for path in ("a_b", "axb", "A_b", "a-b", "ab", "a_"):
        store.write_file(A, path, path)
    assert paths(store, "a_") == ["a_", "a_b"]
    assert paths(store, "a_b") == ["a_b"]
    assert paths(store, "A") == ["A_b"]
    assert paths(store, "ax") == ["axb"]
    assert paths(store, "b") == []
    # '%' and '*' are literal too: no path holds them, so nothing matches (not everything).
    for literal in ("%", "a%", "*", "a_%", "a b"):
        assert paths(store, literal) == []
        assert store.search_files(A, "a", literal).matches == []
        assert store.search_files(A, "a", literal, exact=True).matches == []
        assert store.list_logs(A, literal).logs == []


def test_like_wildcards_are_not_paths_and_match_literally(store: Scratchpad) -> None:
    store.write_file(A, "abc", "x")
    with pytest.raises(InvalidPath):
        store.write_file(A, "a%c", "x")
    assert paths(store, "a%") == []
    assert paths(store, "a.") == []
    with pytest.raises(InvalidInput, match="Invalid cursor"):
        store.list_files(A, limit=1, cursor="a%")


def test_paths_are_case_sensitive(store: Scratchpad) -> None:
    store.write_file(A, "Notes.md", "upper")
    store.write_file(A, "notes.md", "lower")
    assert paths(store) == ["Notes.md", "notes.md"]
    assert store.read_file(A, "Notes.md").content == "upper"
    assert store.read_file(A, "notes.md").content == "lower"


def test_deleted_files_leave_the_listing(store: Scratchpad) -> None:
    store.write_file(A, "a", "1")
    store.write_file(A, "b", "2")
    store.delete_file(A, "a")
    assert paths(store) == ["b"]


def test_files_are_sorted_in_byte_order(store: Scratchpad) -> None:
    names = ["b", "a", "B", "A", "_x", "0", "a/b", "a-b", "a.b", "Z9", "z", "a_b", "ab"]
    for name in names:
        store.write_file(A, name, name)
    assert paths(store) == sorted(names, key=lambda s: s.encode())
    assert paths(store)[:4] == ["0", "A", "B", "Z9"]


def test_list_files_returns_metadata_only(store: Scratchpad) -> None:
    store.write_file(A, "notes/a.md", "first")
    store.write_file(A, "notes/a.md", "héllo")

    listing = store.list_files(A)

    assert listing.count == 1
    assert listing.next_cursor is None
    [info] = listing.files
    assert [f.name for f in dataclasses.fields(FileInfo)] == [
        "path",
        "current_version",
        "bytes",
        "created_at",
        "updated_at",
    ]
    assert (info.path, info.current_version, info.bytes) == ("notes/a.md", 2, 6)
    assert 0 < info.created_at <= info.updated_at


@pytest.mark.parametrize(("total", "limit"), [(7, 3), (6, 3), (3, 3), (1, 5), (5, 1)])
def test_paging_returns_every_file_exactly_once(store: Scratchpad, total: int, limit: int) -> None:
    names = [f"dir/f{i:02d}" for i in range(total)]
    for name in reversed(names):
        store.write_file(A, name, "x")
    store.write_file(A, "other", "outside the prefix")

    seen: list[str] = []
    cursors: list[str | None] = []
    cursor: str | None = None
    while True:
        page = store.list_files(A, "dir/", limit=limit, cursor=cursor)
        assert page.count == len(page.files)
        assert 1 <= page.count <= limit
        seen.extend(f.path for f in page.files)
        cursors.append(page.next_cursor)
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert seen == names
    assert len(cursors) == -(-total // limit)
    assert cursors[-1] is None


def test_invalid_list_limits(store: Scratchpad) -> None:
    for limit in (0, -1, 1001):
        with pytest.raises(InvalidInput):
            store.list_files(A, limit=limit)


# --- search_files ---------------------------------------------------------------------


@pytest.fixture
def corpus(store: Scratchpad) -> Scratchpad:
    store.write_file(A, "notes/a.md", "Hello World\nsecond line\nhello again\n")
    store.write_file(A, "notes/b.md", "HELLO\r\nprice: 3.5 (x+y)\r\n")
    store.write_file(A, "other/c.md", "nothing\nhello")
    return store


def found(result: SearchResult) -> list[tuple[str, int | None, str]]:
    return [(m.path, m.line, m.text) for m in result.matches]


def test_literal_search_is_case_insensitive_by_default(corpus: Scratchpad) -> None:
    result = corpus.search_files(A, "hello", exact=True)
    assert found(result) == [
        ("notes/a.md", 1, "Hello World"),
        ("notes/a.md", 3, "hello again"),
        ("notes/b.md", 1, "HELLO"),
        ("other/c.md", 2, "hello"),
    ]
    assert (result.count, result.has_more, result.files_searched) == (4, False, 3)
    assert result.matches[0] == SearchMatch(path="notes/a.md", line=1, text="Hello World")


def test_case_sensitive_search(corpus: Scratchpad) -> None:
    result = corpus.search_files(A, "hello", case_sensitive=True, exact=True)
    assert found(result) == [("notes/a.md", 3, "hello again"), ("other/c.md", 2, "hello")]
    assert found(corpus.search_files(A, "HELLO", case_sensitive=True, exact=True)) == [("notes/b.md", 1, "HELLO")]


def test_literal_search_ignores_regex_syntax(corpus: Scratchpad) -> None:
    assert found(corpus.search_files(A, "(x+y)", exact=True)) == [("notes/b.md", 2, "price: 3.5 (x+y)")]
    assert found(corpus.search_files(A, "3.5", exact=True)) == [("notes/b.md", 2, "price: 3.5 (x+y)")]
    assert found(corpus.search_files(A, "3x5", exact=True)) == []
    assert found(corpus.search_files(A, "h.llo", exact=True)) == []


def test_regex_search(corpus: Scratchpad) -> None:
    assert found(corpus.search_files(A, r"^h.llo\b", regex=True)) == [
        ("notes/a.md", 1, "Hello World"),
        ("notes/a.md", 3, "hello again"),
        ("notes/b.md", 1, "HELLO"),
        ("other/c.md", 2, "hello"),
    ]
    assert found(corpus.search_files(A, r"^h.llo$", regex=True)) == [
        ("notes/b.md", 1, "HELLO"),  # a CRLF line: '$' matches before its '\r'
        ("other/c.md", 2, "hello"),
    ]
    assert found(corpus.search_files(A, r"^H", regex=True, case_sensitive=True)) == [
        ("notes/a.md", 1, "Hello World"),
        ("notes/b.md", 1, "HELLO"),
    ]
    assert found(corpus.search_files(A, r"\d\.\d", regex=True)) == [("notes/b.md", 2, "price: 3.5 (x+y)")]


def test_regex_end_anchor_matches_at_the_end_of_a_crlf_line(store: Scratchpad) -> None:
    # A match reports the line without its '\r', so '$' should match where that line ends.
    store.write_file(A, "win.txt", "first\r\nHELLO\r\n")
    assert found(store.search_files(A, r"hello$", regex=True)) == [("win.txt", 2, "HELLO")]


def test_search_reports_no_line_past_the_end_of_a_file(store: Scratchpad) -> None:
    # "a\n\nb\n" has 3 lines (read_file says total_lines=3); there is no empty line 4 after the final newline.
    store.write_file(A, "f.txt", "a\n\nb\n")
    assert store.read_file(A, "f.txt", start_line=1).total_lines == 3
    assert found(store.search_files(A, "^$", regex=True)) == [("f.txt", 2, "")]
    assert [m.line for m in store.search_files(A, ".*", regex=True).matches] == [1, 2, 3]


def test_search_with_a_prefix(corpus: Scratchpad) -> None:
    result = corpus.search_files(A, "hello", prefix="notes/", exact=True)
    assert [m.path for m in result.matches] == ["notes/a.md", "notes/a.md", "notes/b.md"]
    assert result.files_searched == 2
    assert corpus.search_files(A, "hello", prefix="nothing/", exact=True).files_searched == 0


def test_max_results_and_has_more(corpus: Scratchpad) -> None:
    two = corpus.search_files(A, "hello", max_results=2, exact=True)
    assert found(two) == [("notes/a.md", 1, "Hello World"), ("notes/a.md", 3, "hello again")]
    assert (two.count, two.has_more) == (2, True)
    three = corpus.search_files(A, "hello", max_results=3, exact=True)
    assert (three.count, three.has_more) == (3, True)
    exact = corpus.search_files(A, "hello", max_results=4, exact=True)
    assert (exact.count, exact.has_more) == (4, False)
    for bad in (0, 201):
        with pytest.raises(InvalidInput):
            corpus.search_files(A, "hello", max_results=bad)


def test_search_reads_only_current_versions_of_files(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", "needle\n")
    store.write_file(A, "f.txt", "haystack\n")
    assert store.search_files(A, "needle", exact=True).matches == []
    assert found(store.search_files(A, "hay", exact=True)) == [("f.txt", 1, "haystack")]


def entries(result: SearchResult) -> list[tuple[str, int | None, int | None, str]]:
    return [(m.path, m.line, m.entry, m.text) for m in result.matches]


@pytest.fixture
def logged(corpus: Scratchpad) -> Scratchpad:
    """The corpus, with logs: a multi-line entry, one under notes/, one in another agent's log."""
    corpus.append_log(A, "run.log", "started\nHELLO from step 2\r\nfinished")
    corpus.append_log(A, "run.log", "nothing here")
    corpus.append_log(A, "run.log", "hello again, and hello")
    corpus.append_log(A, "notes/n.log", "price: 3.5 (x+y)")
    corpus.append_log("agent-b", "run.log", "hello from another agent")
    return corpus


def test_exact_and_regex_search_logs_too_files_first_then_entries_by_path_and_id(logged: Scratchpad) -> None:
    result = logged.search_files(A, "hello", exact=True)
    assert entries(result) == [
        ("notes/a.md", 1, None, "Hello World"),
        ("notes/a.md", 3, None, "hello again"),
        ("notes/b.md", 1, None, "HELLO"),
        ("other/c.md", 2, None, "hello"),
        ("run.log", None, 1, "started\nHELLO from step 2\r\nfinished"),  # an entry shown whole, as a word search does
        ("run.log", None, 3, "hello again, and hello"),
    ]
    assert (result.count, result.has_more, result.files_searched) == (6, False, 3)  # files_searched: files read
    assert result.matches[4] == SearchMatch(path="run.log", entry=1, text="started\nHELLO from step 2\r\nfinished")
    assert entries(logged.search_files(A, "(x+y)", exact=True)) == [
        ("notes/b.md", 2, None, "price: 3.5 (x+y)"),
        ("notes/n.log", None, 1, "price: 3.5 (x+y)"),
    ]
    # A line of an entry is matched as a file's line is: ^ and $ at its ends ('\r\n' too), '.' within it.
    assert [m.entry for m in logged.search_files(A, r"^hello.*2$", regex=True).matches] == [1]
    assert [m.entry for m in logged.search_files(A, r"^finished$", regex=True).matches] == [1]
    assert logged.search_files(A, r"started.HELLO", regex=True).matches == []  # no match across lines
    sensitive = logged.search_files(A, "hello", regex=True, case_sensitive=True).matches
    assert [(m.path, m.line or m.entry) for m in sensitive] == [("notes/a.md", 3), ("other/c.md", 2), ("run.log", 3)]
    assert entries(logged.search_files(A, "hello", prefix="notes/n", exact=True)) == []
    assert entries(logged.search_files(A, "price", prefix="notes/n", exact=True)) == [
        ("notes/n.log", None, 1, "price: 3.5 (x+y)")
    ]


def test_max_results_and_has_more_cover_files_and_entries(logged: Scratchpad) -> None:
    at_files = logged.search_files(A, "hello", max_results=4, exact=True)
    assert (at_files.count, at_files.has_more, at_files.matches[-1].path) == (4, True, "other/c.md")
    five = logged.search_files(A, "hello", max_results=5, exact=True)
    assert (five.count, five.has_more, five.matches[-1].entry) == (5, True, 1)
    six = logged.search_files(A, "hello", max_results=6, regex=True)
    assert (six.count, six.has_more) == (6, False)


def test_a_long_entry_is_shown_around_its_match(store: Scratchpad) -> None:
    entry = "x" * 2000 + " the needle " + "y" * 2000
    store.append_log(A, "big.log", entry)
    (match,) = store.search_files(A, "needle", exact=True).matches
    assert match.entry == 1 and "the needle" in match.text and len(match.text) <= 502
    assert match.text.startswith("…") and match.text.endswith("…")
    (same,) = store.search_files(A, "ne+dle", regex=True).matches
    assert same.text == match.text


def test_deleted_logs_are_not_searched(logged: Scratchpad) -> None:
    logged.delete_log(A, "run.log")
    assert [m.path for m in logged.search_files(A, "hello", exact=True).matches if m.entry] == []
    logged.append_log(A, "run.log", "hello once more")
    assert [(m.path, m.entry) for m in logged.search_files(A, "hello", exact=True).matches if m.entry] == [
        ("run.log", 4)
    ]


def test_bad_queries_are_invalid(corpus: Scratchpad) -> None:
    for pattern in ("(", "[a-", "a{2,1}"):
        with pytest.raises(InvalidInput):
            corpus.search_files(A, pattern, regex=True)
    with pytest.raises(InvalidInput):
        corpus.search_files(A, "")
    with pytest.raises(InvalidInput):
        corpus.search_files(A, "x" * 1001)


def test_a_pathological_regex_answers_fast(store: Scratchpad) -> None:
    """RE2 runs in time linear in the text: what backtracks exponentially elsewhere answers at once."""
    store.write_file(A, "aaa.txt", ("a" * 40 + "\n") * 2000)
    store.write_file(A, "long.txt", "a" * 200_000 + "!\n")
    store.append_log(A, "a.log", "a" * 30_000 + "!")
    started = time.monotonic()
    assert store.search_files(A, "(a|aa)+c", regex=True).matches == []
    assert store.search_files(A, "(a+)+$", regex=True).count == 10  # default max_results: the short lines
    assert [m.path for m in store.search_files(A, "^(a+)+!$", regex=True).matches] == ["long.txt", "a.log"]
    assert store.search_files(A, "(x+x+)+y", regex=True).matches == []
    assert time.monotonic() - started < 10


def test_regex_syntax_is_re2s(corpus: Scratchpad) -> None:
    assert found(corpus.search_files(A, r"(?P<word>h\pL+o) (?:w|W)", regex=True)) == [("notes/a.md", 1, "Hello World")]
    assert found(corpus.search_files(A, r"[[:digit:]]\.\d", regex=True)) == [("notes/b.md", 2, "price: 3.5 (x+y)")]
    assert found(corpus.search_files(A, r"(?-i:HELLO)\z", regex=True)) == [("notes/b.md", 1, "HELLO")]
    assert found(corpus.search_files(A, r"\Qx+y\E", regex=True)) == [("notes/b.md", 2, "price: 3.5 (x+y)")]


@pytest.mark.parametrize(
    ("pattern", "named"),
    [
        (r"(?(DEFINE)(?<a>(?&a)))(?&a)", "a conditional or recursion"),
        (r"(h)ell\1", "a backreference"),
        (r"(?P<h>h)(?P=h)", "a named backreference"),
        (r"hello(?= again)", "lookahead"),
        (r"(?<!x)hello", "lookbehind"),
        (r"(?R)", "recursion"),
        (r"(?>h)ello", "an atomic group"),
        (r"hel++o", "a possessive quantifier (++)"),
        (r"(?:x{1000}){1000}", "the repetition {1000} passes RE2's limit of 1,000"),
        (r"((x{100}){100}){100}", "passes RE2's limit of 1,000"),
        (r"x{1001}", "the repetition {1001} passes RE2's limit"),
        (r"\pL{500}\pL{500}\pL{500}\pL{500}", "more than RE2's memory bound of 8 MiB"),
        (r"(?P<>x)", "the named group (?P<> has no name"),
        (r"(?P", "(?P is not a group RE2 knows"),
        (r"(?P<a-b>x)", "the named group (?P<a-b> is not closed or its name is not allowed"),
        (r"a(*SKIP)b", "the backtracking control verb (*SKIP)"),
        (r"(*FAIL)", "the backtracking control verb (*FAIL)"),
        (r"hel\Klo", "\\K (a reset of the match's start)"),
        (r"\Ghello", "\\G (the end of the previous match)"),
        (r"hello\R", "\\R (any line break)"),
        (r"h\X", "\\X (an extended grapheme cluster)"),
        (r"hello\hworld", "\\h (horizontal whitespace)"),
        (r"\H+", "\\H (not horizontal whitespace)"),
    ],
)
def test_what_re2_does_not_run_is_refused_in_one_line_naming_it(corpus: Scratchpad, pattern: str, named: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        corpus.search_files(A, pattern, regex=True)
    message = refused.value.message
    assert message.startswith("Invalid regex: ") and named in message and "\n" not in message
    assert message.endswith("or search literally with exact=true and regex=false.")


def test_regex_counts_within_re2s_limit_are_fine(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", "xx\n" + "x" * 1000 + "\n")
    for fine in (r"x{2}", r"\d{4}-\d{2}", r"\{9999\}{2}", r"(?:x{30}){30}", r"x{1000}", r"((x{10}){10}){10}"):
        store.search_files(A, fine, regex=True)
    assert [m.line for m in store.search_files(A, r"^x{1000}$", regex=True).matches] == [2]


def test_a_search_past_its_time_budget_is_refused(backend: Backend) -> None:
    """A pattern that keeps RE2 off its fast path reads about 10 µs a byte: 120 KB take over a second."""
    store = Scratchpad(backend.unit_of_work, regex_engine=BoundedRegexEngine(budget_seconds=0.05))
    store.write_file(A, "mixed.txt", "abcdefghij klmnopqrstuvwxyz0123456789 " * 3_000 + "\n")
    started = time.monotonic()
    with pytest.raises(InvalidInput, match=r"^Regex search stopped after 0.05 seconds \(its time budget\)"):
        store.search_files(A, r"(?:.{999}x|y)" * 5, regex=True)
    assert time.monotonic() - started < 1
    assert store.search_files(A, "(?:.{999}x|y)", exact=True).matches == []  # a literal search has no budget


class GatedEngine:
    """A RegexEngine whose matcher waits at the first line until the test opens the gate (at most 30 s)."""

    def __init__(self) -> None:
        self.scanning = threading.Event()
        self.gate = threading.Event()

    def compile(self, pattern: str, case_sensitive: bool) -> Matcher:
        def match(line: str) -> int | None:
            self.scanning.set()
            self.gate.wait(timeout=30)
            return line.find(pattern) if pattern in line else None

        return match


def test_a_long_search_holds_up_no_writer(database_url: str) -> None:
    """The scan reads a snapshot: writes (here of the very files searched) commit while it runs."""
    backend = open_backend(database_url, lock_timeout_ms=200)
    engine = GatedEngine()
    store = Scratchpad(backend.unit_of_work, regex_engine=engine, attempts=1)
    try:
        store.write_file(A, "notes.md", "needle one\nhay\n")
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            search = pool.submit(store.search_files, A, "needle", regex=True)
            assert engine.scanning.wait(timeout=30)
            assert store.write_file(A, "notes.md", "needle two\n").version == 2
            assert store.append_log(A, "journal", "written during the search").entry_id == 1
            assert not search.done()
            engine.gate.set()
            found = search.result(timeout=30)
        assert [m.text for m in found.matches] == ["needle one"]  # what was current when the search began
        assert store.get_usage_stats(A).total_operations == 5  # 2 writes, append, search, and this call
    finally:
        backend.close()
