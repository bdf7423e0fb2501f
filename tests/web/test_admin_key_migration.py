"""Migration 0006 (admin keys) on SQLite and Postgres: an agent's keys keep their agent both ways; an admin key
(no agent) is possible after it, and goes on the way down, where the older schema has no place for it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, select

from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.repositories.keys import SqlKeyStore
from scratchpad_adapters.sql.schema import migrate
from scratchpad_adapters.sql.schema.tables import api_keys
from scratchpad_core.access.keys import ApiKeys
from scratchpad_core.usecases.base import wall_clock_ms

pytestmark = pytest.mark.postgres


@pytest.fixture
def engine(empty_url: str) -> Iterator[Engine]:
    engine = make_engine(empty_url)
    yield engine
    engine.dispose()


def rows(engine: Engine) -> dict[str, str | None]:
    with engine.connect() as connection:
        return {r.label: r.agent_id for r in connection.execute(select(api_keys.c.label, api_keys.c.agent_id))}


def test_admin_keys_come_with_0006_and_go_with_it(engine: Engine) -> None:
    keys = ApiKeys(SqlKeyStore(engine), wall_clock_ms)
    migrate.upgrade(engine, "0005")
    agent_key, agent_secret = keys.create("research-bot", label="before")
    with pytest.raises(Exception, match=r"(?i)null"):  # before 0006 a key must name its agent
        keys.create(None, label="too early")
    migrate.upgrade(engine, "0006")
    assert rows(engine) == {"before": "research-bot"}
    admin, admin_secret = keys.create(None, label="admin")
    assert rows(engine) == {"before": "research-bot", "admin": None}
    assert admin.agent_id is None

    migrate.downgrade(engine, "0005")
    assert rows(engine) == {"before": "research-bot"}  # the admin key is gone, the agent's kept
    migrate.upgrade(engine)  # the key store of this release reads grants too (0009)
    assert migrate.current_revision(engine) == migrate.head_revision()
    assert keys.authenticate(admin_secret)[1] == "unknown"
    assert keys.authenticate(agent_secret)[0] == agent_key
