"""Inspection cannot write, even by mistake: the database refuses a write on its connections."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from scratchpad_core.errors import ScratchpadError
from scratchpad_core.service import Scratchpad
from scratchpad_mcp.cli.inspect_store import inspecting
from scratchpad_mcp.cli.invocation import Invocation


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
