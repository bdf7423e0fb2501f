"""A store indexed by the release before `_` separated words (1f37598, schema 0010), upgraded: migration 0011 gives
the rows whose text holds `_` their terms anew (and only those), the agents' statistics follow, `db check` holds,
and a search finds sk_live_4242 by `live` as by the whole token."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from scratchpad_adapters import open_store
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.integrity.checking import check
from scratchpad_adapters.sql.schema import migrate
from scratchpad_adapters.sql.schema.tables import search_rows
from scratchpad_core.limits import Limits
from tests.contract.test_search_upgrade import release_sources, run_previous

BEFORE = "1f37598"  # the last release whose words held `_` (\w+); its schema is at 0010
A, B = "agent-a", "agent-b"


@pytest.fixture(scope="module")
def before_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return release_sources(BEFORE, tmp_path_factory.mktemp("before-underscore"))


@pytest.fixture
def engine(empty_url: str, before_release: Path) -> Iterator[Engine]:
    """A database (SQLite, PostgreSQL) that the release before wrote to, its index built with `_` in words."""
    run_previous(before_release, empty_url, """
        store.write_file("agent-a", "keys.md", "intro\\nkey = sk_live_4242\\nwe live here\\nsk and 4242 apart\\n")
        store.write_file("agent-a", "code.py", "def my_function(snake_case):\\n    return snake_case\\n")
        store.write_file("agent-a", "plain.md", "nothing to split here\\nthe live wire\\n")
        store.write_file("agent-a", "wide.md", "full＿width＿low＿line\\n")
        store.append_log("agent-a", "run.log", "rotated sk_live_4242 today")
        store.append_log("agent-a", "run.log", "a plain entry")
        store.write_file("agent-b", "b.md", "the_other agent's the_thing\\n")
    """, upgrade=True)  # fmt: skip
    opened = make_engine(empty_url)
    yield opened
    opened.dispose()


def terms_by_row(engine: Engine) -> dict[int, tuple[str, str]]:
    with engine.connect() as connection:
        rows = connection.execute(select(search_rows.c.id, search_rows.c.text, search_rows.c.terms)).all()
    return {row.id: (row.text, str(row.terms)) for row in rows}


def test_the_upgrade_splits_underscore_words_of_the_rows_holding_them_only(
    engine: Engine, empty_url: str, capfd: pytest.CaptureFixture[str]
) -> None:
    assert migrate.current_revision(engine) == "0010"
    before = terms_by_row(engine)
    capfd.readouterr()

    migrate.upgrade(engine)

    assert "search index: 6 rows holding '_' split into words anew, for 2 agents" in capfd.readouterr().err
    after = terms_by_row(engine)
    assert after.keys() == before.keys()
    changed = {row for row in before if before[row] != after[row]}
    holding = {row for row, (text, _) in before.items() if "_" in text or "＿" in text}
    assert changed == holding and len(changed) == 6
    result = check(engine, Limits())
    assert result.ok, result.lines()
    with open_store(empty_url) as store:
        found = store.search_files(A, "live").matches
        assert {m.path for m in found if "sk_live_4242" in m.text} == {"keys.md", "run.log"}
        assert "sk_live_4242" in store.search_files(A, "sk_live_4242").matches[0].text
        assert [m.path for m in store.search_files(A, "width").matches] == ["wide.md"]
        assert [m.path for m in store.search_files(A, "snake").matches] == ["code.py"]
        assert [m.path for m in store.search_files(B, "thing").matches] == ["b.md"]


def test_an_upgraded_store_ranks_as_one_indexed_by_this_release(engine: Engine, empty_url: str) -> None:
    """The statistics after the upgrade are those of a store that indexed the same text under today's rule: the
    same scores, so the same replies."""
    migrate.upgrade(engine)
    queries = ("sk live 4242 snake", "the live wire", "width line", "my function case", "plain entry")
    with open_store(empty_url) as upgraded, open_store(f"memory://fresh-{uuid.uuid4().hex}") as fresh:
        for agent in (A, B):
            for path in upgraded.list_files(agent).files:
                fresh.write_file(agent, path.path, upgraded.read_file(agent, path.path).content or "")
        for entry in upgraded.read_log(A, "run.log").entries:
            fresh.append_log(A, "run.log", entry.entry)
        for query in queries:
            assert upgraded.search_files(A, query, max_results=20) == fresh.search_files(A, query, max_results=20)
