"""A refused conditional UPDATE decides on the locked row: a commit that lands between the two is not an error.

Under READ COMMITTED (Postgres) another writer may commit after a write's conditional UPDATE matched no row
and before the repository locks the row to say why. The write must then go ahead (or be refused for the
reason the locked row gives), never fail inside the server.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Update, update

from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.repositories import file_repository, usage_repository
from scratchpad_adapters.sql.schema.tables import agents
from scratchpad_core.limits import Limits
from scratchpad_core.model import UsageDelta
from tests.conftest import StoreFactory

pytestmark = pytest.mark.parametrize("database_url", ["postgres"], indirect=True)


def commit_between(
    monkeypatch: pytest.MonkeyPatch,
    module: Any,
    refused: Callable[[Any, Any], bool],
    other: Callable[[], object],
    nth: int = 1,
) -> list[int]:
    """After the nth statement of `module` that `refused` matches, run `other` on its own connection, to the end."""
    real = module.run
    seen: list[int] = []
    fired: list[int] = []

    def run(connection: Any, statement: Any, params: Any) -> Any:
        rows = real(connection, statement, params)
        if not fired and refused(statement, rows):
            seen.append(1)
            if len(seen) == nth:
                fired.append(1)
                worker = threading.Thread(target=other)
                worker.start()
                worker.join(timeout=30)
        return rows

    monkeypatch.setattr(module, "run", run)
    return fired


def test_a_write_refused_as_unchanged_goes_ahead_when_another_commits_meanwhile(
    make_store: StoreFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Since read_changes (issue 31) a write takes its agent's change number first, holding the agent's counters
    row to its commit: another writer of the agent now waits for this one instead of committing in between, and
    goes ahead after it."""
    store, other = make_store(), make_store()
    store.write_file("a", "f.md", "A")
    waiting: list[threading.Thread] = []

    def other_writes() -> None:
        thread = threading.Thread(target=other.write_file, args=("a", "f.md", "B"))
        thread.start()
        waiting.append(thread)

    fired = commit_between(
        monkeypatch,
        file_repository,
        lambda statement, rows: statement is file_repository._ADVANCE and rows.rowcount == 0,
        other_writes,
    )

    written = store.write_file("a", "f.md", "A")  # identical to v1: unchanged; the other writer waited meanwhile
    waiting[0].join()

    assert fired == [1]
    assert (written.version, written.unchanged) == (1, True)
    assert store.read_file("a", "f.md").content == "B"
    assert [v.version for v in store.list_versions("a", "f.md").versions] == [1, 2]


def test_a_quota_refusal_is_decided_on_the_counters_as_they_stand(
    make_store: StoreFactory, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The counters' own rule, at the repository: writers of one agent now meet first on its search index's
    counters (locked before the usage row), so a store's own delete can no longer land between; another
    transaction that frees a file can, and the locked row then decides."""
    make_store(Limits(quota_files=1)).write_file("a", "f.md", "F")
    limits, grow = Limits(quota_files=1), UsageDelta(files=1)
    engine = make_engine(database_url)

    def free_a_file() -> None:
        with engine.begin() as connection:
            connection.execute(update(agents).where(agents.c.agent_id == "a").values(files=agents.c.files - 1))

    fired = commit_between(
        monkeypatch,
        usage_repository,
        lambda statement, rows: isinstance(statement, Update) and statement.table is agents and rows.rowcount == 0,
        free_a_file,
        nth=2,  # the guarded UPDATE is tried twice (the agent's row might not exist yet): after the second
    )
    with engine.begin() as connection:  # over the quota when it started; within it once the other commits
        assert usage_repository.SqlUsageRepository(connection).apply("a", grow, limits) is None
    assert fired == [1]
    with engine.begin() as connection:  # and a real breach is still refused, naming the counters it saw
        breach = usage_repository.SqlUsageRepository(connection).apply("a", grow, limits)
        assert breach is not None and breach.usage.files == 1
    engine.dispose()
