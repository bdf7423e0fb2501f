"""AnthropicSummarizer() with no client: ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL reach a local fake API."""

from __future__ import annotations

import pytest

from bench.common import free_port
from scratchpad_adapters.anthropic_summarizer import AnthropicSummarizer
from scratchpad_core.errors import SummaryUnavailable
from tests.adapters.fake_anthropic import FakeAnthropic


@pytest.fixture
def env_points_at(fake_api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> FakeAnthropic:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key-123")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.url)
    return fake_api


def test_base_url_and_key_from_the_environment(env_points_at: FakeAnthropic) -> None:
    assert AnthropicSummarizer().summarize("a.md", "hello there") == "A fake summary."
    assert len(env_points_at.requests) == 1
    seen = env_points_at.requests[0]
    assert (seen.method, seen.path) == ("POST", "/v1/messages")
    assert seen.headers["authorization"] == "Bearer env-key-123"
    assert seen.body["model"] == "claude-haiku-4-5"
    assert seen.body["max_tokens"] == 1024
    assert "hello there" in seen.body["messages"][0]["content"]


def test_api_key_argument_wins_over_the_environment(env_points_at: FakeAnthropic) -> None:
    AnthropicSummarizer("claude-other", api_key="arg-key").summarize("a.md", "x")
    assert env_points_at.requests[0].headers["authorization"] == "Bearer arg-key"
    assert env_points_at.requests[0].body["model"] == "claude-other"


def test_max_retries_zero_sends_one_request(env_points_at: FakeAnthropic) -> None:
    env_points_at.status = 529
    env_points_at.reply = {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}
    with pytest.raises(SummaryUnavailable, match=r"answered 529 \(OverloadedError\).*Retry later"):
        AnthropicSummarizer(max_retries=0).summarize("a.md", "x")
    assert len(env_points_at.requests) == 1


def test_unreachable_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{free_port()}")
    with pytest.raises(SummaryUnavailable, match="Could not reach the Anthropic API"):
        AnthropicSummarizer(max_retries=0, timeout_seconds=5).summarize("a.md", "x")


def test_base_url_and_key_arguments_win_over_the_environment(
    fake_api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{free_port()}")  # nothing listens there
    assert AnthropicSummarizer(api_key="arg-key", base_url=fake_api.url).summarize("a.md", "x") == "A fake summary."
    assert fake_api.requests[0].headers["authorization"] == "Bearer arg-key"


def test_an_empty_key_argument_is_no_key_whatever_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # The server passes the key its settings read: "" means none was set, not "look in os.environ".
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key")
    with pytest.raises(SummaryUnavailable) as raised:
        AnthropicSummarizer(api_key="").summarize("p", "x")
    assert str(raised.value).startswith("summarize_file needs ANTHROPIC_API_KEY")
