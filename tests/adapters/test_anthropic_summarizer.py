"""AnthropicSummarizer through the real anthropic SDK, with httpx2.MockTransport in place of the network."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anthropic
import httpx2
import pytest

from scratchpad_adapters.anthropic_summarizer import SYSTEM_PROMPT, AnthropicSummarizer
from scratchpad_core.errors import SummaryUnavailable
from tests.adapters.fake_anthropic import message_body

Handler = Callable[[httpx2.Request], httpx2.Response]
FILE = "# Plan\n\n- ship the MCP server\n- decision: SQLite by default\n"


def summarizer(handler: Handler, model: str | None = None, key: str = "test-key") -> AnthropicSummarizer:
    client = anthropic.Anthropic(
        api_key=key, max_retries=0, http_client=httpx2.Client(transport=httpx2.MockTransport(handler))
    )
    if model is None:
        return AnthropicSummarizer(client=client)
    return AnthropicSummarizer(model, client=client)


class Recorder:
    def __init__(self, response: httpx2.Response | None = None) -> None:
        self.requests: list[httpx2.Request] = []
        self.bodies: list[dict[str, Any]] = []
        self.response = response or httpx2.Response(200, json=message_body("  The plan ships MCP.\n\n"))

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        self.bodies.append(json.loads(request.content))
        return self.response


def error_response(status: int, kind: str) -> httpx2.Response:
    return httpx2.Response(status, json={"type": "error", "error": {"type": kind, "message": "nope"}})


def test_request_and_stripped_summary() -> None:
    recorder = Recorder()
    summary = summarizer(recorder).summarize("notes/plan.md", FILE)
    assert summary == "The plan ships MCP."
    assert len(recorder.requests) == 1
    request, body = recorder.requests[0], recorder.bodies[0]
    assert request.method == "POST"
    assert request.url.path == "/v1/messages"
    assert request.headers["authorization"] == "Bearer test-key"
    assert body["model"] == "claude-haiku-4-5"
    assert body["max_tokens"] == 1024
    assert body["system"] == SYSTEM_PROMPT
    assert len(body["messages"]) == 1
    assert body["messages"][0]["role"] == "user"
    assert FILE in body["messages"][0]["content"]
    assert "notes/plan.md" in body["messages"][0]["content"]


def test_model_override() -> None:
    recorder = Recorder()
    adapter = summarizer(recorder, model="claude-sonnet-4-6")
    assert adapter.model == "claude-sonnet-4-6"
    adapter.summarize("p", FILE)
    assert recorder.bodies[0]["model"] == "claude-sonnet-4-6"


def test_default_model_attribute() -> None:
    assert AnthropicSummarizer().model == "claude-haiku-4-5"


def test_text_blocks_are_joined() -> None:
    body = message_body("first")
    body["content"] = [{"type": "text", "text": " first "}, {"type": "text", "text": "second\n"}]
    assert summarizer(Recorder(httpx2.Response(200, json=body))).summarize("p", FILE) == "first \nsecond"


def test_unauthorized_names_the_key_and_does_not_show_it() -> None:
    adapter = summarizer(Recorder(error_response(401, "authentication_error")), key="sk-ant-secret-value")
    with pytest.raises(SummaryUnavailable) as raised:
        adapter.summarize("p", FILE)
    message = str(raised.value)
    assert "ANTHROPIC_API_KEY" in message
    assert "401" in message
    assert "sk-ant" not in message


@pytest.mark.parametrize(
    ("status", "kind", "name"),
    [(529, "overloaded_error", "OverloadedError"), (500, "api_error", "InternalServerError")],
)
def test_server_errors_say_to_retry(status: int, kind: str, name: str) -> None:
    recorder = Recorder(error_response(status, kind))
    with pytest.raises(SummaryUnavailable) as raised:
        summarizer(recorder).summarize("p", FILE)
    assert str(raised.value) == (
        f"The Anthropic API answered {status} ({name}); no summary was made. "
        "Retry later, or read the file with read_file."
    )
    assert len(recorder.requests) == 1


def test_connection_error() -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused by 10.0.0.1", request=request)

    with pytest.raises(SummaryUnavailable) as raised:
        summarizer(refuse).summarize("p", FILE)
    assert str(raised.value) == (
        "Could not reach the Anthropic API (connection failed or timed out); retry later, or use read_file."
    )


def test_timeout_is_a_connection_error() -> None:
    def slow(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ReadTimeout("timed out", request=request)

    with pytest.raises(SummaryUnavailable, match="connection failed or timed out"):
        summarizer(slow).summarize("p", FILE)


@pytest.mark.parametrize("blocks", [[], [{"type": "text", "text": "   \n"}]])
def test_empty_content(blocks: list[dict[str, Any]]) -> None:
    body = {**message_body("x"), "content": blocks}
    with pytest.raises(SummaryUnavailable) as raised:
        summarizer(Recorder(httpx2.Response(200, json=body))).summarize("p", FILE)
    assert str(raised.value) == "The Anthropic API returned an empty summary; retry later, or use read_file."


@pytest.mark.parametrize("value", [None, ""])
def test_no_key(monkeypatch: pytest.MonkeyPatch, value: str | None) -> None:
    if value is None:
        monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    else:
        monkeypatch.setenv("ANTHROPIC_API_KEY", value)
    with pytest.raises(SummaryUnavailable) as raised:
        AnthropicSummarizer().summarize("p", FILE)
    assert str(raised.value).startswith("summarize_file needs ANTHROPIC_API_KEY")


@pytest.mark.parametrize("body", [{"weird": 1}, {"content": None}, {"content": [{"type": "text"}]}, []])
def test_a_reply_that_is_no_messages_response_is_a_clean_error(body: object) -> None:
    recorder = Recorder(httpx2.Response(200, json=body))
    with pytest.raises(SummaryUnavailable, match="retry later"):
        summarizer(recorder).summarize("notes.md", "content")
