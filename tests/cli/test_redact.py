"""`scratchpad-mcp redact` as a person runs it, and the hidden-text test: after it, the removed text is readable
through no command, export or library call, and (SQLite) no file of the database holds its bytes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from scratchpad_adapters import open_store
from scratchpad_adapters.sql.connection.sqlite_files import file_of
from scratchpad_core.limits import Limits
from tests.cli.conftest import Done

Run = Callable[..., Done]
SECRET = "sk-live-7f3a9c2e5b1d4f6a8c0e"
ENTRY_SECRET = "hunter2-pa55word-9x7q"
LIMITS = Limits()
IN_FORCE = (
    f"limits in force: SCRATCHPAD_MAX_VERSIONS={LIMITS.max_versions}, SCRATCHPAD_MAX_FILE_BYTES="
    f"{LIMITS.max_file_bytes}, SCRATCHPAD_MAX_LOG_ENTRY_BYTES={LIMITS.max_log_entry_bytes} (from this command's "
    "environment: give it the servers' values)"
)


def fill(url: str) -> None:
    with open_store(url) as store:
        store.write_file("alice", "notes.md", f"plan\napi key: {SECRET}\n")
        store.edit_file("alice", "notes.md", "plan", "plan, v2")
        store.write_file("alice", "notes.md", f"plan, v3\napi key: {SECRET}\nsee {SECRET}\n")
        store.write_file("alice", "other.md", "nothing secret\n")
        for text in ("start", f"password {ENTRY_SECRET}", "end"):
            store.append_log("alice", "run.log", text)


def database_bytes(url: str) -> bytes:
    """Every file of a SQLite database as it is on disk: the main file, its WAL and its journal."""
    path = file_of(url)
    assert path is not None
    files = [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-journal")]
    return b"".join(Path(f).read_bytes() for f in files if Path(f).exists())


def test_redact_leaves_no_readable_trace(inspect: Run, url: str, tmp_path: Path) -> None:
    fill(url)
    sqlite = file_of(url) is not None
    if sqlite:
        assert SECRET.encode() in database_bytes(url)  # the test can see it while it is there
    done = inspect("redact", "--agent", "alice", "--path", "notes.md", "--text", SECRET)
    assert done.code == 0, done.err
    assert done.out == (
        "path      version  entry  occurrences  redacted\n"
        "notes.md        1                   1  each occurrence\n"
        "notes.md        2                   1  each occurrence\n"
        "notes.md        3                   2  each occurrence; new version 4\n"
        "redacted 3 versions of 1 file (4 occurrences); 0 request_ids forgotten\n"
        f"{IN_FORCE}\n"
    )
    assert SECRET not in done.out + done.err
    entry = inspect("redact", "--agent", "alice", "--log", "run.log", "--entry", "2")
    assert (entry.code, entry.out) == (0, (
        "path     version  entry  occurrences  redacted\n"
        "run.log               2            -  whole entry\n"
        "redacted 1 entry of 1 log; 0 request_ids forgotten\n"
        f"{IN_FORCE}\n"
    ))  # fmt: skip
    if sqlite:
        assert "scrubbed " in entry.err and "VACUUM (" not in entry.err
    else:
        tables = "file_versions, log_entries, request_ids, search_rows, summaries"
        assert f"run `VACUUM (FULL, ANALYZE) {tables};`" in entry.err

    shown = [
        inspect("cat", "--agent", "alice", "notes.md", "--version", str(v)).out for v in (1, 2, 3, 4)
    ]  # every retained version
    assert all("[redacted " in text and "(cli)]" in text for text in shown)
    outputs = [
        *shown,
        inspect("versions", "--agent", "alice", "notes.md").out,
        inspect("diff", "--agent", "alice", "notes.md", "1", "4").out,
        inspect("search", "--agent", "alice", SECRET, "--exact").out,
        inspect("search", "--agent", "alice", "7f3a9c2e5b1d4f6a8c0e").out,
        inspect("search", "--agent", "alice", "pa55word").out,
        inspect("log", "--agent", "alice", "run.log").out,
        inspect("export").out,
    ]
    for output in outputs:
        assert SECRET not in output and ENTRY_SECRET not in output
    with open_store(url) as store:
        assert store.list_versions("alice", "notes.md").current_version == 4
        assert [e.entry for e in store.read_log("alice", "run.log").entries][0::2] == ["start", "end"]
        assert all(SECRET not in (store.read_file("alice", "notes.md", version=v).content or "") for v in (1, 2, 3, 4))
    assert inspect("db", "check").code == 0
    if sqlite:  # every process has closed the database: none of its files holds the text
        on_disk = database_bytes(url)
        assert SECRET.encode() not in on_disk and ENTRY_SECRET.encode() not in on_disk
        assert b"nothing secret" in on_disk  # what was kept is still there


def test_a_text_not_present_changes_nothing_and_says_so(inspect: Run, url: str) -> None:
    fill(url)
    done = inspect("redact", "--agent", "alice", "--path", "other.md", "--text", "not-in-it")
    assert (done.code, done.out) == (1, "")
    assert done.err.splitlines()[-1] == (
        "scratchpad-mcp: nothing to redact: the text is not in any retained version of other.md; nothing was changed."
    )  # after the scrub: a text gone from the store by other ways may still be in its files
    assert inspect("versions", "--agent", "alice", "other.md").out.count("\n") == 2  # a header and version 1
    missing = inspect("redact", "--agent", "alice", "--path", "nope.md", "--version", "1")
    assert missing.code == 1 and "`scratchpad-mcp files --agent alice` lists its files." in missing.error
    assert "list_files" not in missing.error  # the command line's own terms, not a tool's


def test_redact_needs_one_target(inspect: Run) -> None:
    wrong: list[list[str]] = [
        ["--path", "notes.md"], ["--log", "run.log"], ["--entry", "2"], ["--text", "abcd", "--version", "1"],
        ["--path", "a", "--log", "b", "--text", "abcd"], [],
    ]  # fmt: skip
    for options in wrong:
        done = inspect("redact", "--agent", "alice", *options)
        assert done.code == 2
        assert done.err.endswith(
            "Error: give --text SECRET (every file and log of the agent), --path P with --version V or --text SECRET, "
            "or --log P with --entry N or --text SECRET.\n"
        )


def test_a_dry_run_prints_the_same_table_and_changes_nothing(inspect: Run, url: str) -> None:
    fill(url)
    before = inspect("export").out
    dry = inspect("redact", "--agent", "alice", "--text", SECRET, "--dry-run")
    assert (dry.code, dry.out) == (0, (
        "path      version  entry  occurrences  would redact\n"
        "notes.md        1                   1  each occurrence\n"
        "notes.md        2                   1  each occurrence\n"
        "notes.md        3                   2  each occurrence; new version 4\n"
        "dry run: would redact 3 versions of 1 file (4 occurrences); nothing was changed\n"
        f"{IN_FORCE}\n"
    ))  # fmt: skip
    assert "scrubbed" not in dry.err and "VACUUM" not in dry.err  # nothing to scrub: nothing changed
    logged = inspect("redact", "--agent", "alice", "--log", "run.log", "--text", ENTRY_SECRET, "--dry-run")
    assert logged.out.splitlines()[1:] == [
        "run.log               2            1  each occurrence",
        "dry run: would redact 1 entry of 1 log (1 occurrence); nothing was changed",
        IN_FORCE,
    ]
    assert inspect("export").out == before
    done = inspect("redact", "--agent", "alice", "--log", "run.log", "--text", ENTRY_SECRET)
    assert done.code == 0 and done.out.splitlines()[1] == logged.out.splitlines()[1]  # what it said it would do
    short = inspect("redact", "--agent", "alice", "--text", "pw!")
    assert (short.code, short.out) == (1, "")
    assert short.error.startswith("scratchpad-mcp: Invalid text to redact (3 characters): give the exact text")


def test_the_table_names_the_limits_it_applied(inspect: Run, url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command applies its own environment's limits (the kept window, the size a marker may not pass): it says
    which, so that one run with other values than the servers' is seen."""
    fill(url)
    monkeypatch.setenv("SCRATCHPAD_MAX_VERSIONS", "7")
    monkeypatch.setenv("SCRATCHPAD_MAX_FILE_BYTES", "4096")
    done = inspect("redact", "--agent", "alice", "--text", SECRET, "--dry-run")
    assert done.code == 0, done.err
    assert done.out.splitlines()[-1] == (
        "limits in force: SCRATCHPAD_MAX_VERSIONS=7, SCRATCHPAD_MAX_FILE_BYTES=4096, SCRATCHPAD_MAX_LOG_ENTRY_BYTES="
        f"{LIMITS.max_log_entry_bytes} (from this command's environment: give it the servers' values)"
    )


