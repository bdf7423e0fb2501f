"""A local stand-in for the Anthropic Messages API: real HTTP on 127.0.0.1, records every request."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def message_body(text: str, model: str = "claude-test") -> dict[str, Any]:
    """A valid Messages API response carrying one text block."""
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class FakeAnthropic:
    url: str = ""
    requests: list[Seen] = field(default_factory=list)
    status: int = 200
    reply: dict[str, Any] = field(default_factory=lambda: message_body("  A fake summary.\n"))
    replies: list[dict[str, Any]] = field(default_factory=list)  # served first, in order; then `reply`


@contextmanager
def fake_anthropic() -> Iterator[FakeAnthropic]:
    fake = FakeAnthropic()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            headers = {name.lower(): value for name, value in self.headers.items()}
            fake.requests.append(Seen("POST", self.path, headers, body))
            if self.path.partition("?")[0] != "/v1/messages":  # the beta client adds ?beta=true
                self._send(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})
            else:
                self._send(fake.status, fake.replies.pop(0) if fake.replies else fake.reply)

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
