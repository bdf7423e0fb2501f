"""Fixed bounds: the numbers a caller meets that no setting changes, and the one check they share.

What a server may configure (file and entry sizes, versions kept, quotas) is `limits.Limits`; path and
agent id rules are in `paths`; version and entry numbering, and what a deleted path remembers, in
`numbering`.
"""

from __future__ import annotations

from .errors import InvalidInput

LOG_PAGE_SIZE = 100  # entries in one read_log page, and the most a tail returns
MAX_LIST_LIMIT = 1000  # files in one list_files page
MAX_QUERY_CHARS = 1000  # characters of a search query
MAX_SEARCH_RESULTS = 200  # passages (or lines, or entries) one search returns
DEFAULT_SEARCH_RESULTS = 10  # what a search returns unless asked for more or fewer
SUMMARY_THRESHOLD_CHARS = 8000  # files up to this size are read, not summarized


def check_range(name: str, value: int | None, high: int, low: int = 1) -> None:
    """Refuse an argument outside low..high (None: not given, nothing to check)."""
    if value is not None and not low <= value <= high:
        raise InvalidInput.said("Invalid {argument}: use {low}..{high}.", argument=name, low=low, high=high)
