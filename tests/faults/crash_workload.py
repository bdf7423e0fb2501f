"""A write-, edit-, append- and delete-heavy workload whose every acknowledged effect can be checked after a crash.

Every write leaves its change in the search index's backlog, and a search catches a backlog up (a write
transaction of its own): some calls are searches for a word the worker wrote last, which must find it, so kills
also land while a search catches up; and after each kill `searchable` says whether the next search finds every
acknowledged word (and none of a deleted file's).

Each worker owns a few file paths and a log of one agent and calls tools on them one at a time, so it knows
what each path holds after every acknowledged call (its model), and at most one call (the pending one) is
unacknowledged when the server dies. After the crash, every path must hold exactly its model's state, except
the pending call's path, which may instead hold exactly what that call would have made of it: the call
happened entirely or not at all. Paths are compared with the rows themselves (SQL of the test's own).
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, and_, select

from scratchpad_adapters.sql.schema.tables import file_versions, files, log_entries, logs

AGENT = "crash-agent"
MAX_CONTENT = 1500  # a file grown by inserts past this is written afresh

# A path's state: a file's (content or None when absent, its last version number), or a log's
# (its entries as (id, text) pairs, its last entry id). A deleted path keeps its last number.
State = tuple[Any, int]
Call = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


class Unacknowledged(Exception):
    """The call got no reply (the server died): it may or may not have happened."""


@dataclass
class Worker:
    index: int
    rng: random.Random
    states: dict[str, State] = field(default_factory=dict)
    pending: tuple[str, State] | None = None  # the path of the call in flight, and its state if it happened
    acknowledged: int = 0
    in_flight: dict[str, int] = field(default_factory=lambda: {"happened": 0, "did not happen": 0})

    def __post_init__(self) -> None:
        for path in self.file_paths:
            self.states.setdefault(path, (None, 0))
        self.states.setdefault(self.log_path, ((), 0))

    @property
    def file_paths(self) -> list[str]:
        return [f"w{self.index}/f{k}.md" for k in range(3)]

    @property
    def log_path(self) -> str:
        return f"w{self.index}/journal"

    async def run(self, call: Call) -> None:
        """Call tools until one is not acknowledged; each acknowledged reply must match the model."""
        while True:
            path, tool, args, after, check = self._next()
            self.pending = None if tool == "search_files" else (path, after)  # a search changes no path
            arguments = (
                {"agent_id": AGENT, **args} if tool == "search_files" else {"agent_id": AGENT, "path": path, **args}
            )
            try:
                reply = await call(tool, arguments)
            except Unacknowledged:
                return
            check(reply)
            self.states[path], self.pending, self.acknowledged = after, None, self.acknowledged + 1

    def _next(self) -> tuple[str, str, dict[str, Any], State, Callable[[dict[str, Any]], None]]:
        token = f"{self.index}-{self.rng.getrandbits(40):x}"
        if self.rng.random() < 0.3:
            entries, last = self.states[self.log_path]
            if entries and self.rng.random() < 0.15:
                return self.log_path, "delete_log", {}, ((), last), _expect(deleted=True, entries_removed=len(entries))
            entry = f"entry {token}"
            return (
                self.log_path,
                "append_log",
                {"entry": entry},
                ((*entries, (last + 1, entry)), last + 1),
                (_expect(entry_id=last + 1)),
            )
        path = self.rng.choice(self.file_paths)
        content, number = self.states[path]
        if content is not None and self.rng.random() < 0.1:  # its newest word, found by a search now
            query = {"query": word_of(content), "prefix": path, "max_results": 50}
            return path, "search_files", query, (content, number), _found(path)
        roll = self.rng.random()
        if content is not None and roll < 0.15:
            return path, "delete_file", {}, (None, number), _expect(deleted=True)
        if content is not None and roll < 0.5:
            first = content.split("\n", 1)[0] + "\n"
            new = f"id {token}\n" + content[len(first) :]
            return (
                path,
                "edit_file",
                {"old_str": first, "new_str": f"id {token}\n"},
                (new, number + 1),
                (_expect(version=number + 1)),
            )
        if content is not None and roll < 0.8 and len(content) < MAX_CONTENT:
            text = f"inserted {token}\n"
            return (
                path,
                "insert_lines",
                {"line": -1, "text": text},
                (content + text, number + 1),
                (_expect(version=number + 1)),
            )
        new = f"id {token}\nwritten whole by worker {self.index}\n"
        return path, "write_file", {"content": new}, (new, number + 1), _expect(version=number + 1)

    def reconcile(self, found: dict[str, State]) -> str | None:
        """Adopt what the store holds after a crash, or say how it breaks the all-or-nothing rule."""
        for path, state in self.states.items():
            actual = found.get(path, (None, 0) if path != self.log_path else ((), 0))
            if actual == state:
                continue
            if self.pending is not None and self.pending[0] == path and actual == self.pending[1]:
                self.states[path] = actual  # the unacknowledged call happened, entirely
                self.in_flight["happened"] += 1
                self.pending = None
                continue
            pending = self.pending[1] if self.pending and self.pending[0] == path else "no call in flight"
            return f"{path}: holds {actual!r}; acknowledged {state!r}; the call in flight would make {pending!r}"
        if self.pending is not None:
            self.in_flight["did not happen"] += 1
        self.pending = None
        return None


def word_of(content: str) -> str:
    """The word of the token that starts a file's content (each write, edit and insert makes a new one)."""
    return content.split("\n", 1)[0].rsplit("-", 1)[-1]


