"""A first start (scratchpad_mcp.stdio.first_start): the replies the package ships are the server's own, in every
protocol revision and for every setting they claim not to depend on; a first start answers a host's handshake and
listing from them before the store opens; any other set-up, version or request shape is left to the server."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import mcp_types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import ValidationError

from scratchpad_mcp.server import wire
from scratchpad_mcp.settings import Settings
from scratchpad_mcp.stdio.first_replies import SERVE, generate, server_replies
from scratchpad_mcp.stdio.first_start import (
    CAPABILITIES,
    NO_EFFECT,
    PACKAGED,
    FirstReplies,
    is_setting,
    plain_initialize,
    plain_request,
)
from tests.mcp.helpers import console_script, server_env
from tests.mcp.stdio_process import JsonRpcProcess

# A value for each setting the package's replies do not depend on, none of them the default.
NOT_DEFAULT = {
    "SCRATCHPAD_LOG_LEVEL": "warning",
    "SCRATCHPAD_LOG_FORMAT": "json",
    "SCRATCHPAD_MAX_READ_BYTES": "4096",
    "SCRATCHPAD_SUMMARY_MODEL": "claude-test",
    "ANTHROPIC_API_KEY": "sk-test",
    "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
}


def packaged() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PACKAGED.read_text(encoding="utf-8"))
    return data


def initialize(version: str, **params: Any) -> dict[str, Any]:
    body = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "host", "version": "1"}, **params}
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": body}


def test_the_packaged_replies_are_the_servers_own() -> None:
    """If this fails, the tools, the instructions or a version changed: `uv run python -m
    scratchpad_mcp.stdio.first_replies --write` writes the file anew from the server's replies."""
    assert generate() == packaged()


def test_they_hold_for_every_setting_said_to_change_nothing(tmp_path: Path) -> None:
    assert set(NOT_DEFAULT) | {"SCRATCHPAD_DB_PATH"} == NO_EFFECT
    result, listed = server_replies("2025-11-25", NOT_DEFAULT)
    assert (result, listed) == (packaged()["initialize"]["2025-11-25"], packaged()["tools/list"])
    assert FirstReplies.load({**NOT_DEFAULT, "SCRATCHPAD_DB_PATH": str(tmp_path / "x.db")}) is not None


def test_a_revision_the_sdk_does_not_know_is_answered_as_it_answers_it() -> None:
    replies = FirstReplies.load({})
    assert replies is not None
    for version in ("2026-07-28", "1.0"):
        assert replies.answer(initialize(version)) == server_replies(version)[0]
    for version in HANDSHAKE_PROTOCOL_VERSIONS:
        assert replies.answer(initialize(version)) == packaged()["initialize"][version]


def test_every_setting_is_one_the_first_start_knows() -> None:
    assert all(is_setting(name) for name, _ in Settings.variables())


def test_another_set_up_or_version_gets_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert FirstReplies.load({}) is not None
    assert FirstReplies.load({"SCRATCHPAD_MAX_VERSIONS": "3"}) is None
    assert FirstReplies.load({"MCP_TRANSPORT": "stdio"}) is None  # any setting not known to change nothing
    assert FirstReplies.load({"SCRATCHPAD_MAX_VERSIONS": ""}) is not None  # an empty variable counts as unset
    for name, version in [("mcp", "0.0.1"), ("python", "3.99"), ("sources", "edited since")]:
        other = tmp_path / f"{name}.json"
        data = packaged()
        data["made_with"][name] = version
        other.write_text(json.dumps(data))
        assert FirstReplies.load({}, other) is None
    (tmp_path / "broken.json").write_text("{")
    assert FirstReplies.load({}, tmp_path / "broken.json") is None
    monkeypatch.setattr(sys, "path", [str(tmp_path)])  # no dist-info where imports look
    assert FirstReplies.load({}) is None


def test_a_first_start_answers_the_handshake_before_the_store_opens(tmp_path: Path) -> None:
    """A new HOME, and a database that cannot be opened (a directory): the host has its handshake and listing
    from the package at once, then the server's error and exit."""
    (tmp_path / "db").mkdir()
    env = server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "db"), HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "c"))
    with JsonRpcProcess([console_script()], env) as server:
        init = json.loads(server.reply_line(0, "initialize", initialize("2025-06-18")["params"]))
        server.notify("notifications/initialized")
        listed = json.loads(server.reply_line(1, "tools/list", None))
        _, err = server.finish()
    assert init == {"jsonrpc": "2.0", "id": 0, "result": packaged()["initialize"]["2025-06-18"]}
    assert listed == {"jsonrpc": "2.0", "id": 1, "result": packaged()["tools/list"]}
    assert server.returncode == 1 and "cannot use" in err, err[-2000:]


def test_a_first_start_with_a_limit_set_lists_the_servers_tools(tmp_path: Path) -> None:
    env = server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "x.db"), XDG_CACHE_HOME=str(tmp_path / "c"))
    with JsonRpcProcess([console_script()], {**env, "SCRATCHPAD_MAX_VERSIONS": "3"}) as server:
        server.reply_line(0, "initialize", initialize("2025-11-25")["params"])
        server.notify("notifications/initialized")
        listed = json.loads(server.reply_line(1, "tools/list", None))
        _, err = server.finish()
    assert "(3 kept)" in json.dumps(listed) and "early_reply" not in err, err[-2000:]


