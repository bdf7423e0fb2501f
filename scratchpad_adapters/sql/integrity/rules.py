"""The invariants `db check` verifies, each a query that returns only the rows breaking it.

Every rule is a SQL aggregate (GROUP BY ... HAVING, or an anti-join) computed by the database, so
the check streams the violating rows and never loads a store. A query carries one flag column per
rule it decides (CASE WHEN <rule broken> THEN 1), so each rule is stated once, in SQL, and the
Python side only names it. What the rows mean (tables.py, alembic 0003): a file row with
current_version > 0 is live, < 0 a tombstone (minus its last version: no versions, summary, bytes
or hash); a log row with entries > 0 is live, = 0 a tombstone (no entries, no bytes, a last id).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    LargeBinary,
    Select,
    Table,
    and_,
    case,
    cast,
    func,
    literal,
    null,
    or_,
    select,
)

from scratchpad_core.limits import Limits

from ..schema.tables import agents, file_versions, files, log_entries, logs, summaries

STREAM_BATCH = 500
f, v, s, g, e, a = files.c, file_versions.c, summaries.c, logs.c, log_entries.c, agents.c


@dataclass(frozen=True)
class Violation:
    rule: str  # a stable name, e.g. "version-gap"
    agent_id: str | None  # None for an orphan row, which belongs to no agent
    where: str  # the file or log path, or the row's key
    detail: str


Rule = tuple[str, ColumnElement[bool], Callable[[Any], str]]  # name, broken when, what to say


def flags(rules: list[Rule]) -> list[Any]:
    return [case((broken, 1), else_=0).label(name.replace("-", "_")) for name, broken, _ in rules]


def violations(
    connection: Connection, query: Select[Any], rules: list[Rule], where: Callable[[Any], str]
) -> Iterator[Violation]:
    """Run a query carrying one flag a rule (only rows with a flag set come back) and name each broken rule."""
    for row in connection.execute(query.execution_options(yield_per=STREAM_BATCH)):
        for name, _, say in rules:
            if getattr(row, name.replace("-", "_")):
                yield Violation(name, row.agent_id, where(row), say(row))


def _octets(column: Any, connection: Connection) -> Any:
    """The UTF-8 size of a text column, counted by the database."""
    if connection.dialect.name == "postgresql":
        return func.octet_length(column)
    return func.length(cast(column, LargeBinary))


def scoped(column: Any, agent: str | None) -> ColumnElement[bool]:
    return and_(True) if agent is None else column == agent


def file_rules(connection: Connection, agent: str | None, limits: Limits) -> Iterator[Violation]:
    """Per file row: its retained versions against its head, and what a tombstone may hold. More versions
    than SCRATCHPAD_MAX_VERSIONS is no violation (retention_note)."""
    count, lo, hi = func.count(v.version), func.min(v.version), func.max(v.version)
    live, dead, cv = f.current_version > 0, f.current_version < 0, f.current_version
    rules: list[Rule] = [
        ("file-state", cv == 0, lambda r: "a file row at version 0 (neither a live file nor a tombstone)"),
        ("head-missing", and_(live, or_(count == 0, hi != cv)),
         lambda r: f"at version {r.current_version}, but the newest retained version is {r.hi or 'none'}"),
        ("version-gap", and_(live, count > 0, hi - lo + 1 != count),
         lambda r: f"versions {r.lo}..{r.hi} retained as {r.n} rows: {r.hi - r.lo + 1 - r.n} missing"),
        ("tombstone-versions", and_(dead, count > 0),
         lambda r: f"deleted (remembers version {-r.current_version}) but still holds {r.n} versions"),
        ("tombstone-head", and_(dead, or_(f.bytes != 0, f.sha256 != "")),
         lambda r: f"deleted but its row keeps {r.bytes} bytes and a content hash"),
    ]  # fmt: skip
    yield from per_owner(connection, agent, files, file_versions, rules, n=count, lo=lo, hi=hi)


def retention_note(connection: Connection, agent: str | None, limits: Limits) -> str | None:
    """Live files retaining more than max_versions: legitimate after an operator lowers the setting (a write
    prunes only its own file) and after a redaction's new version (it prunes none), so a note, not a violation.
    Versions are contiguous up to the head (version-gap, head-missing), so a higher setting explains any count."""
    per_file = (
        select(func.count().label("n"))
        .select_from(file_versions.join(files, v.file_id == f.id))
        .where(scoped(f.agent_id, agent), f.current_version > 0)
        .group_by(v.file_id)
        .having(func.count() > limits.max_versions)
        .subquery()
    )
    over, most = connection.execute(select(func.count(), func.max(per_file.c.n)).select_from(per_file)).one()
    if not over:
        return None
    return (
        f"note: {over:,} file{'s' if over != 1 else ''} retain{'s' if over == 1 else ''} more than "
        f"SCRATCHPAD_MAX_VERSIONS={limits.max_versions} versions (up to {most}), as kept under a higher setting or "
        "by a redaction; the extra versions go at each file's next write. Not a violation."
    )


def per_owner(
    connection: Connection, agent: str | None, owners: Table, rows: Table, rules: list[Rule], **aggregates: Any
) -> Iterator[Violation]:
    """The rules on each owner row (a file, a log) with aggregates of its rows (versions, entries)."""
    o = owners.c
    query = (
        select(*owners.c, *(value.label(name) for name, value in aggregates.items()), *flags(rules))
        .select_from(owners.outerjoin(rows))
        .where(scoped(o.agent_id, agent))
        .group_by(*owners.c)
        .having(or_(*(broken for _, broken, _ in rules)))
        .order_by(o.agent_id, o.path)
    )
    yield from violations(connection, query, rules, lambda r: r.path)


def head_rules(connection: Connection, agent: str | None) -> Iterator[Violation]:
    """A live file's row describes its head version; each version's size is its content's."""
    head = file_versions.alias("head")
    h = head.c
    rules: list[Rule] = [
        ("head-mismatch", or_(h.bytes != f.bytes, h.sha256 != f.sha256),
         lambda r: f"the row says {r.bytes} bytes, its head version {r.current_version} has {r.head_bytes} "
                   "bytes or another hash"),
    ]  # fmt: skip
    query = (
        select(f.agent_id, f.path, f.current_version, f.bytes, h.bytes.label("head_bytes"))
        .add_columns(*flags(rules))
        .select_from(files.join(head, and_(h.file_id == f.id, h.version == f.current_version)))
        .where(scoped(f.agent_id, agent), or_(*(broken for _, broken, _ in rules)))
        .order_by(f.agent_id, f.path)
    )
    yield from violations(connection, query, rules, lambda r: r.path)
    yield from size_rule(connection, agent, "version", v.content, v.version, files)


