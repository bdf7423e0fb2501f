"""A redacted text cannot be confirmed through a request_id over MCP (issue 28): before the redaction, the same
request_id answers the first call's arguments with a replay and others with a refusal; after it, a guess runs as
a new call, right or wrong."""

from __future__ import annotations

import pytest
from mcp import Client

from scratchpad_core.service import Scratchpad
from tests.mcp.helpers import ok, refused

pytestmark = pytest.mark.anyio

A = {"agent_id": "a"}
SECRET = "pw-Hq83Zr5n"


async def test_a_request_id_confirms_no_guess_of_a_redacted_text(client: Client, store: Scratchpad) -> None:
    call = {**A, "path": "k.md", "content": f"key {SECRET}\n", "request_id": "w1"}
    first = await ok(client, "write_file", call)
    await ok(client, "append_log", {**A, "path": "run", "entry": f"saw {SECRET}", "request_id": "a1"})
    assert await ok(client, "write_file", call) == first  # the right guess: replayed
    wrong = await refused(client, "write_file", {**call, "content": "key pw-Hq83Zr5x\n"})
    assert wrong.startswith("Invalid request_id 'w1': it already names an earlier write_file call with other")

    assert store.redact_everywhere("a", SECRET, by="ops").requests_forgotten == 2
    again = await ok(client, "write_file", call)  # the right guess now runs as a new call
    assert (again["version"], first["version"]) == (3, 1)  # the redaction made version 2
    logged = await ok(client, "append_log", {**A, "path": "run", "entry": "a wrong guess", "request_id": "a1"})
    assert logged["entry_id"] == 2  # a wrong one too: no refusal tells them apart
