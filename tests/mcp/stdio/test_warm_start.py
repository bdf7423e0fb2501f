"""The warm start (scratchpad_mcp.stdio.warm_start): a start records its replies to initialize and tools/list; a later
start made the same way answers them at once from that record, hands every line to the server, and writes each
reply once; a start made another way, or a record that cannot be read, gets the server's own replies."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from scratchpad_mcp.stdio import warm_start
from scratchpad_mcp.stdio.warm_start import fingerprint
from tests.mcp.helpers import START_TIMEOUT, console_script, server_env
from tests.mcp.stdio_process import JsonRpcProcess

pytestmark = pytest.mark.anyio

LIST_CALL = {"name": "list_files", "arguments": {"agent_id": "a"}}


def env_for(tmp_path: Path, **values: str) -> dict[str, str]:
    env = server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "warm.db"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    return {**env, **values}


def cached(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache" / "scratchpad-mcp").glob("*.json"))


def handshake(client: str = "host") -> dict[str, Any]:
    return {**JsonRpcProcess.INITIALIZE, "clientInfo": {"name": client, "version": "1"}}


def session(env: dict[str, str], client: str = "host") -> tuple[list[str], str, int]:
    """One start driven as a host drives it (initialize, initialized, tools/list, a call, a ping, each once the
    last is answered): every line written to stdout, stderr, and the exit status once stdin is closed."""
    with JsonRpcProcess([console_script()], env) as server:
        server.reply_line(0, "initialize", handshake(client))
        server.notify("notifications/initialized")
        for n, (method, params) in enumerate([("tools/list", None), ("tools/call", LIST_CALL), ("ping", None)], 1):
            server.reply_line(n, method, params)
        out, err = server.finish()
        assert server.returncode is not None
        return out.splitlines(), err, server.returncode


def by_id(lines: list[str]) -> dict[Any, dict[str, Any]]:
    replies = [json.loads(line) for line in lines]
    ids = [reply["id"] for reply in replies]
    assert len(ids) == len(set(ids)), f"a request answered twice: {ids}"
    return {reply["id"]: reply for reply in replies}


def test_a_second_start_recalls_the_first_replies_and_answers_each_request_once(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    first, err, status = session(env)
    assert status == 0, err[-2000:]
    assert len(cached(tmp_path)) == 1
    second, err, status = session(env)
    assert status == 0, err[-2000:]
    assert by_id(second) == by_id(first)
    assert set(by_id(second)) == {0, 1, 2, 3}
    assert "scratchpad" in by_id(second)[0]["result"]["serverInfo"]["name"]


def test_another_way_of_starting_gets_the_servers_own_replies(tmp_path: Path) -> None:
    session(env_for(tmp_path))
    lines, err, status = session(env_for(tmp_path, SCRATCHPAD_MAX_VERSIONS="3"))
    assert status == 0, err[-2000:]
    tools = {tool["name"]: tool for tool in by_id(lines)[1]["result"]["tools"]}
    assert "(3 kept)" in json.dumps(tools["write_file"])  # the new limit, not the recalled definitions
    assert len(cached(tmp_path)) == 2


def test_a_request_unlike_the_recalled_one_waits_for_the_server(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    first, _, _ = session(env, client="host")
    other, err, status = session(env, client="another-host")
    assert status == 0, err[-2000:]
    assert by_id(other)[1] == by_id(first)[1]  # tools/list asked alike: recalled, or answered alike
    assert set(by_id(other)) == {0, 1, 2, 3}
    record = json.loads(cached(tmp_path)[0].read_text())
    assert sum(json.loads(key)["method"] == "initialize" for key in record) == 2  # both hosts', for next time


def test_a_record_that_cannot_be_read_is_ignored(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    first, _, _ = session(env)
    cached(tmp_path)[0].write_text("{not json")
    again, err, status = session(env)
    assert status == 0, err[-2000:]
    assert by_id(again) == by_id(first)
    assert json.loads(cached(tmp_path)[0].read_text())  # written anew


def test_a_recalled_start_answers_before_the_store_opens(tmp_path: Path) -> None:
    """The handshake is answered from the record even when the server then cannot start (here its database has
    become a directory): the host has its reply at once, then the server's error and exit, as without a record."""
    env = env_for(tmp_path)
    session(env)
    (tmp_path / "warm.db").unlink()
    (tmp_path / "warm.db").mkdir()
    with JsonRpcProcess([console_script()], env) as server:
        reply = json.loads(server.reply_line(0, "initialize", handshake()))
        _, err = server.finish()
    assert reply["result"]["serverInfo"]["name"] == "scratchpad"
    assert server.returncode == 1 and "cannot use" in err, err[-2000:]


