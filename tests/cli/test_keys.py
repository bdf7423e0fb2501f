"""`keys` grants on the command line: create with --grant, grant, ungrant, and list (table and --json)."""

from __future__ import annotations

import json
from collections.abc import Callable

from tests.cli.conftest import Done

Run = Callable[..., Done]


def created(inspect: Run, *args: str) -> str:
    """The id of a key made with these options (the secret is on stdout, the record on stderr)."""
    done = inspect("keys", "create", *args)
    assert done.code == 0, done.err
    secret = done.out.strip()
    assert secret.startswith("spk_")
    return secret.split("_")[1]


def listed(inspect: Run) -> dict[str, dict[str, object]]:
    done = inspect("keys", "list", "--json")
    assert done.code == 0, done.err
    return {row["id"]: row for row in map(json.loads, done.out.splitlines())}


def test_a_key_is_made_with_grants_and_keys_list_shows_them(inspect: Run) -> None:
    done = inspect(
        "keys", "create", "--agent", "worker-1", "--grant", "team-plan:write", "--grant", "handbook:read",
        "--label", "worker one",
    )  # fmt: skip
    assert done.code == 0, done.err
    key_id = done.out.strip().split("_")[1]
    assert f"key {key_id} for agent worker-1 (read-write; grants team-plan:write,handbook:read)" in done.err
    reviewer = created(inspect, "--agent", "reviewer", "--read-only")
    rows = listed(inspect)
    assert rows[key_id]["grants"] == [
        {"agent": "handbook", "access": "read"},
        {"agent": "team-plan", "access": "write"},
    ]
    assert rows[key_id]["agent"] == "worker-1" and rows[key_id]["read_only"] is False
    assert rows[key_id]["label"] == "worker one"
    assert rows[reviewer]["grants"] == []
    table = inspect("keys", "list").out.splitlines()
    assert table[0].split()[-2:] == ["grants", "label"]
    line = next(row for row in table if row.startswith(key_id))
    assert "handbook:read,team-plan:write" in line and line.endswith("worker one")
    assert "secret" not in done.out and all("spk_" not in row for row in table)


def test_grant_and_ungrant_change_a_key_at_once(inspect: Run) -> None:
    key_id = created(inspect, "--agent", "worker-1")
    done = inspect("keys", "grant", key_id, "team-findings", "--read")
    assert (done.code, done.out.strip()) == (0, f"key {key_id} may now read agent team-findings; its grants: "
                                                "team-findings:read")  # fmt: skip
    assert listed(inspect)[key_id]["grants"] == [{"agent": "team-findings", "access": "read"}]
    assert inspect("keys", "grant", key_id, "team-findings", "--write").code == 0  # in place of the read grant
    assert listed(inspect)[key_id]["grants"] == [{"agent": "team-findings", "access": "write"}]
    done = inspect("keys", "ungrant", key_id, "team-findings")
    assert (done.code, done.out.strip()) == (0, f"key {key_id} may no longer use agent team-findings; its grants: -")
    assert listed(inspect)[key_id]["grants"] == []


def test_refused_grants_say_why_and_change_nothing(inspect: Run) -> None:
    reader = created(inspect, "--agent", "reviewer", "--read-only", "--grant", "handbook:read")
    before = listed(inspect)
    done = inspect("keys", "grant", reader, "team-plan", "--write")
    assert done.code == 1
    refusal = f"Key {reader} is read-only: it cannot receive a write grant. Grant --read, or make a read-write key."
    assert done.error == f"scratchpad-mcp: {refusal}"
    done = inspect("keys", "create", "--agent", "reviewer", "--read-only", "--grant", "team-plan:write")
    assert done.code == 1 and done.error == f"scratchpad-mcp: {refusal.replace(f'Key {reader}', 'The new key')}"
    done = inspect("keys", "ungrant", reader, "team-plan")
    assert (
        done.code == 1
        and done.error == f"scratchpad-mcp: Key {reader} has no grant on agent 'team-plan'; nothing was changed."
    )
    done = inspect("keys", "grant", reader, "team-plan")
    assert done.code == 2 and "give exactly one of --read or --write" in done.err
    done = inspect("keys", "grant", reader, "team-plan", "--read", "--write")
    assert done.code == 2 and "give exactly one of --read or --write" in done.err
    done = inspect("keys", "create", "--agent", "w", "--grant", "team-plan")
    assert done.code == 1 and "write AGENT:read or AGENT:write" in done.err
    done = inspect("keys", "create", "--admin", "--grant", "team-plan:read")
    assert done.code == 2 and "admin key already sees every agent" in done.err
    done = inspect("keys", "grant", "nope", "team-plan", "--read")
    assert done.code == 1 and "No active key with id 'nope'" in done.error
    assert listed(inspect) == before
