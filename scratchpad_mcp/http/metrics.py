"""Prometheus metrics for one server process: calls by tool and outcome, latency, auth failures."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics, generate_latest

from ..server.calls import CallRecord

disable_created_metrics()  # type: ignore[no-untyped-call]  # no *_created series: they double the output and nobody graphs them

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """A call observer that feeds its own registry (no global state, so tests and replicas stay apart)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self._calls = Counter(
            "scratchpad_tool_calls", "Tool calls by tool and outcome.", ["tool", "outcome"], registry=self.registry
        )
        self._latency = Histogram(
            "scratchpad_tool_call_seconds", "Tool call latency.", ["tool"], buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )  # fmt: skip
        self._auth = Counter(
            "scratchpad_auth_failures",
            "Requests refused for a missing, unknown or revoked key, or a key without access to the agent.", ["reason"],
            registry=self.registry,
        )  # fmt: skip

    def after(self, record: CallRecord) -> None:
        self._calls.labels(record.tool, record.outcome).inc()
        self._latency.labels(record.tool).observe(record.duration_ms / 1000)

    def auth_failure(self, reason: str) -> None:
        self._auth.labels(reason).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
