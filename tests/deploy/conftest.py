"""Team deployment: real server processes on loopback, keys made with the CLI, real MCP clients.

Every test here drives `scratchpad-mcp` from outside: it starts the console script with an
environment (MCP_TRANSPORT=http, PORT, SCRATCHPAD_*), makes keys with `scratchpad-mcp keys ...`
and talks to /mcp with the mcp SDK's Client over httpx2, or with raw POSTs.

A server process takes several seconds to start on a busy machine, so the two replicas that
most tests use ("the team": two processes on one Postgres database) are started once per
session; tests stay independent by using their own agents.
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import uuid
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import create_postgres_database, drop_postgres_database
from tests.mcp.helpers import START_TIMEOUT, console_script, server_env
from tests.servers import Server, running

CLI_TIMEOUT = 120.0  # seconds for one `scratchpad-mcp keys ...` command
CALL_TIMEOUT = 60.0  # httpx2 timeout for one request
TEST_TIMEOUT = 240.0  # anyio.fail_after bound for one async test body

MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}

# The team replicas accept files up to this size, so the request body cap is 6 * 100_000 + 64 KiB.
TEAM_MAX_FILE_BYTES = 100_000


def unique(prefix: str) -> str:
    """An agent id (or other name) no other test uses."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


# --------------------------------------------------------------------------- server processes


# --------------------------------------------------------------------------- keys via the CLI


@dataclass(frozen=True)
class Key:
    id: str
    agent: str
    secret: str
    read_only: bool = False
    label: str = ""

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.secret}"}

    @property
    def random_part(self) -> str:
        """The secret without its public `spk_<id>_` head (the random part may itself contain `_`)."""
        head = f"spk_{self.id}_"
        assert self.secret.startswith(head), self.secret
        return self.secret.removeprefix(head)


def command(*args: str, prefix: Sequence[str] = (), **env: str) -> subprocess.CompletedProcess[str]:
    """Run `scratchpad-mcp ARGS...` (after `prefix`, e.g. setpriv) in a clean environment plus `env`; any exit."""
    return subprocess.run(
        [*prefix, console_script(), *args],
        env={**server_env(), **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT,
        check=False,
    )


def cli(database: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run `scratchpad-mcp --database URL ARGS...`; fails the test on a non-zero exit."""
    done = subprocess.run(
        [console_script(), "--database", database, *args],
        env=server_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, f"keys {args} exited {done.returncode}: {done.stderr}"
    return done


KEY_NOTE = re.compile(r"key (?P<id>\S+) for agent (?P<agent>\S+) \((?P<mode>read-only|read-write)\)")


def create_keys(database: str, *specs: str | tuple[str, bool] | tuple[str, bool, str]) -> list[Key]:
    """`keys create` for each spec (agent, or (agent, read_only[, label])), run concurrently."""
    wanted: list[tuple[str, bool, str]] = []
    for spec in specs:
        if isinstance(spec, str):
            wanted.append((spec, False, ""))
        elif len(spec) == 2:
            wanted.append((spec[0], spec[1], ""))
        else:
            wanted.append((spec[0], spec[1], spec[2]))
    processes = []
    for agent, read_only, label in wanted:
        args = ["keys", "create", "--agent", agent, *(["--read-only"] if read_only else []), "--label", label]
        processes.append(
            subprocess.Popen(
                [console_script(), "--database", database, *args],
                env=server_env(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    keys = []
    for (agent, read_only, label), process in zip(wanted, processes, strict=True):
        out, err = process.communicate(timeout=CLI_TIMEOUT)
        assert process.returncode == 0, f"keys create --agent {agent} exited {process.returncode}: {err}"
        secret = out.strip()
        assert secret.count("\n") == 0 and secret, f"expected one secret line on stdout, got {out!r}"
        note = KEY_NOTE.search(err)
        assert note is not None, err
        assert note["agent"] == agent
        assert note["mode"] == ("read-only" if read_only else "read-write")
        assert secret not in err
        keys.append(Key(note["id"], agent, secret, read_only, label))
    return keys


def revoke_key(database: str, key: Key) -> None:
    done = cli(database, "keys", "revoke", key.id)
    assert f"revoked {key.id}" in done.stdout


# --------------------------------------------------------------------------- talking to /mcp


def http_client(secret: str | None = None, **options: Any) -> httpx2.AsyncClient:
    headers = {"Authorization": f"Bearer {secret}"} if secret is not None else {}
    return httpx2.AsyncClient(headers=headers, timeout=CALL_TIMEOUT, **options)


@contextlib.asynccontextmanager
async def connect(url: str, secret: str | None = None) -> AsyncIterator[Client]:
    """An MCP client session on `url` sending `Authorization: Bearer <secret>` (no header when None)."""
    async with http_client(secret) as http, Client(streamable_http_client(url, http_client=http)) as client:
        yield client


def rpc_body(tool: str, arguments: dict[str, Any], request_id: int = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }


def raw_call(url: str, secret: str | None, tool: str, arguments: dict[str, Any]) -> httpx2.Response:
    """One stateless JSON-RPC tools/call POST, as any HTTP client would send it."""
    headers = dict(MCP_HEADERS)
    if secret is not None:
        headers["Authorization"] = f"Bearer {secret}"
    return httpx2.post(url, json=rpc_body(tool, arguments), headers=headers, timeout=CALL_TIMEOUT)


def raw_result(response: httpx2.Response) -> dict[str, Any]:
    assert response.status_code == 200, (response.status_code, response.text[:500])
    result: dict[str, Any] = response.json()["result"]
    return result


def text_of(result: Any) -> str:
    """The first text block of a CallToolResult."""
    text: str = result.content[0].text
    return text


def stderr_lines(server: Server) -> list[str]:
    return [line for line in server.stderr().splitlines() if line.strip()]


def json_lines(server: Server) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stderr_lines(server)]


# --------------------------------------------------------------------------- shared deployments


@dataclass
class Team:
    """Two replicas (keys auth, JSON logs) on one Postgres database."""

    database: str
    replicas: list[Server]

    def keys(self, *specs: str | tuple[str, bool] | tuple[str, bool, str]) -> list[Key]:
        return create_keys(self.database, *specs)


@pytest.fixture(scope="session")
def team(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Team]:
    database = create_postgres_database("scratchpad_deploy")
    folder = tmp_path_factory.mktemp("team")
    env = {
        "SCRATCHPAD_DATABASE_URL": database,
        "SCRATCHPAD_AUTH": "keys",
        "SCRATCHPAD_MAX_FILE_BYTES": str(TEAM_MAX_FILE_BYTES),
    }
    try:
        # Both replicas start at once on the empty database: migrations must serialize between them.
        with running(folder, {"replica-1": env, "replica-2": env}) as servers:
            yield Team(database, [servers["replica-1"], servers["replica-2"]])
    finally:
        drop_postgres_database(database)


@pytest.fixture
def postgres_database() -> Iterator[str]:
    """A fresh, empty Postgres database for one test (or module fixture), dropped afterwards."""
    url = create_postgres_database("scratchpad_deploy")
    yield url
    drop_postgres_database(url)


def each(items: Iterable[str], text: str) -> list[str]:
    """The items that occur in text (for leak checks)."""
    return [item for item in items if item in text]


def post(url: str, body: Any, headers: dict[str, str] | None = None) -> httpx2.Response:
    """A raw JSON POST with the MCP Accept/Content-Type headers plus `headers`."""
    return httpx2.post(url, json=body, headers={**MCP_HEADERS, **(headers or {})}, timeout=CALL_TIMEOUT)
