"""Who made a change: every version and log entry records its actor.

Over HTTP with API keys, the key (its id, and its label at that time); over stdio or with
SCRATCHPAD_AUTH=none, the transport; through the library, whatever the caller passes. Rows written
before actors were recorded read UNKNOWN.
"""

from __future__ import annotations

from .errors import InvalidInput
from .limits import storable_size

LIBRARY = "library"
STDIO = "stdio"
HTTP = "http"
UNKNOWN = "unknown"
MAX_ACTOR_CHARS = 256


def check_actor(actor: str) -> str:
    if not isinstance(actor, str) or not actor or len(actor) > MAX_ACTOR_CHARS:
        raise InvalidInput(
            f"Invalid actor {str(actor)[:64]!r}: use 1 to {MAX_ACTOR_CHARS} characters naming who makes the "
            "change (default 'library'). Nothing was changed."
        )
    storable_size(actor, "actor")
    return actor


def key_actor(key_id: str, label: str) -> str:
    """An API key as an actor: its id, and its label as it is now (a later relabelling leaves this as it was)."""
    actor = f"key:{key_id} ({label})" if label else f"key:{key_id}"
    return actor[:MAX_ACTOR_CHARS]


def caller_of(actor: str) -> str:
    """Whose request_ids a call's belong to (retries.py): a key's id for a key (key_actor); "" for any other actor
    (stdio, the library), which share one scope as before keys could share an agent."""
    return actor[4:].partition(" ")[0] if actor.startswith("key:") else ""
