"""The access rule of agent teams: a key's own agent, its grants, and what a refusal says."""

from __future__ import annotations

import pytest

from scratchpad_core.access.grants import Access, Grant, access_to, check_grant, parse_grant, refusal, spaces
from scratchpad_core.actors import caller_of, key_actor
from scratchpad_core.errors import InvalidAgentId, InvalidInput
from scratchpad_core.model import ApiKey
from scratchpad_core.results import Space


def key(agent: str | None = "worker-1", *, read_only: bool = False, grants: tuple[Grant, ...] = ()) -> ApiKey:
    return ApiKey("abc123", agent, "", read_only, 0, grants=grants)


PLAN_WRITE = Grant("team-plan", Access.WRITE)
HANDBOOK_READ = Grant("handbook", Access.READ)


def test_a_key_uses_its_own_agent_by_its_mode_and_others_by_their_grant() -> None:
    k = key(grants=(PLAN_WRITE, HANDBOOK_READ))
    assert access_to(k, "worker-1") is Access.WRITE
    assert access_to(key(read_only=True), "worker-1") is Access.READ
    assert access_to(k, "team-plan") is Access.WRITE
    assert access_to(k, "handbook") is Access.READ
    assert access_to(k, "worker-2") is None
    assert access_to(key(None), "worker-1") is None  # an admin key calls no tools


def test_write_includes_read_and_nothing_else_is_allowed() -> None:
    k = key(grants=(PLAN_WRITE, HANDBOOK_READ))
    for agent in ("worker-1", "team-plan"):
        assert refusal(k, agent, writes=False) is None
        assert refusal(k, agent, writes=True) is None
    assert refusal(k, "handbook", writes=False) is None
    assert refusal(k, "handbook", writes=True) == (
        "API key abc123 has only a read grant on agent handbook and this tool changes data; nothing was run. "
        "An operator allows it with `scratchpad-mcp keys grant abc123 handbook --write`."
    )
    assert refusal(k, "worker-2", writes=False) == (
        "API key abc123 (agent worker-1) has no grant on agent worker-2; nothing was run. "
        "An operator allows it with `scratchpad-mcp keys grant abc123 worker-2 --read`."
    )


def test_a_read_only_key_is_told_a_grant_cannot_make_it_write() -> None:
    k = key(read_only=True, grants=(HANDBOOK_READ,))
    assert refusal(k, "worker-1", writes=True) == (
        "This API key is read-only; this tool changes data. Use a read-write key."
    )
    message = refusal(k, "handbook", writes=True)
    assert message is not None and message.endswith("A read-write key with a write grant on handbook would allow it.")


def test_grants_are_checked_before_a_key_holds_them() -> None:
    assert check_grant(key(read_only=True), HANDBOOK_READ) == HANDBOOK_READ
    with pytest.raises(InvalidInput, match="read-only: it cannot receive a write grant"):
        check_grant(key(read_only=True), PLAN_WRITE)
    with pytest.raises(InvalidInput, match="acts for agent worker-1 already"):
        check_grant(key(), Grant("worker-1", Access.READ))
    with pytest.raises(InvalidInput, match="admin key"):
        check_grant(key(None), HANDBOOK_READ)
    with pytest.raises(InvalidAgentId):
        check_grant(key(), Grant("bad agent", Access.READ))


def test_a_grant_is_written_agent_colon_access() -> None:
    assert parse_grant("team-plan:write") == PLAN_WRITE
    assert parse_grant("handbook:read") == HANDBOOK_READ
    for bad in ("team-plan", "team-plan:admin", ":read", "a b:read"):
        with pytest.raises(InvalidInput):
            parse_grant(bad)


def test_spaces_list_the_own_agent_first_then_the_grants_by_name() -> None:
    assert spaces(key(grants=(PLAN_WRITE, HANDBOOK_READ))) == [
        Space("worker-1", "write"),
        Space("handbook", "read"),
        Space("team-plan", "write"),
    ]
    assert spaces(key(read_only=True)) == [Space("worker-1", "read")]


def test_request_ids_are_scoped_to_the_key_that_sent_them() -> None:
    assert caller_of(key_actor("abc123", "worker one")) == "abc123"
    assert caller_of(key_actor("abc123", "")) == "abc123"
    assert caller_of("stdio") == caller_of("library") == ""
