"""Agent teams in storage: a key's grants are kept with it, read afresh on every request (so a change holds at
once on every replica), and request_ids belong to the key that sent them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import insert, inspect, select, text

from scratchpad_adapters import open_backend
from scratchpad_adapters.factory import Backend
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.schema import migrate
from scratchpad_adapters.sql.schema.tables import request_ids
from scratchpad_core.access.grants import Access, Grant, parse_grant
from scratchpad_core.actors import key_actor
from scratchpad_core.errors import InvalidInput, NotFound

PLAN_WRITE = Grant("team-plan", Access.WRITE)
HANDBOOK_READ = Grant("handbook", Access.READ)


@pytest.fixture
def replicas(database_url: str) -> Iterator[tuple[Backend, Backend]]:
    """Two backends on one database, as two replicas would open it."""
    a, b = open_backend(database_url), open_backend(database_url)
    yield a, b
    a.close()
    b.close()


def test_a_key_is_made_with_its_grants_and_every_replica_reads_them(replicas: tuple[Backend, Backend]) -> None:
    a, b = replicas
    key, secret = a.keys.create("worker-1", grants=[parse_grant("team-plan:write"), parse_grant("handbook:read")])
    assert key.grants == (PLAN_WRITE, HANDBOOK_READ)
    found, reason = b.keys.authenticate(secret)
    assert reason == "ok" and found is not None
    assert found.grants == (HANDBOOK_READ, PLAN_WRITE)  # sorted by agent, as stored
    assert [k.grants for k in b.keys.list()] == [(HANDBOOK_READ, PLAN_WRITE)]


def test_a_grant_change_holds_at_once_on_another_replica(replicas: tuple[Backend, Backend]) -> None:
    a, b = replicas
    key, secret = a.keys.create("worker-1")
    assert a.keys.grant(key.id, HANDBOOK_READ).grants == (HANDBOOK_READ,)
    assert b.keys.authenticate(secret)[0].grants == (HANDBOOK_READ,)  # type: ignore[union-attr]
    upgraded = Grant("handbook", Access.WRITE)
    assert a.keys.grant(key.id, upgraded).grants == (upgraded,)  # in place of the read grant
    assert b.keys.authenticate(secret)[0].grants == (upgraded,)  # type: ignore[union-attr]
    assert a.keys.ungrant(key.id, "handbook").grants == ()
    assert b.keys.authenticate(secret)[0].grants == ()  # type: ignore[union-attr]
    with pytest.raises(NotFound, match="has no grant on agent 'handbook'"):
        a.keys.ungrant(key.id, "handbook")


def test_grants_that_break_the_rule_are_refused_and_change_nothing(replicas: tuple[Backend, Backend]) -> None:
    a, _ = replicas
    reader, _ = a.keys.create("reviewer", read_only=True)
    with pytest.raises(InvalidInput, match="read-only: it cannot receive a write grant"):
        a.keys.grant(reader.id, PLAN_WRITE)
    with pytest.raises(InvalidInput, match="read-only: it cannot receive a write grant"):
        a.keys.create("reviewer", read_only=True, grants=[PLAN_WRITE])
    with pytest.raises(InvalidInput, match="each agent may be granted once"):
        a.keys.create("worker-1", grants=[PLAN_WRITE, Grant("team-plan", Access.READ)])
    admin, _ = a.keys.create(None)
    with pytest.raises(InvalidInput, match="admin key"):
        a.keys.grant(admin.id, HANDBOOK_READ)
    with pytest.raises(NotFound, match="No active key"):
        a.keys.grant("nope", HANDBOOK_READ)
    a.keys.revoke(reader.id)
    with pytest.raises(NotFound, match="No active key"):
        a.keys.grant(reader.id, HANDBOOK_READ)
    assert {k.id: k.grants for k in a.keys.list()} == {reader.id: (), admin.id: ()}


def test_request_ids_belong_to_the_key_that_sent_them(replicas: tuple[Backend, Backend]) -> None:
    a, b = replicas
    one, two = key_actor("k1", "worker one"), key_actor("k2", "")
    first = a.store.append_log("team-findings", "log", "found x", request_id="r-1", actor=one)
    other = b.store.append_log("team-findings", "log", "found x", request_id="r-1", actor=two)
    assert (first.entry_id, other.entry_id) == (1, 2)  # two keys, two requests
    assert b.store.append_log("team-findings", "log", "found x", request_id="r-1", actor=one) == first
    assert a.store.append_log("team-findings", "log", "found x", request_id="r-1", actor=two) == other
    written = a.store.write_file("team-plan", "plan.md", "v1", request_id="w", actor=one)
    again = b.store.write_file("team-plan", "plan.md", "v2", request_id="w", actor=two)
    assert (written.version, again.version) == (1, 2)
    with pytest.raises(InvalidInput, match="already names an earlier write_file call"):
        a.store.write_file("team-plan", "plan.md", "v3", request_id="w", actor=one)
    # stdio and the library stay one caller, as before
    assert a.store.delete_file("team-plan", "plan.md", request_id="d") == b.store.delete_file(
        "team-plan", "plan.md", request_id="d", actor="stdio"
    )
    log = a.store.read_log("team-findings", "log", show_by=True)
    assert [(e.id, e.by) for e in log.entries] == [(1, one), (2, two)]


def test_migration_0009_scopes_existing_request_ids_to_no_caller_both_ways(empty_url: str) -> None:
    engine = make_engine(empty_url)
    try:
        migrate.upgrade(engine, "0008")
        row = {"agent_id": "a", "request_id": "r", "seq": 1, "operation": "write_file", "fingerprint": "f" * 64}
        with engine.begin() as c:
            c.execute(text(INSERT), {**row, "result": "{}", "created_at": 1})
        migrate.upgrade(engine)
        with engine.begin() as c:
            assert c.execute(select(request_ids.c.caller, request_ids.c.request_id)).all() == [("", "r")]
            c.execute(insert(request_ids).values(**row, caller="k1", result="{}", created_at=2))
            c.execute(insert(request_ids).values(**row, caller="k2", result="{}", created_at=3))
        migrate.downgrade(engine, "0008")
        with engine.connect() as c:
            assert c.execute(text("SELECT request_id, created_at FROM request_ids")).all() == [("r", 1)]
            assert "key_grants" not in inspect(c).get_table_names()
        migrate.upgrade(engine)
        assert migrate.current_revision(engine) == migrate.head_revision()
    finally:
        engine.dispose()


INSERT = (
    "INSERT INTO request_ids (agent_id, request_id, seq, operation, fingerprint, result, created_at) "
    "VALUES (:agent_id, :request_id, :seq, :operation, :fingerprint, :result, :created_at)"
)
