"""/health, /ready and /metrics: no key needed, nothing about agents, paths or content in them."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import anyio
import httpx2
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from scratchpad_adapters.sql.schema import migrate
from tests.deploy.conftest import (
    TEST_TIMEOUT,
    Team,
    connect,
    raw_call,
    unique,
)
from tests.faults.tcp_proxy import TcpProxy
from tests.mcp.helpers import ok, refused
from tests.servers import running

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.postgres]


def get(url: str) -> httpx2.Response:
    return httpx2.get(url, timeout=30)


def samples(body: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Prometheus text exposition, parsed by prometheus_client's own parser: sample name -> (labels, value)."""
    found: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(body):
        for sample in family.samples:
            found.setdefault(sample.name, []).append((dict(sample.labels), sample.value))
    return found


def value(found: dict[str, list[tuple[dict[str, str], float]]], name: str, **labels: str) -> float:
    return sum(v for got, v in found.get(name, []) if all(got.get(k) == x for k, x in labels.items()))


async def test_probes_need_no_key_and_reveal_nothing(team: Team) -> None:
    agent = unique("probe-agent")
    path = "probe/PATH-ONLY-IN-CALLS.md"
    content = "PROBE-CONTENT-SHOULD-NOT-LEAK"
    (key,) = team.keys(agent)
    replica = team.replicas[0]
    with anyio.fail_after(TEST_TIMEOUT):
        before = samples(get(f"{replica.base}/metrics").text)
        async with connect(replica.mcp_url, key.secret) as client:
            await ok(client, "write_file", {"path": path, "content": content})
            await ok(client, "read_file", {"path": path})
            await refused(client, "read_file", {"path": "probe/missing.md"})
        assert raw_call(replica.mcp_url, "spk_000000000000_unknownunknownunknown", "list_files", {}).status_code == 401
        assert raw_call(replica.mcp_url, None, "list_files", {}).status_code == 401

        health = get(f"{replica.base}/health")
        assert (health.status_code, health.json()) == (200, {"status": "ok"})
        ready = get(f"{replica.base}/ready")
        assert (ready.status_code, ready.json()) == (200, {"status": "ready"})

        metrics = get(f"{replica.base}/metrics")
        assert metrics.status_code == 200
        assert metrics.headers["content-type"].startswith("text/plain")
        assert "version=0.0.4" in metrics.headers["content-type"]
        after = samples(metrics.text)

        def grew(name: str, **labels: str) -> float:
            return value(after, name, **labels) - value(before, name, **labels)

        assert grew("scratchpad_tool_calls_total", tool="write_file", outcome="ok") >= 1
        assert grew("scratchpad_tool_calls_total", tool="read_file", outcome="ok") >= 1
        assert grew("scratchpad_tool_calls_total", tool="read_file", outcome="not_found") >= 1
        buckets = [
            labels for labels, _ in after["scratchpad_tool_call_seconds_bucket"] if labels["tool"] == "write_file"
        ]
        assert {"0.001", "0.1", "1.0", "+Inf"} <= {labels["le"] for labels in buckets}
        assert grew("scratchpad_tool_call_seconds_count", tool="write_file") >= 1
        assert value(after, "scratchpad_tool_call_seconds_sum", tool="write_file") > 0
        assert grew("scratchpad_auth_failures_total", reason="unknown") >= 1
        assert grew("scratchpad_auth_failures_total", reason="missing") >= 1
        assert "# TYPE scratchpad_tool_call_seconds histogram" in metrics.text
        assert "# TYPE scratchpad_tool_calls_total counter" in metrics.text

        for response in (health, ready, metrics):
            for private in (agent, path, "PATH-ONLY-IN-CALLS", content, key.secret, key.id):
                assert private not in response.text, (response.url, private)

        # No key needed, and a bad key does not matter either.
        for probe in ("health", "ready", "metrics"):
            bad = httpx2.get(f"{replica.base}/{probe}", headers={"Authorization": "Bearer nope"}, timeout=30)
            assert bad.status_code == 200, probe


def poll(check: Callable[[], bool], timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.25)
    return False


def test_ready_follows_the_database(tmp_path: Path, postgres_database: str) -> None:
    """503 while the database is unreachable (or its schema not at head), 200 again once it is back."""
    target = make_url(postgres_database)
    proxy = TcpProxy(target.host or "127.0.0.1", target.port or 5432)
    proxy.start()
    through_proxy = target.set(host="127.0.0.1", port=proxy.port).render_as_string(hide_password=False)
    env = {"SCRATCHPAD_DATABASE_URL": through_proxy, "SCRATCHPAD_AUTH": "none"}
    try:
        with running(tmp_path, {"proxied": env}) as servers:
            base = servers["proxied"].base
            assert get(f"{base}/ready").status_code == 200

            proxy.cut()
            assert poll(lambda: get(f"{base}/ready").status_code == 503), "still ready with the database cut off"
            down = get(f"{base}/ready")
            assert down.json()["status"] == "not ready"
            for private in (str(proxy.port), target.database or "", "postgres", "password"):
                assert private not in down.text, private
            assert get(f"{base}/health").status_code == 200  # the process itself is alive
            assert get(f"{base}/metrics").status_code == 200

            proxy.start()  # the same port again
            assert poll(lambda: get(f"{base}/ready").status_code == 200), "not ready after the database came back"

            # Migrations not at head (e.g. an older schema restored from backup): not ready.
            head = migrate.head_revision()
            engine = create_engine(postgres_database)
            try:
                with engine.begin() as connection:
                    connection.execute(text("UPDATE alembic_version SET version_num = '0001'"))
                stale = get(f"{base}/ready")
                assert stale.status_code == 503
                assert "0001" in stale.json()["reason"]
                with engine.begin() as connection:
                    connection.execute(text("UPDATE alembic_version SET version_num = :head"), {"head": head})
                assert get(f"{base}/ready").status_code == 200
            finally:
                engine.dispose()
    finally:
        proxy.cut()
