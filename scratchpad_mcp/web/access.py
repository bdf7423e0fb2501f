"""Who is looking: the single local user (every agent), or a person signed in with an API key (an admin key:
every agent; an agent's key: its agent and those it has a grant on, scratchpad_core.access.grants; read-only, as
always).

A key becomes a session cookie holding the key's hash, an expiry and an HMAC over both, never the key
itself. Every request checks the signature and then the key (a revoked key's session ends on its next
request); a key stolen from the table alone cannot make a cookie without the signing secret.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from scratchpad_core.access.grants import spaces
from scratchpad_core.access.keys import ApiKey, ApiKeys, hash_secret
from scratchpad_core.errors import AccessDenied

COOKIE = "scratchpad_session"
SESSION_MS = 12 * 3600 * 1000


@dataclass(frozen=True)
class Viewer:
    """agent_id None: every agent (the local user, or an admin key); else the key's agent, then the agents it has
    a grant on (`visible`, its own first)."""

    agent_id: str | None
    name: str
    signed_in: bool = False
    visible: tuple[str, ...] = ()

    def sees(self, agent_id: str) -> bool:
        return self.agent_id is None or agent_id in self.visible

    def check(self, agent_id: str) -> None:
        if not self.sees(agent_id):
            raise AccessDenied(
                f"This key belongs to agent {self.agent_id!r} and cannot see agent {agent_id!r} "
                "(it has no grant on it)."
            )


LOCAL = Viewer(None, "local")


def viewer_of_key(key: ApiKey) -> Viewer:
    label = f" ({key.label})" if key.label else ""
    who = f"admin key {key.id}" if key.agent_id is None else f"key {key.id} of {key.agent_id}"
    return Viewer(key.agent_id, who + label, signed_in=True, visible=tuple(s.agent for s in spaces(key)))


class Sessions:
    """Sign-in with an API key, and the signed cookie that carries it between requests."""

    def __init__(self, keys: ApiKeys, clock: Callable[[], int], secret: bytes | None = None) -> None:
        self._keys = keys
        self._clock = clock
        self._secret = secret or secrets.token_bytes(32)

    def sign_in(self, secret: str) -> tuple[Viewer, str] | str:
        """The viewer and the cookie value for a key, or why it was refused."""
        key, reason = self._keys.authenticate(secret.strip())
        if key is None:
            return REFUSALS.get(reason, REFUSALS["unknown"])
        return viewer_of_key(key), self._cookie(hash_secret(secret.strip()))

    def viewer(self, cookie: str | None) -> Viewer | None:
        """The signed-in viewer of a cookie, or None (no cookie, a bad signature, expired, or the key revoked)."""
        if not cookie or cookie.count(".") != 2:
            return None
        key_hash, expires, signature = cookie.split(".")
        if not hmac.compare_digest(signature, self._sign(key_hash, expires)):
            return None
        if not expires.isdigit() or int(expires) < self._clock():
            return None
        key, _ = self._keys.authenticate_hash(key_hash)
        return None if key is None else viewer_of_key(key)

    def _cookie(self, key_hash: str) -> str:
        expires = str(self._clock() + SESSION_MS)
        return f"{key_hash}.{expires}.{self._sign(key_hash, expires)}"

    def _sign(self, key_hash: str, expires: str) -> str:
        return hmac.new(self._secret, f"{key_hash}.{expires}".encode(), hashlib.sha256).hexdigest()


REFUSALS = {
    "malformed": "That is not a scratchpad API key (they start with spk_). Paste the key an operator gave you.",
    "unknown": "This key is not known to this server. Check it, or ask an operator for a key.",
    "revoked": "This key has been revoked. Ask an operator for a new one.",
}