def searchable(store: Any, workers: list[Worker]) -> str | None:
    """Whether a search (store: a Scratchpad) finds each worker's files' and log's newest words where the rows
    say they are, and nothing in a path that holds no file (deleted ones)."""
    for worker in workers:
        for path, (content, _) in worker.states.items():
            if path == worker.log_path:
                if content:
                    entry = content[-1][1]
                    found = {m.path for m in store.search_files(AGENT, entry.rsplit("-", 1)[-1]).matches}
                    if path not in found:
                        return f"{path}: a search does not find its entry {entry!r}"
                continue
            found = {m.path for m in store.search_files(AGENT, "id", prefix=path, max_results=50).matches}
            if (content is not None) != (path in found):
                return f"{path}: a search {'does not find' if content else 'finds'} its 'id' lines"
            if content is not None:
                for line in (line for line in content.splitlines() if "-" in line):  # a token's line
                    hits = store.search_files(AGENT, line.rsplit("-", 1)[-1], prefix=path).matches
                    if not any(line in m.text for m in hits):
                        return f"{path}: a search does not find its line {line!r}"
    return None


def _found(path: str) -> Callable[[dict[str, Any]], None]:
    def check(reply: dict[str, Any]) -> None:
        assert path in {m["path"] for m in reply["matches"]}, reply

    return check


def _expect(**fields: Any) -> Callable[[dict[str, Any]], None]:
    def check(reply: dict[str, Any]) -> None:
        assert {name: reply.get(name) for name in fields} == fields, reply

    return check


def stored_states(engine: Engine, agent: str = AGENT) -> dict[str, State]:
    """What the rows say each path holds: a live file's head content and version, a tombstone's last number,
    a log's entries and last id."""
    f, v, g, e = files.c, file_versions.c, logs.c, log_entries.c
    found: dict[str, State] = {}
    with engine.connect() as connection:
        heads = (
            select(f.path, f.current_version, v.content)
            .select_from(files.outerjoin(file_versions, and_(v.file_id == f.id, v.version == f.current_version)))
            .where(f.agent_id == agent)
        )
        for path, current, content in connection.execute(heads):
            found[path] = (content, current) if current > 0 else (None, -current)
        entries: dict[str, list[tuple[int, str]]] = {}
        rows = (
            select(g.path, e.entry_id, e.entry)
            .select_from(log_entries.join(logs, e.log_id == g.id))
            .where(g.agent_id == agent)
            .order_by(g.path, e.entry_id)
        )
        for path, entry_id, entry in connection.execute(rows):
            entries.setdefault(path, []).append((entry_id, entry))
        for path, last in connection.execute(select(g.path, g.last_entry_id).where(g.agent_id == agent)):
            found[path] = (tuple(entries.get(path, ())), last)
    return found