def size_rule(
    connection: Connection, agent: str | None, what: str, text: Any, key: Any, owners: Table
) -> Iterator[Violation]:
    """Each stored text's byte count (a version's, an entry's) is the UTF-8 size of its text."""
    rows, o = text.table, owners.c
    size = _octets(text, connection)
    say: Callable[[Any], str] = lambda x: f"{what} {x.key} says {x.bytes} bytes, holds {x.real}"  # noqa: E731
    rules: list[Rule] = [(f"{what}-size", rows.c.bytes != size, say)]
    query = (
        select(o.agent_id, o.path, key.label("key"), rows.c.bytes, size.label("real"))
        .add_columns(*flags(rules))
        .select_from(rows.join(owners))
        .where(scoped(o.agent_id, agent), rows.c.bytes != size)
        .order_by(o.agent_id, o.path, key)
    )
    yield from violations(connection, query, rules, lambda x: x.path)


def summary_rules(connection: Connection, agent: str | None) -> Iterator[Violation]:
    """A cached summary is of a version its file retains."""
    rules: list[Rule] = [
        ("summary-version", v.file_id.is_(None), lambda r: f"a summary of version {r.version}, which is not retained"),
    ]
    query = (
        select(f.agent_id, f.path, s.version)
        .add_columns(*flags(rules))
        .select_from(
            summaries.join(files, f.id == s.file_id).outerjoin(
                file_versions, and_(v.file_id == s.file_id, v.version == s.version)
            )
        )
        .where(scoped(f.agent_id, agent), v.file_id.is_(None))
        .order_by(f.agent_id, f.path)
    )
    yield from violations(connection, query, rules, lambda r: r.path)


def orphan_rules(connection: Connection) -> Iterator[Violation]:
    """Rows whose file or log row is gone. They belong to no agent, so every check, scoped or not, reports them."""
    for table, key, parent, what in (
        (file_versions, file_versions.c.file_id, files, "versions"),
        (summaries, summaries.c.file_id, files, "summaries"),
        (log_entries, log_entries.c.log_id, logs, "entries"),
    ):
        name = f"orphan-{what}"
        rules: list[Rule] = [(name, literal(True), _orphans(what, parent.name))]
        query = (
            select(key.label("owner"), func.count().label("n"), null().label("agent_id"))
            .add_columns(*flags(rules))
            .select_from(table.outerjoin(parent, parent.c.id == key))
            .where(parent.c.id.is_(None))
            .group_by(key)
            .order_by(key)
        )
        yield from violations(connection, query, rules, _row_of(parent.name))


def _orphans(what: str, parent: str) -> Callable[[Any], str]:
    return lambda r: f"{r.n} {what} of {parent} row {r.owner}, which does not exist"


def _row_of(parent: str) -> Callable[[Any], str]:
    return lambda r: f"{parent} id {r.owner}"
