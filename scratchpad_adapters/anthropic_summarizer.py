"""The Summarizer port on Claude, through the official anthropic SDK.

The SDK is imported on the first summary, not at start: it takes seconds to import and most
sessions never summarize.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

from scratchpad_core.errors import SummaryUnavailable

if TYPE_CHECKING:
    import anthropic

DEFAULT_MODEL = "claude-haiku-4-5"
MAX_SUMMARY_TOKENS = 1024
SYSTEM_PROMPT = (
    "You summarize files for an AI agent that stored them and wants to avoid re-reading them. "
    "Be concise. Keep the structure, the intent, and the exact identifiers the agent may need "
    "(names, ids, numbers, paths, decisions, open questions). Reply with the summary only."
)


class AnthropicSummarizer:
    """Summaries by Claude.

    api_key=None reads ANTHROPIC_API_KEY (a library's default); the server passes the key its settings read,
    "" when there is none. base_url=None leaves the address to the SDK (ANTHROPIC_BASE_URL or its default).
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        client: anthropic.Anthropic | None = None,
        timeout_seconds: float = 60.0,
        max_retries: int = 2,
    ) -> None:
        self.model = model
        self._api_key = api_key
        self._base_url = base_url
        self._client = client
        self._timeout = timeout_seconds
        self._max_retries = max_retries
        self._lock = threading.Lock()

    def _get_client(self) -> anthropic.Anthropic:
        with self._lock:
            if self._client is None:
                key = os.environ.get("ANTHROPIC_API_KEY") if self._api_key is None else self._api_key
                if not key:
                    raise SummaryUnavailable(
                        "summarize_file needs ANTHROPIC_API_KEY: set it in the scratchpad server's environment "
                        "(the env block of your MCP client configuration). The other tools work without it."
                    )
                import anthropic

                self._client = anthropic.Anthropic(
                    api_key=key, base_url=self._base_url, timeout=self._timeout, max_retries=self._max_retries
                )
            return self._client

    def summarize(self, path: str, content: str) -> str:
        import anthropic

        client = self._get_client()
        prompt = f'Summarize this file, "{path}":\n\n<file>\n{content}\n</file>'
        try:
            response = client.messages.create(
                model=self.model,
                max_tokens=MAX_SUMMARY_TOKENS,
                system=SYSTEM_PROMPT,
                messages=[{"role": "user", "content": prompt}],
            )
        except anthropic.AuthenticationError:
            raise SummaryUnavailable(
                "The Anthropic API rejected ANTHROPIC_API_KEY (401 Unauthorized). "
                "Check the key in the server's environment."
            ) from None
        except anthropic.APIStatusError as error:
            raise SummaryUnavailable(
                f"The Anthropic API answered {error.status_code} ({type(error).__name__}); no summary was made. "
                "Retry later, or read the file with read_file."
            ) from None
        except anthropic.APIConnectionError:
            raise SummaryUnavailable(
                "Could not reach the Anthropic API (connection failed or timed out); retry later, or use read_file."
            ) from None
        blocks = getattr(response, "content", None)
        if not isinstance(blocks, list):  # the SDK does not validate replies: a proxy may send anything
            raise SummaryUnavailable(
                "The Anthropic API sent a reply without content (not a Messages response); retry later, "
                "or use read_file."
            )
        summary = "\n".join(
            text
            for block in blocks
            if getattr(block, "type", None) == "text" and isinstance(text := getattr(block, "text", None), str)
        ).strip()
        if not summary:
            raise SummaryUnavailable("The Anthropic API returned an empty summary; retry later, or use read_file.")
        return summary
