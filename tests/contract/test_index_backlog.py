"""The index's backlog (issue 29): a write changes its row only, and the next search reflects it, whatever the
change (write, edit, insert, append, delete, rename, restore, retention's drop, redaction), on every backend and
through every searcher: the writing store (which catches the backlog up), a viewer's store (which may not write:
an overlay of the backlog), and a store whose database refuses writes (the command line's inspection). The
oracle is a fresh store holding the same files and live entries, indexed from nothing."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import text

from scratchpad_adapters import memory, open_store
from scratchpad_adapters.factory import Backend, open_backend
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.connection.read_only import refuse_writes
from scratchpad_adapters.sql.integrity.checking import check
from scratchpad_adapters.sql.schema.tables import LOGS_PENDING
from scratchpad_adapters.sql.search.reads import CLAIM_KEY
from scratchpad_adapters.viewing import viewing_store
from scratchpad_core.limits import Limits
from scratchpad_core.results import SearchResult
from scratchpad_core.service import Scratchpad
from tests.conftest import SQL_ONLY

A, B = "agent-a", "agent-b"
QUERIES = ("deploy", "postgres friday", "secret token", "monday", "rollback plan", "the api")
Seen = list[tuple[str, int | None, str]]


def seen(result: SearchResult) -> Seen:
    """What a reader sees of a result (a log's entry ids differ in the oracle: a fresh log starts at 1)."""
    return [(m.path, m.line, m.text) for m in result.matches]


def oracle(store: Scratchpad, agent: str) -> dict[str, Seen]:
    """The results of a store holding the agent's files and live log entries, indexed from nothing."""
    with open_store(f"memory://oracle-{uuid.uuid4().hex}") as fresh:
        for info in store.list_files(agent).files:
            fresh.write_file(agent, info.path, store.read_file(agent, info.path).content or "")
        for log in store.list_logs(agent).logs:
            for entry in store.read_log(agent, log.path).entries:
                fresh.append_log(agent, log.path, entry.entry)
        return {q: seen(fresh.search_files(agent, q)) for q in QUERIES}


@pytest.fixture
def searchers(database_url: str, store: Scratchpad) -> Iterator[dict[str, Scratchpad]]:
    """The store itself, a viewer's store on its database, and (SQL) a viewer's store whose database refuses
    writes, as `scratchpad-mcp search` opens one."""
    opened: list[Backend] = [open_backend(database_url)]
    found = {"viewer": viewing_store(opened[0])}
    if not memory.is_memory_url(database_url):
        opened.append(open_backend(database_url, upgrade=False))
        refuse_writes(opened[-1].engine)  # type: ignore[attr-defined]
        found["read-only"] = viewing_store(opened[-1])
    yield found | {"store": store}  # the store last: it catches the backlog up
    for backend in opened:
        backend.close()


def db_check(database_url: str) -> tuple[set[str], bool]:
    """The rules `db check` finds broken, and whether it notes a backlog (memory: nothing to check)."""
    if memory.is_memory_url(database_url):
        return set(), False
    engine = make_engine(database_url)
    try:
        report = check(engine, Limits())
        return set(report.counts), any("backlog" in note for note in report.notes)
    finally:
        engine.dispose()


STEPS: list[tuple[str, Callable[[Scratchpad], object]]] = [
    ("write", lambda s: s.write_file(A, "notes.md", "intro\nWe deploy the API to Postgres on friday\noutro\n")),
    (
        "more writes",
        lambda s: [s.write_file(A, f"docs/{n}.md", f"page {n}\nthe rollback plan {n}\n") for n in range(4)],
    ),
    ("edit", lambda s: s.edit_file(A, "notes.md", "Postgres", "SQLite")),
    ("insert", lambda s: s.insert_lines(A, "notes.md", 1, "a secret token here\nmonday deploy\n")),
    ("move lines", lambda s: s.write_file(A, "notes.md", "outro\nmonday deploy\nintro\na secret token here\n")),
    ("append", lambda s: [s.append_log(A, "runs/a.log", f"deploy {n} on monday") for n in range(5)]),
    ("retention", lambda s: s.set_retention(A, logs="runs/", keep_entries=2)),
    ("retention drops", lambda s: s.append_log(A, "runs/a.log", "rollback after the deploy")),
    ("redact an entry", lambda s: s.redact_entry(A, "runs/a.log", 6, by="ops")),
    ("redact a file", lambda s: s.redact_text(A, "notes.md", "secret token", by="ops")),
    ("rename", lambda s: s.rename_file(A, "docs/1.md", "archive/1.md")),
    ("rename a prefix", lambda s: s.rename_prefix(A, "docs/", "pages/")),
    ("restore", lambda s: s.restore_version(A, "notes.md", 1)),
    ("delete", lambda s: s.delete_file(A, "archive/1.md")),
    ("delete a log", lambda s: s.delete_log(A, "runs/a.log")),
    ("the log back", lambda s: s.append_log(A, "runs/a.log", "the api is back on monday")),
    ("delete a prefix", lambda s: s.delete_prefix(A, "pages/")),
    ("write again", lambda s: s.write_file(A, "pages/0.md", "deploy the rollback plan on friday\n")),
]


def test_every_search_reflects_every_acknowledged_change(
    store: Scratchpad, searchers: dict[str, Scratchpad], database_url: str
) -> None:
    sql = not memory.is_memory_url(database_url)
    for n in range(3):  # another agent's backlog: no search of A's touches it
        store.append_log(B, "b.log", f"deploy {n} of agent b")
    for name, step in STEPS:
        step(store)
        want = oracle(store, A)
        assert db_check(database_url) == (set(), sql), name  # the step's change waits in the backlog
        for who, searcher in searchers.items():
            for query in QUERIES:
                assert seen(searcher.search_files(A, query)) == want[query], (name, who, query)
        assert db_check(database_url) == (set(), sql), name  # B's appends still wait: A's searches left them
    assert seen(store.search_files(B, "deploy")) == oracle(store, B)["deploy"]
    assert db_check(database_url) == (set(), False)


@SQL_ONLY
def test_a_search_catches_up_its_own_agents_backlog_only(store: Scratchpad, database_url: str) -> None:
    store.append_log(B, "b.log", "deploy of agent b")
    store.write_file(B, "b.md", "deploy notes of agent b\n")
    store.search_files(B, "deploy")  # B's index holds both
    store.append_log(B, "b.log", "another deploy of agent b")  # B's backlog: one append
    store.write_file(A, "a.md", "deploy of agent a\n")
    store.append_log(A, "a.log", "deploy of agent a")
    store.search_files(A, "deploy")
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            held = connection.execute(text("SELECT agent_id, first_entry, last_entry FROM search_logs")).all()
            pending = connection.execute(text(f"SELECT agent_id FROM logs WHERE {LOGS_PENDING.text}")).all()
    finally:
        engine.dispose()
    assert sorted(map(tuple, held)) == [(A, 1, 1), (B, 1, 1)]
    assert [tuple(row) for row in pending] == [(B,)]


def test_the_background_pass_catches_every_agents_backlog_up_a_bounded_batch_at_a_time(
    store: Scratchpad, database_url: str
) -> None:
    for agent in (A, B):
        for n in range(3):
            store.write_file(agent, f"f{n}.md", f"deploy {n} of {agent}\n")
        store.append_log(agent, "run.log", f"deploy of {agent}")
    assert store.catch_up_index(2) == 2  # at most the batch it is given
    while store.catch_up_index(3):
        pass
    assert db_check(database_url) == (set(), False)  # no backlog left, and the index is what the rows hold
    for agent in (A, B):
        assert seen(store.search_files(agent, "deploy")) == oracle(store, agent)["deploy"]


@pytest.mark.parametrize("database_url", ["postgres"], indirect=True)
def test_a_replicas_pass_leaves_an_agent_another_is_catching_up(store: Scratchpad, database_url: str) -> None:
    store.write_file(A, "a.md", "deploy of a\n")
    store.write_file(B, "b.md", "deploy of b\n")
    engine = make_engine(database_url)
    try:
        with engine.connect() as other, other.begin():  # another replica's pass, at A's backlog
            claim = text(f"SELECT pg_try_advisory_xact_lock({CLAIM_KEY}, hashtext(:agent))")
            assert other.execute(claim, {"agent": A}).scalar() is True
            assert store.catch_up_index() == 1  # B's file only
            assert seen(store.search_files(A, "deploy")) == [("a.md", 1, "deploy of a")]  # a search waits for none
        assert store.catch_up_index() == 0
    finally:
        engine.dispose()
    assert db_check(database_url) == (set(), False)


@pytest.mark.parametrize("current_holds_it", [True, False])
def test_a_redaction_while_the_index_lags_leaves_no_trace_of_the_text(
    store: Scratchpad, database_url: str, current_holds_it: bool
) -> None:
    """The index still reflects version 1 (a backlog) when versions holding the text are redacted in place: the
    redaction indexes the file from the text the index held, so neither a search nor a later catch-up (which
    would diff from the redacted version) keeps the words."""
    store.write_file(A, "keys.md", "intro\nthe password is hunter2 today\noutro\n")
    assert [m.path for m in store.search_files(A, "hunter2").matches] == ["keys.md"]
    second = "intro\nthe password is hunter2 today\nmore\noutro\n" if current_holds_it else "intro\nnothing\noutro\n"
    store.write_file(A, "keys.md", second)  # in the backlog
    store.redact_text(A, "keys.md", "hunter2", by="ops")
    assert store.search_files(A, "hunter2").matches == []
    store.write_file(A, "keys.md", "intro\nfinal words\noutro\n")  # a catch-up from here must stay right
    assert [m.path for m in store.search_files(A, "final").matches] == ["keys.md"]
    assert store.search_files(A, "hunter2").matches == []
    assert db_check(database_url) == (set(), False)
