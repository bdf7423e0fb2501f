"""Agent teams: a key acts for its own agent and may hold grants on other agents' namespaces, each read or
write (write includes read). The one rule deciding whether a key may use an agent lives here; the HTTP policy,
the resources, the web view and `keys` on the command line derive theirs from it.
"""

from __future__ import annotations

from ..errors import InvalidInput
from ..model import Access as Access  # noqa: PLC0414  (the records live in model, beside ApiKey)
from ..model import ApiKey
from ..model import Grant as Grant  # noqa: PLC0414
from ..paths import check_agent_id
from ..results import Space


def _parse_access(value: str) -> Access:
    try:
        return Access(value)
    except ValueError:
        raise InvalidInput(f"Invalid access {value[:32]!r}: use 'read' or 'write'.") from None


def parse_grant(text: str) -> Grant:
    """AGENT:read or AGENT:write, as `keys create --grant` takes it."""
    agent, sep, access = text.rpartition(":")
    if not sep:
        raise InvalidInput(f"Invalid grant {text[:64]!r}: write AGENT:read or AGENT:write, e.g. team-plan:write.")
    return Grant(check_agent_id(agent), _parse_access(access))


def check_grant(key: ApiKey, grant: Grant, who: str | None = None) -> Grant:
    """A grant this key may hold, or the refusal: an admin key holds none, a read-only key no write grant, and a
    key's own agent needs none. `who` names the key in the refusal (a key being made has no id yet)."""
    check_agent_id(grant.agent_id)
    who = who or f"Key {key.id}"
    if key.agent_id is None:
        raise InvalidInput(f"{who} is an admin key: it already sees every agent and calls no tools; no grant.")
    if grant.agent_id == key.agent_id:
        raise InvalidInput(f"{who} acts for agent {key.agent_id} already; a grant is for another agent.")
    if key.read_only and grant.access is Access.WRITE:
        raise InvalidInput(
            f"{who} is read-only: it cannot receive a write grant. Grant --read, or make a read-write key."
        )
    return grant


def access_to(key: ApiKey, agent_id: str) -> Access | None:
    """How the key may use the agent: its own agent by its mode, another by its grant; None: not at all."""
    if key.agent_id is not None and agent_id == key.agent_id:
        return _own(key)
    return next((g.access for g in key.grants if g.agent_id == agent_id), None)


def refusal(key: ApiKey, agent_id: str, *, writes: bool) -> str | None:
    """None when the key may use the agent for a reading (or writing) call; else the one line saying the key's
    access to that agent and what would allow the call."""
    access = access_to(key, agent_id)
    if access is not None and access.allows(writes=writes):
        return None
    if agent_id == key.agent_id:
        return "This API key is read-only; this tool changes data. Use a read-write key."
    if access is None:
        held = f"API key {key.id} (agent {key.agent_id}) has no grant on agent {agent_id}"
    else:
        held = f"API key {key.id} has only a read grant on agent {agent_id} and this tool changes data"
    if writes and key.read_only:
        allow = f"A read-write key with a write grant on {agent_id} would allow it"
    else:
        option = "--write" if writes else "--read"
        allow = f"An operator allows it with `scratchpad-mcp keys grant {key.id} {agent_id} {option}`"
    return f"{held}; nothing was run. {allow}."


def spaces(key: ApiKey) -> list[Space]:
    """Every agent the key may use and how (its own first), as get_usage_stats lists them."""
    own = [] if key.agent_id is None else [Space(key.agent_id, _own(key).value)]
    return own + [Space(g.agent_id, g.access.value) for g in sorted(key.grants, key=lambda g: g.agent_id)]


def _own(key: ApiKey) -> Access:
    return Access.READ if key.read_only else Access.WRITE
