"""Import an export (see exporter.py) in one transaction: all of it, or nothing.

Version numbers, entry ids, timestamps and usage counters are kept; sizes, line counts and
hashes are recomputed from the content. An agent that already has data here (files, logs,
counters or retention rules) is refused unless `replace` is set, in which case its data is
deleted first, its rules with it: the agent's rules are then those of the export (none from an
export of version 1, which predates them).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import Connection, Engine, delete, insert, select, true, update

from scratchpad_core.actors import UNKNOWN
from scratchpad_core.errors import InvalidInput
from scratchpad_core.limits import Limits, utf8_len
from scratchpad_core.model import COUNTERS, sha256_hex
from scratchpad_core.text import count_lines
from scratchpad_core.usecases.base import wall_clock_ms

from ..repositories.retention_repository import SqlRetentionRepository
from ..schema.tables import agents, file_versions, files, log_entries, logs, retention_rules, summaries
from ..search.build import build as build_search_index
from ..search.index import drop_agent as drop_search_index
from .exporter import BATCH, FORMAT, FORMAT_VERSION, PLURAL, READABLE_VERSIONS, Counts, Progress, Ticker
from .import_records import AgentOrder, check_fields, refused, rule_of


class _AgentLoader:
    """Loads one agent's records on the import's connection."""

    def __init__(self, connection: Connection, record: dict[str, Any], replace: bool) -> None:
        self.c = connection
        self.agent_id: str = record["agent_id"]
        self.rules = SqlRetentionRepository(connection)
        self.now = wall_clock_ms()
        if _has_data(connection, self.agent_id):
            if not replace:
                raise InvalidInput(
                    f"Import refused: agent {self.agent_id!r} already has data (files, logs, counters or retention "
                    "rules) in this database. Nothing was imported; pass --replace to overwrite that agent's data."
                )
            _delete_agent(connection, self.agent_id)
        # The agent's counters (model.COUNTERS): its operations and bytes saved as exported, the rest counted here.
        self.totals = {name: record.get(name, 0) if name in ("operations", "bytes_saved") else 0 for name in COUNTERS}
        # Ids of the rows made for each path; each file's current version (number, then bytes and hash) and
        # each log's entry count and bytes, kept while loading so that finish() needs no query to find them.
        # AgentOrder has checked that every record refers to a path defined before it.
        self.file_ids: dict[str, int] = {}
        self.log_ids: dict[str, int] = {}
        self.current: dict[str, int] = {}
        self.heads: dict[str, tuple[int, str]] = {}
        self.log_totals: dict[str, list[int]] = {}
        self.versions: list[dict[str, Any]] = []
        self.entries: list[dict[str, Any]] = []

    def add(self, kind: str, r: dict[str, Any]) -> None:
        if kind == "rule":  # checked by AgentOrder (import_records.rule_of)
            self.rules.set(rule_of(self.agent_id, r, 0), self.now)
            return
        path = r["path"]
        if kind == "file":
            head = {"current_version": r["current_version"], "bytes": 0, "sha256": ""}
            self.file_ids[path] = self._insert_head(files, path, r, head)
            self.current[path] = r["current_version"]
            self.totals["files"] += 1
        elif kind == "version":
            content, size, sha = r["content"], utf8_len(r["content"]), sha256_hex(r["content"])
            self.versions.append({
                "file_id": self.file_ids[path], "version": r["version"], "content": content, "bytes": size,
                "lines": count_lines(content), "sha256": sha, "created_at": r["created_at"],
                "actor": r.get("by", UNKNOWN),
            })  # fmt: skip
            if r["version"] == self.current[path]:
                self.heads[path] = (size, sha)
            self.totals["bytes"] += size
        elif kind == "summary":
            values = {k: r[k] for k in ("version", "summary", "model", "created_at")}
            self.c.execute(insert(summaries).values(file_id=self.file_ids[path], **values))
        elif kind == "log":
            head = {"last_entry_id": r["last_entry_id"], "entries": 0, "bytes": 0}
            self.log_ids[path] = self._insert_head(logs, path, r, head)
            self.log_totals[path] = [0, 0]
            self.totals["logs"] += 1
        elif kind == "entry":
            size = utf8_len(r["entry"])
            self.entries.append({
                "log_id": self.log_ids[path], "entry_id": r["id"], "entry": r["entry"], "bytes": size,
                "created_at": r["created_at"], "actor": r.get("by", UNKNOWN),
            })  # fmt: skip
            self.log_totals[path][0] += 1
            self.log_totals[path][1] += size
            self.totals["log_entries"] += 1
            self.totals["bytes"] += size
        self._flush(BATCH)

    def finish(self) -> None:
        self._flush(1)
        for path, file_id in self.file_ids.items():
            size, sha = self.heads[path]
            self.c.execute(update(files).where(files.c.id == file_id).values(bytes=size, sha256=sha))
        for path, log_id in self.log_ids.items():
            count, size = self.log_totals[path]
            self.c.execute(update(logs).where(logs.c.id == log_id).values(entries=count, bytes=size))
        self.c.execute(insert(agents).values(agent_id=self.agent_id, **self.totals))

    def _insert_head(self, table: Any, path: str, r: dict[str, Any], head: dict[str, Any]) -> int:
        values = {"agent_id": self.agent_id, "path": path, "created_at": r["created_at"], "updated_at": r["updated_at"]}
        new_id: int = self.c.execute(insert(table).values(**values, **head).returning(table.c.id)).scalar_one()
        return new_id

    def _flush(self, threshold: int) -> None:
        for rows, table in ((self.versions, file_versions), (self.entries, log_entries)):
            if len(rows) >= threshold:
                self.c.execute(insert(table), rows)
                rows.clear()


def import_(
    engine: Engine,
    lines: Iterable[str],
    *,
    replace: bool = False,
    progress: Progress | None = None,
    limits: Limits | None = None,
) -> Counts:
    """Load an export into the database in one transaction; raises InvalidInput (nothing loaded) on bad input.

    Records must fit `limits` (the server's limits and quotas): an import creates nothing a call could not.
    """
    limits = limits or Limits()
    counts = Counts()
    ticker = Ticker(progress, "imported", counts)
    with engine.begin() as connection:
        loader: _AgentLoader | None = None
        version = FORMAT_VERSION
        order = AgentOrder(limits)
        agents_seen: set[str] = set()
        rest = iter(enumerate(lines, 1))
        end: dict[str, Any] | None = None
        end_line = 0
        for number, raw in rest:
            record = _parse(raw, number)
            kind = record["type"]
            if number == 1:
                version = _check_header(record)
                continue
            if kind == "end":
                order.finish(number)
                end, end_line = record, number
                break
            if kind in PLURAL:
                check_fields(kind, record, number)
            if kind == "agent":
                order.finish(number)
                if record["agent_id"] in agents_seen:
                    raise refused(number, f"agent {record['agent_id']!r} appears twice; its records must be together.")
                agents_seen.add(record["agent_id"])
                if loader is not None:
                    loader.finish()
                loader, order = _AgentLoader(connection, record, replace), AgentOrder(limits, record["agent_id"])
            elif kind in PLURAL and loader is not None and (kind != "rule" or version > 1):
                order.check(kind, record, number)
                loader.add(kind, record)
            else:
                raise InvalidInput(f"Import line {number}: unexpected record type {kind!r}.")
            counts.add(kind)
            ticker.tick()
        if end is None:
            raise InvalidInput(
                "Import refused: the input ends without its end record (truncated?). Nothing was imported."
            )
        _check_end(end, end_line, counts, rest, version)
        if loader is not None:
            loader.finish()
        # The export leaves the word-search index out: it is built here, in the import's transaction.
        build_search_index(connection, sorted(agents_seen), say=progress or (lambda _: None))
    ticker.done()
    return counts


def _check_end(end: dict[str, Any], line: int, counts: Counts, rest: Iterator[tuple[int, str]], version: int) -> None:
    """The end record closes the input, and its counts are those of the records before it."""
    for number, raw in rest:
        if raw.strip():
            raise refused(number, "records after the end record.")
    held = {name: value for name, value in vars(counts).items() if version > 1 or name != "rules"}  # v1: no rules
    if "counts" in end and end["counts"] != held:
        raise refused(line, f"the end record counts {end['counts']}, but the input holds {held} (edited?).")


def _parse(raw: str, number: int) -> dict[str, Any]:
    try:
        record = json.loads(raw)
    except json.JSONDecodeError as error:
        raise InvalidInput(f"Import line {number} is not JSON ({error.msg}). Nothing was imported.") from None
    if not isinstance(record, dict) or "type" not in record:
        raise InvalidInput(f"Import line {number} is not an export record. Nothing was imported.")
    return record


def check_first_line(raw: str) -> None:
    """Refuse input that is no export by its first line, before a database is touched."""
    _check_header(_parse(raw, 1))


def _check_header(record: dict[str, Any]) -> int:
    """The export format's version (READABLE_VERSIONS), or the refusal."""
    if record.get("type") != "header" or record.get("format") != FORMAT:
        raise InvalidInput(f"Import refused: the input is not a {FORMAT} file (its first line is not the header).")
    version = record.get("version")
    if type(version) is not int or version not in READABLE_VERSIONS:
        raise InvalidInput(
            f"Import refused: export format version {version!r:.20} is not supported; this scratchpad-mcp reads "
            f"versions {READABLE_VERSIONS[0]} to {READABLE_VERSIONS[-1]} (a newer one made it: import with that one)."
        )
    return version


def _has_data(connection: Connection, agent_id: str) -> bool:
    live = {files: files.c.current_version > 0, logs: logs.c.entries > 0}  # not the tombstones of deleted ones
    return any(
        connection.execute(
            select(table.c.agent_id).where(table.c.agent_id == agent_id, live.get(table, true())).limit(1)
        ).first()
        for table in (agents, files, logs, retention_rules)
    )


def _delete_agent(connection: Connection, agent_id: str) -> None:
    drop_search_index(connection, agent_id)
    file_ids = select(files.c.id).where(files.c.agent_id == agent_id)
    log_ids = select(logs.c.id).where(logs.c.agent_id == agent_id)
    connection.execute(delete(summaries).where(summaries.c.file_id.in_(file_ids)))
    connection.execute(delete(file_versions).where(file_versions.c.file_id.in_(file_ids)))
    connection.execute(delete(files).where(files.c.agent_id == agent_id))
    connection.execute(delete(log_entries).where(log_entries.c.log_id.in_(log_ids)))
    connection.execute(delete(logs).where(logs.c.agent_id == agent_id))
    connection.execute(delete(agents).where(agents.c.agent_id == agent_id))
    connection.execute(delete(retention_rules).where(retention_rules.c.agent_id == agent_id))
