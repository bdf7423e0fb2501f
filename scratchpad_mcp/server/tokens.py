"""An API key as the SDK's AccessToken carries it through a request: the one place its claims are written
(http.auth's KeyVerifier) and read back (the caller policy, the streams that recheck a key)."""

from __future__ import annotations

from mcp.server.auth.provider import AccessToken

from scratchpad_core.access.grants import Access, Grant
from scratchpad_core.access.keys import ApiKey

READ_SCOPE = "scratchpad:read"
WRITE_SCOPE = "scratchpad:write"


def key_token(token: str, key: ApiKey) -> AccessToken:
    """The token of an agent's key, with its label and grants as they are now (the versions and entries this
    token makes record its label)."""
    scopes = [READ_SCOPE] if key.read_only else [READ_SCOPE, WRITE_SCOPE]
    claims = {"label": key.label, "grants": {g.agent_id: g.access.value for g in key.grants}}
    return AccessToken(token=token, client_id=key.id, scopes=scopes, subject=key.agent_id, claims=claims)


def token_key(token: AccessToken) -> ApiKey:
    """The key a checked token stands for, with its grants as read for this request."""
    claims = token.claims or {}
    grants = tuple(Grant(agent, Access(access)) for agent, access in dict(claims.get("grants", {})).items())
    read_only = WRITE_SCOPE not in token.scopes
    return ApiKey(token.client_id, token.subject, str(claims.get("label", "")), read_only, 0, grants=grants)
