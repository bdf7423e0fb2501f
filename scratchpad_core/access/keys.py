"""API keys that bind a caller to one agent, or (admin keys) let a person look at every agent in the web view:
made here, stored only as hashes, checked on every request."""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
from collections.abc import Callable, Sequence

from ..errors import InvalidInput, NotFound
from ..model import ApiKey as ApiKey  # noqa: PLC0414  (its record lives in model, beside the others the ports use)
from ..paths import check_agent_id
from ..ports import KeyStore
from .grants import Grant, check_grant

KEY_PREFIX = "spk_"
MAX_LABEL_CHARS = 200
TOUCH_EVERY_MS = 60_000  # a key's last_used_at is refreshed at most once a minute, not on every call


def hash_secret(secret: str) -> str:
    """Keys are 256-bit random secrets, so one SHA-256 is enough to make a stolen table useless."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class ApiKeys:
    def __init__(self, store: KeyStore, clock: Callable[[], int]) -> None:
        self._store = store
        self._clock = clock

    def create(
        self, agent_id: str | None, *, read_only: bool = False, label: str = "", grants: Sequence[Grant] = ()
    ) -> tuple[ApiKey, str]:
        """A new key for the agent (None: an admin key) with its grants on other agents; returns its record and
        the secret, which is shown once."""
        if agent_id is not None:
            check_agent_id(agent_id)
        if len(label) > MAX_LABEL_CHARS:
            raise InvalidInput(f"Invalid label: at most {MAX_LABEL_CHARS} characters are allowed.")
        if any(ord(c) < 32 or ord(c) == 127 for c in label):
            raise InvalidInput("Invalid label: control characters (new lines, tabs, escapes) are not allowed.")
        key_id = secrets.token_hex(6)
        secret = f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
        key = ApiKey(key_id, agent_id, label, read_only, self._clock())
        for grant in grants:
            check_grant(key, grant, "The new key")  # refused before it is made: no id to name
        agents = [g.agent_id for g in grants]
        if len(set(agents)) < len(agents):
            raise InvalidInput("Invalid grants: each agent may be granted once (read or write). Nothing was made.")
        key = dataclasses.replace(key, grants=tuple(grants))
        self._store.add(key, hash_secret(secret))
        return key, secret

    def authenticate(self, secret: str) -> tuple[ApiKey | None, str]:
        """The active key for this secret, or None and why: 'malformed', 'unknown' or 'revoked'."""
        if not secret.startswith(KEY_PREFIX):
            return None, "malformed"
        return self.authenticate_hash(hash_secret(secret))

    def authenticate_hash(self, key_hash: str) -> tuple[ApiKey | None, str]:
        """As authenticate, for a secret known only by its hash (a signed web session holds the hash)."""
        key = self._store.find(key_hash, self._clock())
        if key is None:
            return None, "unknown"
        if key.revoked_at is not None:
            return None, "revoked"
        return key, "ok"

    def list(self) -> list[ApiKey]:
        return self._store.list()

    def grant(self, key_id: str, grant: Grant) -> ApiKey:
        """Give an active key access to another agent (replacing a grant it had there); the key as it is now."""
        check_grant(self._active(key_id), grant)
        self._store.grant(key_id, grant)
        return self._active(key_id)

    def ungrant(self, key_id: str, agent_id: str) -> ApiKey:
        """Take an active key's grant on the agent away; the key as it is now."""
        self._active(key_id)
        if not self._store.ungrant(key_id, agent_id):
            raise NotFound(f"Key {key_id} has no grant on agent {agent_id!r}; nothing was changed.")
        return self._active(key_id)

    def _active(self, key_id: str) -> ApiKey:
        key = self._store.get(key_id)
        if key is None or key.revoked_at is not None:
            raise NotFound(f"No active key with id {key_id!r}. `scratchpad-mcp keys list` shows the keys.")
        return key

    def revoke(self, key_id: str) -> None:
        if not self._store.revoke(key_id, self._clock()):
            raise NotFound(f"No active key with id {key_id!r}. `scratchpad-mcp keys list` shows the keys.")
