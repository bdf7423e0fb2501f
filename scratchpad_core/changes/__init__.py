"""Changes to files, as a store tells whoever watches it (MCP resource subscribers): which agent's file, and
whether it appeared, changed or went away. Told after the change committed, whichever process made it. A change
with path "" (kind "updated") is one to the agent's logs: what the agent's changes resource (read_changes,
issue 31) hears of, besides its files."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

ChangeKind = Literal["created", "updated", "deleted"]


@dataclass(frozen=True)
class FileChange:
    agent_id: str
    path: str
    kind: ChangeKind

    @property
    def lists_change(self) -> bool:
        """Whether the agent's list of files changed (a file appeared or went away), not only a file's content."""
        return self.kind != "updated"


def change_of(agent_id: str, path: str, was_live: bool, is_live: bool) -> FileChange | None:
    """The change a file's row went through, from whether it held a live file before and after (a deleted file's
    row stays as a tombstone); None when neither side is a file (a tombstone's own bookkeeping)."""
    if was_live and is_live:
        return FileChange(agent_id, path, "updated")
    if is_live:
        return FileChange(agent_id, path, "created")
    if was_live:
        return FileChange(agent_id, path, "deleted")
    return None


Listener = Callable[[FileChange], None]


class ChangeFeed(Protocol):
    """A store's changes, told to listeners once committed. Listeners are called on any thread and must not block."""

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Tell `listener` of every committed change from now on; returns the call that stops it (idempotent)."""
        ...

    @property
    def closed(self) -> bool: ...

    def close(self) -> None:
        """Stop watching the store (listeners hear nothing more); closing twice is harmless."""
        ...
