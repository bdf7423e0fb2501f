"""The store the settings name, opened with their limits and summarizer: what the server, the commands and the web
view each work on."""

from __future__ import annotations

from scratchpad_adapters.anthropic_summarizer import AnthropicSummarizer
from scratchpad_adapters.factory import Backend, open_backend

from . import Settings


def open_configured(settings: Settings, *, upgrade: bool = True) -> Backend:
    """The store the settings name, with their limits and summarizer; its schema brought to head unless
    upgrade=False (commands that only read, or that migrate themselves)."""
    summarizer = AnthropicSummarizer(
        settings.summary_model,
        api_key=settings.anthropic_api_key.get_secret_value(),
        base_url=settings.anthropic_base_url,
    )
    return open_backend(
        settings.database_url,
        limits=settings.limits,
        summarizer=summarizer,
        upgrade=upgrade,
        writer_turns=settings.transport == "http",  # many sessions at once: their writers take turns (sql.turns)
    )
