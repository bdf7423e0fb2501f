"""With API keys on, a database outage reaches the caller as a retryable tool error, not an HTTP 500."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from scratchpad_adapters import open_store
from tests.deploy.conftest import create_keys, raw_call, raw_result, unique
from tests.faults.tcp_proxy import TcpProxy
from tests.servers import running

pytestmark = [pytest.mark.slow, pytest.mark.postgres]


def test_keys_that_cannot_be_checked_give_a_retryable_error_and_run_nothing(
    tmp_path: Path, postgres_database: str
) -> None:
    open_store(postgres_database).close()
    agent = unique("outage")
    (key,) = create_keys(postgres_database, agent)
    parsed = make_url(postgres_database)
    proxy = TcpProxy(parsed.host or "127.0.0.1", parsed.port or 5432)
    proxy.start()
    proxied = parsed.set(port=proxy.port).render_as_string(hide_password=False)
    env = {"SCRATCHPAD_DATABASE_URL": proxied, "SCRATCHPAD_LOG_FORMAT": "json"}
    try:
        with running(tmp_path, {"keyed": env}) as servers:
            server = servers["keyed"]
            args = {"path": "notes.md", "content": "before\n"}
            assert not raw_result(raw_call(server.mcp_url, key.secret, "write_file", args))["isError"]

            proxy.cut()
            response = raw_call(server.mcp_url, key.secret, "write_file", {**args, "content": "during\n"})
            result = raw_result(response)  # a JSON-RPC result, not an HTTP 500
            assert result["isError"] is True
            assert "Retry" in result["content"][0]["text"]
            assert "Traceback" not in server.stderr() and key.secret not in server.stderr()

            proxy.start()
            read = raw_result(raw_call(server.mcp_url, key.secret, "read_file", {"path": "notes.md"}))
            assert read["structuredContent"]["content"] == "before\n"  # nothing ran during the outage
            assert raw_call(server.mcp_url, "spk_000000000000_unknown", "read_file", {"path": "x"}).status_code == 401
    finally:
        proxy.cut()
