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
from sqlalchemy import Update

from scratchpad_adapters.sql import file_repository, usage_repository
from scratchpad_adapters.sql.tables import agents
from scratchpad_core.errors import QuotaExceeded
from scratchpad_core.limits import Limits
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
    store, other = make_store(), make_store()
    store.write_file("a", "f.md", "A")
    fired = commit_between(
        monkeypatch,
        file_repository,
        lambda statement, rows: statement is file_repository._ADVANCE and rows.rowcount == 0,
        lambda: other.write_file("a", "f.md", "B"),
    )

    written = store.write_file("a", "f.md", "A")  # identical to v1 when it started; v2 is "B" when it locks

    assert fired == [1]
    assert (written.version, written.unchanged) == (3, None)
    assert store.read_file("a", "f.md").content == "A"
    assert [v.version for v in store.list_versions("a", "f.md").versions] == [1, 2, 3]


def test_a_quota_refusal_is_decided_on_the_counters_as_they_stand(
    make_store: StoreFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, other = make_store(Limits(quota_files=1)), make_store(Limits(quota_files=1))
    store.write_file("a", "f.md", "F")
    fired = commit_between(
        monkeypatch,
        usage_repository,
        lambda statement, rows: isinstance(statement, Update) and statement.table is agents and rows.rowcount == 0,
        lambda: other.delete_file("a", "f.md"),
        nth=2,  # the guarded UPDATE is tried twice (the agent's row might not exist yet): after the second
    )

    written = store.write_file("a", "g.md", "G")  # over the quota when it started; within it once f.md is gone

    assert fired == [1]
    assert written.version == 1
    assert [f.path for f in store.list_files("a").files] == ["g.md"]
    assert store.get_usage_stats("a").file_count == 1
    with pytest.raises(QuotaExceeded):  # and a real breach is still refused
        other.write_file("a", "h.md", "H")
