"""API keys over HTTP: the SDK's bearer-token support checks every request; the key names its agent, and its
grants the other agents it may use (scratchpad_core.access.grants), as they are when the request comes."""

from __future__ import annotations

import json
import logging

import anyio
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from scratchpad_core.access.grants import refusal, spaces
from scratchpad_core.access.keys import ApiKeys
from scratchpad_core.actors import UNKNOWN, key_actor
from scratchpad_core.errors import AccessDenied, StorageError, StorageUnavailable
from scratchpad_core.paths import check_agent_id
from scratchpad_core.results import Space

from ..server.calls import KEY_BUDGET
from ..server.tokens import key_token, token_key
from ..settings import Settings
from .metrics import Metrics

log = logging.getLogger("scratchpad.auth")

UNCHECKED = "(unchecked)"  # the client_id of a token whose key could not be checked (the database was down)


def uses_keys(settings: Settings) -> bool:
    """Whether HTTP callers need an API key (which then names their agent)."""
    return settings.auth == "keys"


class KeyVerifier:
    """TokenVerifier for scratchpad API keys (revocation takes effect on the next request, on every replica)."""

    def __init__(self, keys: ApiKeys, metrics: Metrics) -> None:
        self._keys = keys
        self._metrics = metrics

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            key, reason = await anyio.to_thread.run_sync(self._keys.authenticate, token)
        except StorageError as error:
            # The key could not be checked. Failing here would be a bare HTTP 500 (or a 401 that tells a
            # good key it is bad), so the request goes on with a token that KeyedCaller refuses for every
            # tool, with the storage error's retryable message: nothing runs without a checked key.
            log.warning("key not checked: %s", error.message, extra={"event": "auth_unavailable"})
            return AccessToken(token=token, client_id=UNCHECKED, scopes=[], claims={"error": error.message})
        if key is None:
            self._metrics.auth_failure(reason)
            log.warning("auth failure: %s key", reason, extra={"event": "auth_failure", "reason": reason})
            return None
        if key.agent_id is None:  # an admin key: the web view only; KeyedCaller refuses it every tool
            return AccessToken(token=token, client_id=key.id, scopes=[], claims={"admin": True})
        return key_token(token, key)


class KeyedCaller:
    """The agent comes from the caller's key: agent_id may be omitted (the key's own agent) or name an agent the
    key has a grant on (scratchpad_core.access.grants). A refusal is logged and counted as an authorization failure."""

    def __init__(self, metrics: Metrics | None = None) -> None:
        self._metrics = metrics

    def caller(self, requested: str | None) -> str | None:
        token = get_access_token()
        return None if token is None else token.subject

    def budget(self, agent_id: str) -> str:
        """A key's rate limit counts its calls wherever it acts (its own agent or a granted one)."""
        token = get_access_token()
        return agent_id if token is None else f"{KEY_BUDGET}{token.client_id}"

    def agent_for(self, requested: str | None, *, read_only: bool) -> str:
        token = get_access_token()
        if token is not None and token.client_id == UNCHECKED:
            raise StorageUnavailable(str((token.claims or {}).get("error", "The API key could not be checked.")))
        if token is not None and (token.claims or {}).get("admin"):
            raise AccessDenied(ADMIN_KEY_REFUSED)
        if token is None or token.subject is None:
            raise AccessDenied("This call needs an API key (Authorization: Bearer <key>).")
        agent = token.subject if requested is None else check_agent_id(requested)  # the rule first, as on stdio
        refused = refusal(token_key(token), agent, writes=not read_only)
        if refused is not None:
            reason = "read_only" if agent == token.subject else "no_grant"
            if self._metrics is not None:
                self._metrics.auth_failure(reason)
            log.warning(
                "authorization failure: key %s may not %s agent %s", token.client_id,
                "read" if read_only else "write", agent, extra={"event": "auth_failure", "reason": reason},
            )  # fmt: skip
            raise AccessDenied(refused)
        return agent

    def spaces(self) -> list[Space] | None:
        """The agents the key may use and how, its own first."""
        token = get_access_token()
        return None if token is None or token.subject is None else spaces(token_key(token))

    def actor(self) -> str:
        token = get_access_token()
        if token is None:
            return UNKNOWN  # never met: a call without a key is refused before it changes anything
        return key_actor(token.client_id, str((token.claims or {}).get("label", "")))


KEYS_COMMAND = "uv run scratchpad-mcp keys create --agent NAME"
ADMIN_KEY_REFUSED = (
    "This is an admin key: it signs in to the web view at /ui and calls no tools; nothing was run. "
    f"Call tools with an agent's key (`{KEYS_COMMAND}`)."
)
REFUSED_BECAUSE = {
    "missing": "This server needs an API key",
    "malformed": "The Authorization header must be `Bearer <key>`",
    None: "This API key was not accepted (it is unknown or revoked)",  # KeyVerifier checked it
}


def key_required(reason: str | None) -> str:
    """What a 401 says: that a Bearer API key is required, and how an operator makes one."""
    return (
        f"{REFUSED_BECAUSE[reason]}: send Authorization: Bearer <key>, with a key an operator makes with "
        f"`{KEYS_COMMAND}` (it prints the key once)."
    )


class KeyRequired:
    """Every 401 on the way out says plainly, in its body and its WWW-Authenticate header, that a Bearer API key
    is required and how to get one. No OAuth metadata goes with it: no authorization server issues these keys,
    and a client sent to one would start an OAuth flow that cannot succeed. The 401s the SDK gives before any
    key is checked (no Authorization header, or one that is not `Bearer <key>`) are also logged and counted;
    KeyVerifier logs the keys it checks."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self._metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        reason = unchecked_reason(scope)
        replaced = False

        async def reply(message: Message) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start" and message["status"] == 401:
                replaced = True
                if reason is not None:
                    self._metrics.auth_failure(reason)
                    log.warning("auth failure: %s key", reason, extra={"event": "auth_failure", "reason": reason})
                await send_key_required(send, key_required(reason))
            elif not replaced:  # the SDK's own 401 body (an OAuth error) is dropped
                await send(message)

        await self.app(scope, receive, reply)


async def send_key_required(send: Send, message: str) -> None:
    body = json.dumps({"error": "invalid_token", "error_description": message}).encode()
    challenge = f'Bearer realm="scratchpad", error="invalid_token", error_description="{message}"'
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"www-authenticate", challenge.encode()),
    ]
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def unchecked_reason(scope: Scope) -> str | None:
    """Why the SDK will refuse this request without asking KeyVerifier, or None when it will ask (or it is not HTTP)."""
    if scope["type"] != "http":
        return None
    values = [value for name, value in scope["headers"] if name == b"authorization"]
    if not values:
        return "missing"
    return None if values[0].lower().startswith(b"bearer ") else "malformed"