def test_a_refusal_comes_before_any_scrub_and_changes_nothing(inspect: Run, url: str) -> None:
    fill(url)
    with open_store(url) as store:  # a text that left the store: only a scrub would take it out of the files
        store.write_file("alice", "gone.md", "left behind\n")
        store.delete_file("alice", "gone.md")
    before = inspect("export").out
    sqlite = file_of(url)
    on_disk = database_bytes(url) if sqlite else b""
    refusals = {
        ("--path", "nope.md", "--text", SECRET): "File not found: nope.md. `scratchpad-mcp files --agent alice` "
        "lists its files.",
        ("--log", "nope.log", "--text", SECRET): "Log not found: nope.log. `scratchpad-mcp logs --agent alice` "
        "lists its logs.",
        ("--text", " p w "): "Invalid text to redact (5 characters, 2 not whitespace): give the exact text to "
        "remove, 4 to 10,000 characters, at least 4 of them not whitespace (a shorter one is in most of a store and "
        "would rewrite it). Nothing was changed.",
    }
    for options, said in refusals.items():
        done = inspect("redact", "--agent", "alice", *options)
        assert (done.code, done.out, done.error) == (1, "", f"scratchpad-mcp: {said}")
        assert "scrub" not in done.err and "VACUUM" not in done.err
    nobody = inspect("redact", "--agent", "nobody", "--text", SECRET)
    assert (nobody.code, nobody.out, nobody.error) == (1, "", (
        "scratchpad-mcp: Unknown agent 'nobody': the store holds no file, log or count of it; check the agent id. "
        "Nothing was changed."
    ))  # fmt: skip
    assert "scrub" not in nobody.err
    assert inspect("export").out == before
    if sqlite:
        assert database_bytes(url) == on_disk  # not even a scrub: the deleted text's pages are as they were
