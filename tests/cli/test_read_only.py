"""Inspection cannot write, even by mistake: the database refuses a write on its connections."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.schema.tables import FILES_PENDING
from scratchpad_core.errors import ScratchpadError
from scratchpad_core.service import Scratchpad
from scratchpad_mcp.cli.inspect_store import inspecting
from scratchpad_mcp.cli.invocation import Invocation
from tests.cli.conftest import Done


def test_a_write_through_an_inspection_is_refused_by_the_database(url: str, filled: Scratchpad) -> None:
    invocation = Invocation()
    invocation.option = url
    with inspecting(invocation) as inspection:
        with pytest.raises((DBAPIError, ScratchpadError)):
            inspection.store.write_file("alice", "sneaky.md", "should not land")
        with pytest.raises((DBAPIError, ScratchpadError)), inspection.activity._engine.connect() as connection:
            connection.execute(text("DELETE FROM files"))
            connection.commit()
        assert inspection.store.read_file("alice", "notes.txt").current_version == 1
    assert [f.path for f in filled.list_files("alice").files] == ["notes.txt", "plans/plan.md"]


def test_the_search_command_finds_what_waits_in_the_index_backlog_and_writes_nothing(
    url: str, filled: Scratchpad, inspect: Callable[..., Done]
) -> None:
    """The store's writes left the index a backlog (no search ran); the command, which may not write, searches
    through an overlay of it: it finds the new words, not the replaced ones, and the backlog is still there."""
    filled.write_file("alice", "notes.txt", "the zeppelin lands on friday\n")
    filled.append_log("alice", "runs/today.log", "a zeppelin was seen")
    found = inspect("search", "-a", "alice", "zeppelin")
    assert found.code == 0, found.err
    assert "notes.txt" in found.out and "runs/today.log" in found.out, found.out
    assert "alert" not in inspect("search", "-a", "alice", "alert").out  # the note's old text is gone
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            waiting = connection.execute(text(f"SELECT count(*) FROM files WHERE {FILES_PENDING.text}")).scalar()
    finally:
        engine.dispose()
    assert waiting == 3  # the command caught nothing up: alice's two files and bob's still wait
