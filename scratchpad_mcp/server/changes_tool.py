"""read_changes as a tool (issue 31): its body, apart from the registration in tools.py."""

from scratchpad_core.catchup import DEFAULT_MAX_BYTES
from scratchpad_core.service import Scratchpad
from scratchpad_core.usecases.catchup import ChangesPage

from .calls import UseCase


def read_changes(
    store: Scratchpad, since: str | None, prefix: str | None, max_bytes: int | None, max_read_bytes: int | None
) -> UseCase[ChangesPage]:
    """The use case: pages of max_bytes, by default the read bound (SCRATCHPAD_MAX_READ_BYTES) or 40,000 B."""
    bound = max_bytes if max_bytes is not None else max_read_bytes or DEFAULT_MAX_BYTES
    return lambda a: store.read_changes(a, since, prefix, bound)
