"""Request bodies above 6 x SCRATCHPAD_MAX_FILE_BYTES + 64 KiB get 413, with or without Content-Length."""

from __future__ import annotations

import json
from collections.abc import Iterator

import anyio
import httpx2
import pytest

from tests.deploy.conftest import (
    MCP_HEADERS,
    TEAM_MAX_FILE_BYTES,
    TEST_TIMEOUT,
    Team,
    connect,
    raw_call,
    raw_result,
    rpc_body,
    unique,
)
from tests.mcp.helpers import ok, refused

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.postgres]

CAP = 6 * TEAM_MAX_FILE_BYTES + 64 * 1024


def encoded(tool: str, arguments: dict[str, object], *, ensure_ascii: bool = False) -> bytes:
    return json.dumps(rpc_body(tool, arguments), ensure_ascii=ensure_ascii).encode()


def chunks(body: bytes, size: int = 8192) -> Iterator[bytes]:
    for start in range(0, len(body), size):
        yield body[start : start + size]


def test_oversized_bodies_get_413(team: Team) -> None:
    agent = unique("bodycap")
    (key,) = team.keys(agent)
    headers = {**MCP_HEADERS, **key.headers}
    replica = team.replicas[1]
    body = encoded("write_file", {"path": "huge.md", "content": "x" * (CAP + 1000)})
    assert len(body) > CAP

    response = httpx2.post(replica.mcp_url, content=body, headers=headers, timeout=60)
    assert response.status_code == 413, response.text[:300]

    # Streamed: no Content-Length, so the server must count as it reads.
    streamed = httpx2.post(replica.mcp_url, content=chunks(body), headers=headers, timeout=60)
    assert streamed.request.headers.get("transfer-encoding") == "chunked"
    assert "content-length" not in streamed.request.headers
    assert streamed.status_code == 413, streamed.text[:300]

    # A streamed body that is much larger still (10 MiB): refused without reading it all into memory.
    many = (b"x" * 65536 for _ in range(160))
    assert httpx2.post(replica.mcp_url, content=many, headers=headers, timeout=60).status_code == 413

    # The server keeps serving, and the refused write did not happen.
    assert httpx2.get(f"{replica.base}/health", timeout=30).status_code == 200
    reply = raw_result(raw_call(replica.mcp_url, key.secret, "list_files", {}))
    assert reply["structuredContent"]["count"] == 0


def test_a_body_just_under_the_cap_is_read(team: Team) -> None:
    """Just under the cap the server reads the request (the content is then refused by the file size limit)."""
    (key,) = team.keys(unique("undercap"))
    envelope = len(encoded("write_file", {"path": "edge.md", "content": ""}))
    body = encoded("write_file", {"path": "edge.md", "content": "y" * (CAP - envelope)})
    assert len(body) == CAP
    response = httpx2.post(team.replicas[0].mcp_url, content=body, headers={**MCP_HEADERS, **key.headers}, timeout=60)
    result = raw_result(response)
    assert result["isError"] is True
    assert "too large" in result["content"][0]["text"]


async def test_the_largest_allowed_write_succeeds(team: Team) -> None:
    (key,) = team.keys(unique("largest"))
    ascii_text = ("0123456789abcdef" * (TEAM_MAX_FILE_BYTES // 16 + 1))[:TEAM_MAX_FILE_BYTES]
    two_byte = "é" * (TEAM_MAX_FILE_BYTES // 2)
    four_byte = "😀" * (TEAM_MAX_FILE_BYTES // 4)
    quotes = '"\\' * (TEAM_MAX_FILE_BYTES // 2)  # each escaped to two bytes
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(team.replicas[0].mcp_url, key.secret) as client:
            for name, content in [("ascii", ascii_text), ("two-byte", two_byte), ("four", four_byte), ("q", quotes)]:
                assert len(content.encode()) == TEAM_MAX_FILE_BYTES
                written = await ok(client, "write_file", {"path": f"max/{name}", "content": content})
                assert written["bytes_written"] == TEAM_MAX_FILE_BYTES
            assert "too large" in await refused(client, "write_file", {"path": "max/over", "content": ascii_text + "!"})
        # The same, from a plain JSON client that escapes everything non-ASCII (Python's json.dumps default).
        for content in (two_byte, four_byte):
            body = encoded("write_file", {"path": "max/escaped", "content": content}, ensure_ascii=True)
            response = httpx2.post(
                team.replicas[1].mcp_url, content=body, headers={**MCP_HEADERS, **key.headers}, timeout=60
            )
            assert raw_result(response)["isError"] is False


def test_the_largest_write_of_control_characters_fits_under_the_cap(team: Team) -> None:
    """Control characters are valid content, and JSON must escape each as \\u00XX: six bytes for one.

    A file of max_file_bytes such characters is an allowed write, but its request is 6x the file size,
    over the 3x + 64 KiB cap.
    """
    (key,) = team.keys(unique("control"))
    content = "\x1b" * TEAM_MAX_FILE_BYTES  # e.g. terminal output is full of ESC characters
    body = encoded("write_file", {"path": "tty.log", "content": content})
    response = httpx2.post(team.replicas[0].mcp_url, content=body, headers={**MCP_HEADERS, **key.headers}, timeout=60)
    assert response.status_code == 200, (
        f"a {TEAM_MAX_FILE_BYTES}-byte write (allowed) took a {len(body)}-byte request and got "
        f"{response.status_code}; the cap is {CAP}"
    )
    assert raw_result(response)["isError"] is False