def test_a_first_start_answers_alike_with_and_without_the_package(tmp_path: Path) -> None:
    """A whole first session (handshake, listing, a call, a ping) is the same line for line, and the server, which
    still answers every request, finds nothing to say about the replies given early."""
    sessions = []
    for n, command in enumerate([[console_script()], [sys.executable, "-c", SERVE]]):
        env = server_env(SCRATCHPAD_DB_PATH=str(tmp_path / f"{n}.db"), XDG_CACHE_HOME=str(tmp_path / f"c{n}"))
        with JsonRpcProcess(command, env) as server:
            lines = [server.reply_line(0, "initialize", initialize("2025-11-25")["params"])]
            server.notify("notifications/initialized")
            lines.append(server.reply_line(1, "tools/list", {}))
            lines.append(server.reply_line(2, "tools/call", {"name": "list_files", "arguments": {"agent_id": "a"}}))
            lines.append(server.reply_line(3, "ping", None))
            _, err = server.finish()
        assert server.returncode == 0 and "early_reply" not in err, err[-2000:]
        sessions.append([json.loads(line) for line in lines])
    assert sessions[0] == sessions[1]


# What the early reader may answer: only what the SDK reads the same way, and takes as it is.

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)
KEYS = ["protocolVersion", "capabilities", "clientInfo", "_meta", "name", "version", "title", "websiteUrl",
        "sampling", "roots", "experimental", "elicitation", "tasks", "form", "x", "listChanged"]  # fmt: skip
SHAPED = st.recursive(
    JSON, lambda inner: st.dictionaries(st.sampled_from(KEYS), inner, max_size=4) | st.lists(inner, max_size=2)
)


@settings(max_examples=400, deadline=None)
@given(
    params=SHAPED
    | st.fixed_dictionaries({"protocolVersion": JSON, "capabilities": SHAPED, "clientInfo": SHAPED})
    | st.fixed_dictionaries(
        {"protocolVersion": st.text(max_size=12), "capabilities": st.dictionaries(st.sampled_from(KEYS), SHAPED)},
        optional={"clientInfo": st.dictionaries(st.sampled_from(KEYS), JSON), "_meta": SHAPED},
    )
)
def test_an_initialize_answered_early_is_one_the_sdk_takes(params: Any) -> None:
    asked = plain_initialize(params)
    if asked is not None:
        assert mcp_types.InitializeRequestParams.model_validate(params, by_name=False).protocol_version == asked


TREES: st.SearchStrategy[dict[str, Any]] = st.recursive(
    st.just({}), lambda inner: st.dictionaries(st.sampled_from(KEYS[:10]), inner, max_size=3)
)


@settings(max_examples=300, deadline=None)
@given(
    capabilities=st.dictionaries(st.sampled_from(sorted(CAPABILITIES)), TREES),
    roots_list_changed=st.none() | st.booleans(),
)
def test_plain_capabilities_are_answered(capabilities: dict[str, Any], roots_list_changed: bool | None) -> None:
    """Objects of objects (roots.listChanged a boolean), as hosts send them, are answered early."""
    if roots_list_changed is not None:
        capabilities["roots"] = {**capabilities.get("roots", {}), "listChanged": roots_list_changed}
    message = initialize("2025-11-25", capabilities=capabilities)
    assert plain_initialize(message["params"]) == "2025-11-25"
    mcp_types.InitializeRequestParams.model_validate(message["params"], by_name=False)


LINES = st.one_of(
    st.builds(
        lambda envelope: json.dumps(envelope).encode(),
        st.dictionaries(st.sampled_from(["jsonrpc", "id", "method", "params", "result"]), SHAPED, max_size=5),
    ),
    st.builds(
        lambda request_id, method: json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method}).encode(),
        st.one_of(st.integers(), st.text(max_size=4), st.booleans(), st.floats(allow_nan=True)),
        st.sampled_from(["tools/list", "initialize", 5]),
    ),
    st.sampled_from([
        b'{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/list"}',
        b'{"jsonrpc":"2.0","id":NaN,"method":"tools/list"}',
        b'{"jsonrpc":"2.0","id":"\\ud800","method":"tools/list"}',
        b'{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list"}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/list"',
        b'[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]',
    ]),
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(line=LINES)
def test_a_request_read_early_is_read_alike_by_the_server(line: bytes) -> None:
    message = plain_request(line)
    if message is None:
        return
    checked = wire.check(line)
    assert isinstance(checked, mcp_types.JSONRPCRequest), checked
    assert (checked.id, checked.method, checked.params) == (message["id"], message["method"], message.get("params"))


def test_a_malformed_handshake_is_left_to_the_server() -> None:
    good = initialize("2025-11-25")
    for broken in [
        {**good["params"], "_meta": {}},
        {**good["params"], "clientInfo": {"name": "host"}},
        {**good["params"], "clientInfo": {"name": "host", "version": 1}},
        {**good["params"], "capabilities": {"roots": {"listChanged": "maybe"}}},
        {**good["params"], "capabilities": {"sampling": True}},
        {**good["params"], "protocolVersion": 20251125},
    ]:
        assert plain_initialize(broken) is None, broken
        if broken.get("_meta") is None:
            with pytest.raises(ValidationError):
                mcp_types.InitializeRequestParams.model_validate(broken, by_name=False)
