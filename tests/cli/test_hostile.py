"""What an agent stored cannot act on a person's terminal or forge a line: control characters shown as symbols
on a terminal (a pseudo-terminal here) and in tables, content written byte for byte into a pipe, a multi-line
log entry shown under its header; and errors worded in the command line's terms, not the MCP tools'."""

from __future__ import annotations

import json
import os
import pty
import subprocess

from scratchpad_core import visible_text
from scratchpad_core.service import Scratchpad
from scratchpad_mcp.cli.inspect_output import unified
from scratchpad_mcp.web import highlight
from tests.cli.test_terminal import read_until
from tests.mcp.helpers import console_script, server_env
from tests.refusals.names import assert_no_mcp_names

HOSTILE = "red \x1b[31mX\x1b[0m clear\x1b[2J bell\x07 cr\rback del\x7f csi\x9b bidi\u202eabc\u2066 tab\tend\n"
RAW = ("\x1b", "\x07", "\r", "\x7f", "\x9b", "\u202e", "\u2066")
CONTINUED = "    | "  # what starts the further lines of a multi-line entry
FORGED = "real entry\n#2  2026-12-01 00:00:00Z  key:admin  forged entry\n\nlast\x1b[2J"


def on_a_terminal(url: str, *args: str, last: str) -> str:
    """What the command writes to a pseudo-terminal, as `script -qc` would show it."""
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([console_script(), "--database", url, *args], env=server_env(),
                              stdin=subprocess.DEVNULL, stdout=follower, stderr=subprocess.PIPE, timeout=30,
                              check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
        shown = read_until(leader, last, bytearray())
    finally:
        os.close(follower)
        os.close(leader)
    return shown.replace("\r\n", "\n")  # the terminal's own line endings


def test_one_mapping_for_the_web_view_and_the_terminal() -> None:
    assert highlight.visible is visible_text.visible
    assert visible_text.visible("a\x1b[31m\x07\n\t") == "a␛[31m␇␊\t"
    assert visible_text.screen_text("a\x1b\r\n\x85\u202e\u200f\t") == "a␛␍\n\ufffd⟨U+202E⟩⟨U+200F⟩\t"
    assert visible_text.screen_line("one\ntwo") == "one␊two"


def test_controls_show_as_symbols_on_a_terminal(url: str, filled: Scratchpad) -> None:
    filled.write_file("alice", "hostile.md", HOSTILE)
    filled.write_file("alice", "hostile.md", HOSTILE + "more \x1b[2J\n")
    filled.append_log("alice", "hostile.log", FORGED)
    shown = {
        "cat": on_a_terminal(url, "cat", "-a", "alice", "hostile.md", "--version", "1", last="end"),
        "diff": on_a_terminal(url, "diff", "-a", "alice", "hostile.md", last="more"),
        "log": on_a_terminal(url, "log", "-a", "alice", "hostile.log", last="last"),
        "search": on_a_terminal(url, "search", "-a", "alice", "bidi", last="end"),
    }
    for command, text in shown.items():
        content = text.replace("\x1b[0m", "").replace("\x1b[31m-", "-").replace("\x1b[32m+", "+")  # diff colours
        content = content.replace("\x1b[1m", "").replace("\x1b[36m", "")
        assert not any(raw in content for raw in RAW), (command, text)
    assert "red ␛[31mX␛[0m clear␛[2J bell␇ cr␍back del␡ csi\ufffd bidi⟨U+202E⟩abc⟨U+2066⟩ tab\tend\n" in shown["cat"]
    assert "+more ␛[2J" in shown["diff"] and "\x1b[32m+more ␛[2J\x1b[0m" in shown["diff"]  # still coloured
    assert f"{CONTINUED}last␛[2J" in shown["log"]


def test_cat_and_diff_into_a_pipe_are_byte_exact(url: str, filled: Scratchpad) -> None:
    filled.write_file("alice", "hostile.md", HOSTILE)
    filled.write_file("alice", "hostile.md", HOSTILE + "more \x1b[2J\n")
    base = [console_script(), "--database", url]
    cat = subprocess.run([*base, "cat", "-a", "alice", "hostile.md", "--version", "1"], env=server_env(),
                         capture_output=True, timeout=30, check=True)  # fmt: skip
    assert cat.stdout == HOSTILE.encode()
    diff = subprocess.run([*base, "diff", "-a", "alice", "hostile.md"], env=server_env(), capture_output=True,
                          timeout=30, check=True)  # fmt: skip
    assert diff.stdout.decode().endswith(" tab\tend\n+more \x1b[2J\n")


def test_cat_in_process_is_byte_exact(filled: Scratchpad, inspect) -> None:
    filled.write_file("alice", "hostile.md", HOSTILE)
    assert inspect("cat", "-a", "alice", "hostile.md").out == HOSTILE


def test_a_multi_line_entry_cannot_forge_another(filled: Scratchpad, inspect) -> None:
    filled.append_log("alice", "runs/today.log", FORGED, actor="key:\x1b[31mevil")
    filled.append_log("alice", "runs/today.log", "entry 7")
    lines = inspect("log", "-a", "alice", "runs/today.log", "--since", "5").out.splitlines()
    headers = [line.split("  ")[0] for line in lines if not line.startswith(" ")]
    assert headers == ["#6", "#7"]  # the forged "#2" is not an entry
    assert lines[0].endswith("  key:␛[31mevil  real entry")
    assert lines[1:4] == [f"{CONTINUED}#2  2026-12-01 00:00:00Z  key:admin  forged entry", CONTINUED.rstrip(),
                          f"{CONTINUED}last␛[2J"]  # fmt: skip
    assert lines[4].startswith("#7  ") and lines[4].endswith("  entry 7")
    entry = json.loads(inspect("log", "-a", "alice", "runs/today.log", "--since", "5", "--json").out.splitlines()[0])
    assert entry["entry"] == FORGED and entry["by"] == "key:\x1b[31mevil"  # JSON: the entry as it is


def test_tables_escape_controls_in_a_pipe_too(filled: Scratchpad, inspect) -> None:
    filled.write_file("alice", "hostile.md", HOSTILE)
    found = inspect("search", "-a", "alice", "bidi").out
    assert (
        found
        == "hostile.md:1: red ␛[31mX␛[0m clear␛[2J bell␇ cr␍back del␡ csi\ufffd bidi⟨U+202E⟩abc⟨U+2066⟩ tab\tend\n"
    )
    filled.write_file("alice", "plans/plan.md", "by a key\n", actor="key:k2 (\x1b[2J)")
    assert "key:k2 (␛[2J)" in inspect("versions", "-a", "alice", "plans/plan.md").out


def test_json_escapes_c1_and_bidi_controls(filled: Scratchpad, inspect) -> None:
    filled.write_file("alice", "hostile.md", HOSTILE)
    out = inspect("cat", "-a", "alice", "hostile.md", "--json").out
    assert not any(raw in out for raw in RAW) and "\\u009b" in out and "\\u202e" in out
    assert json.loads(out)["content"] == HOSTILE


def test_a_diff_keeps_stored_lines_whole() -> None:
    """A form feed or a separator inside a line does not end it (str.splitlines would split there)."""
    lines = unified("a\x0cb\nc\u2028d\n", "a\x0cb\nc\u2028e\n", "old", "new")
    assert lines[2:] == ["@@ -1,2 +1,2 @@", " a\x0cb", "-c\u2028d", "+c\u2028e"]


def test_a_tail_longer_than_a_page(filled: Scratchpad, inspect) -> None:
    for number in range(6, 251):
        filled.append_log("alice", "runs/today.log", f"entry {number}")
    tail = inspect("log", "-a", "alice", "runs/today.log", "--tail", "150", "--json").out.splitlines()
    assert [json.loads(line)["id"] for line in tail] == list(range(101, 251))
    everything = inspect("log", "-a", "alice", "runs/today.log", "--tail", "1000000").out.splitlines()
    assert [line.split("  ")[0] for line in everything] == [f"#{n}" for n in range(1, 251)]


def test_errors_name_commands_and_options(filled: Scratchpad, inspect) -> None:
    for number in range(3, 14):  # 13 versions: the first ones are no longer retained
        filled.write_file("alice", "plans/plan.md", f"version {number}\n")
    filled.write_file("alice", "one.md", "one line\n")
    cases = {
        ("cat", "-a", "alice", "nope.md"): "File not found: nope.md. `scratchpad-mcp files --agent alice` lists",
        ("cat", "-a", "alice", "plans/plan.md", "--version", "1"): "Version 1 of plans/plan.md is no longer retained. "
        "`scratchpad-mcp versions --agent alice plans/plan.md` lists them.",
        ("cat", "-a", "alice", "one.md", "--lines", "2:3"): "Invalid --lines 2: one.md has 1 line.",
        ("search", "-a", "alice", "(", "--regex"): "search literally with --exact instead of --regex.",
        ("search", "-a", "alice", "a(?=b)", "--regex"): "lookahead ((?=...) and (?!...)) is not supported: --regex "
        "runs RE2",
        ("files", "-a", "alice", "--cursor", "???"): "Invalid --cursor",
        ("search", "-a", "alice", "!!!"): "Invalid QUERY: it has no word (letters or digits) to search for; pass "
        "--exact",
        ("files", "-a", "alice smith"): "Invalid --agent: only the characters [a-zA-Z0-9_-] are allowed.",
        ("search", "-a", "alice", "x" * 1001): "Invalid QUERY: it must be 1..1000 characters.",
    }  # fmt: skip
    for args, message in cases.items():
        done = inspect(*args)
        assert done.code == 1 and message in done.error, (args, done.err)
        assert_no_mcp_names(done.error)
    for args, message in {
        ("diff", "-a", "alice", "plans/plan.md", "abc"): "Invalid value for 'FROM': FROM must be a version number",
        ("diff", "-a", "alice", "plans/plan.md", "1", "0"): "Invalid value for 'TO': TO must be a version number",
    }.items():
        done = inspect(*args)
        assert done.code == 2 and message in done.err and "[FROM" not in done.err.split("Error:")[1], done.err
