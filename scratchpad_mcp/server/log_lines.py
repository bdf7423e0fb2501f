"""Logging to stderr (stdout carries JSON-RPC over stdio): text for people, JSON lines for machines."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

from .calls import CallRecord

_RESERVED = set(vars(logging.makeLogRecord({})))


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        line.update({k: v for k, v in vars(record).items() if k not in _RESERVED and not k.startswith("_")})
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def configure_logging(level: str, fmt: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for noisy in ("httpx", "httpx2", "mcp", "uvicorn.access", "alembic"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))


class CallLogger:
    """One log line per tool call: who, what, outcome, time and sizes; never content or keys."""

    def __init__(self) -> None:
        self._log = logging.getLogger("scratchpad.call")

    def after(self, record: CallRecord) -> None:
        fields = {
            "event": "tool_call",
            "request_id": record.request_id,
            "agent": record.agent_id,
            "tool": record.tool,
            "outcome": record.outcome,
            "duration_ms": round(record.duration_ms, 3),
            "bytes_in": record.bytes_in,
            "bytes_out": record.bytes_out,
            **record.extra,
        }
        self._log.info(
            "%s %s agent=%r %.1fms", record.tool, record.outcome, record.agent_id, record.duration_ms, extra=fields
        )