async def test_the_2026_07_28_revision_starts_warm_too(tmp_path: Path) -> None:
    params = StdioServerParameters(command=console_script(), env=env_for(tmp_path))
    listed = []
    with anyio.fail_after(START_TIMEOUT):
        for _ in range(2):
            async with Client(params) as modern:
                assert modern.protocol_version == "2026-07-28"
                listed.append(sorted(tool.name for tool in (await modern.list_tools()).tools))
                written = await modern.call_tool("write_file", {"agent_id": "t", "path": "a.md", "content": "x\n"})
                assert written.structured_content is not None
    assert listed[0] == listed[1] and "write_file" in listed[0]


def test_the_fingerprint_follows_the_command_line_the_environment_and_the_folder(tmp_path: Path) -> None:
    base = fingerprint(["scratchpad-mcp"], {"A": "1"})
    assert base == fingerprint(["scratchpad-mcp"], {"A": "1"})
    assert base != fingerprint(["scratchpad-mcp", "serve"], {"A": "1"})
    assert base != fingerprint(["scratchpad-mcp"], {"A": "2"})
    here = os.getcwd()
    try:
        os.chdir(tmp_path)
        assert base != fingerprint(["scratchpad-mcp"], {"A": "1"})
    finally:
        os.chdir(here)


def test_the_fingerprint_follows_the_code_that_is_imported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder of the package's name that holds no package (as site-packages holds one beside an editable
    install) is not what is hashed: the package the import finds is."""
    decoy, real = tmp_path / "first" / "pkgx", tmp_path / "second" / "pkgx"
    decoy.mkdir(parents=True)
    (decoy / "data.json").write_text("{}")
    real.mkdir(parents=True)
    (real / "__init__.py").write_text("A = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path / "second"))
    monkeypatch.syspath_prepend(str(tmp_path / "first"))
    monkeypatch.setattr(warm_start, "SOURCES", ("pkgx",))
    before = fingerprint(["scratchpad-mcp"], {})
    os.utime(real / "__init__.py", ns=(1, 1))
    assert fingerprint(["scratchpad-mcp"], {}) != before


def warm_lines(tmp_path: Path, *lines: dict[str, Any]) -> list[dict[str, Any]]:
    """A warm start sent these lines one by one, each once the last is answered: every line it wrote."""
    env = env_for(tmp_path)
    session(env)
    with JsonRpcProcess([console_script()], env) as server:
        for line in lines:
            server.send(line)
            server.next_line()
        out, _ = server.finish()
    return [json.loads(line) for line in out.splitlines()]


def test_a_line_unlike_a_request_gets_the_servers_answer_only(tmp_path: Path) -> None:
    broken = {"jsonrpc": "1.0", "id": 0, "method": "initialize", "params": handshake()}
    replies = warm_lines(tmp_path, broken)
    assert len(replies) == 1 and replies[0]["error"]["message"].startswith("Invalid Request"), replies


def test_a_listing_before_the_handshake_is_refused_as_without_a_record(tmp_path: Path) -> None:
    replies = warm_lines(tmp_path, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert len(replies) == 1 and "error" in replies[0] and "initialize" in replies[0]["error"]["message"], replies


def test_a_record_that_cannot_be_written_leaves_nothing_behind(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    session(env)
    record = cached(tmp_path)[0]
    record.unlink()
    record.mkdir()  # in the way of the rename
    _, err, status = session(env)
    assert status == 0, err[-2000:]
    assert [p.name for p in record.parent.iterdir()] == [record.name]


def test_an_early_reply_unlike_the_servers_is_logged_and_not_recalled_again(tmp_path: Path) -> None:
    """The server still answers what was answered early; a reply of its own that differs (here: a record changed
    behind its back) is logged, and it replaces the record for the next start."""
    env = env_for(tmp_path)
    first, _, _ = session(env)
    record = json.loads(cached(tmp_path)[0].read_text())
    for key, result in record.items():
        if json.loads(key)["method"] == "tools/list":
            result["tools"][0]["description"] = "changed"
    cached(tmp_path)[0].write_text(json.dumps(record))
    second, err, status = session(env)
    assert status == 0, err[-2000:]
    assert by_id(second)[1]["result"]["tools"][0]["description"] == "changed"  # what the record said
    assert err.count("is not the server's own") == 1, err[-2000:]
    third, err, _ = session(env)
    assert by_id(third) == by_id(first) and "is not the server's own" not in err


def test_a_record_holding_what_cannot_be_sent_is_left_to_the_server(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    first, _, _ = session(env)
    text = cached(tmp_path)[0].read_text().replace('"instructions": "', '"instructions": "\\ud800', 1)
    cached(tmp_path)[0].write_text(text)  # a lone surrogate: no UTF-8 line can carry it
    again, err, status = session(env)
    assert status == 0 and "Traceback" not in err, err[-2000:]
    assert by_id(again) == by_id(first)
