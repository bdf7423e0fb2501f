"""A Hypothesis state machine: random sequences of every tool against scratchpad and against the model
(tests/model/rules.py for the writing tools, reads.py for the reading ones), on a real SQLite file and the real
Postgres, comparing every reply and the final state. The reading rules (read_file whole, by version, sliced and
since_version as compact hunks that must apply to the model's old text; list_files and read_log in pages;
list_logs, list_versions, get_usage_stats, literal search_files) draw paths that exist as often as not.

Two agents, a few paths and logs, small sizes and quotas (so refusals happen often), expected_version drawn
as none, the current version or any small number, request_ids from a small pool (so repeats, with the same
call or another, happen), and a rule that sends the last call again as it was. After every step each agent's
usage agrees with the model; at the end every file (content, retained versions), log, listing and
`db check` agree too. Examples are bounded, so each backend runs in seconds. One more run sends every call
through a real MCP client to a stdio server (there a refusal is compared as a refusal: its text names no kind).
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from scratchpad_adapters import open_store
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.integrity.checking import check
from scratchpad_core.errors import NotFound, ScratchpadError
from scratchpad_core.limits import Limits
from tests.conftest import SQL_ONLY, empty_postgres
from tests.model.over_mcp import Refused as RemoteRefused
from tests.model.over_mcp import Remote, stdio_remote
from tests.model.reads import APPLIES, read
from tests.model.rules import KINDS, Model, Refused, split_lines

LIMITS = Limits(max_file_bytes=48, max_log_entry_bytes=12, max_versions=3, quota_files=2, quota_log_entries=3,
                quota_bytes=72)  # fmt: skip
EXAMPLES = settings(
    max_examples=100, stateful_step_count=40, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)  # fmt: skip

POSTGRES_EXAMPLES = 50  # a step costs a few round trips there: half as many examples keep it to seconds
AGENTS = st.sampled_from(["ann", "bob"])
PATHS = st.sampled_from(["a.md", "b.md", "d/c.md"])
LOGS = st.sampled_from(["log", "d/log"])
LINES = st.sampled_from(["x\n", "y\n", "zz\n", "é\n", "x", "a long line to pass the file limit\n"])
CONTENT = st.lists(LINES, max_size=4).map("".join)
PIECES = st.sampled_from(["", "x", "y\n", "zz", "é", "x\ny\n", "q"])
EXPECTED = st.one_of(st.none(), st.just("current"), st.integers(0, 7))
REQUEST_IDS = st.one_of(st.none(), st.none(), st.sampled_from(["r1", "r2", "r3"]))
ENTRIES = st.sampled_from(["", "note", "é-é", "twelve bytes", "thirteen byte"])
PREFIXES = st.sampled_from([None, None, None, "", "d/", "a", "b.md", "log", "x"])
QUERIES = st.sampled_from(["x", "X", "y", "zz", "é", "É", "long", "x\ny"])
PAGE = st.one_of(st.none(), st.just(1), st.integers(1, 3))
SLICE = st.one_of(st.none(), st.integers(1, 4), st.integers(1, 4), st.just(0))  # start_line, max_lines

# the reply fields compared, per tool
FIELDS = {
    "write_file": ("version", "bytes_written", "unchanged"),
    "restore_version": ("version", "bytes_written", "unchanged"),
    "edit_file": ("version", "bytes_written"),
    "insert_lines": ("version", "bytes_written", "start_line", "end_line"),
    "delete_file": ("deleted", "versions_removed"),
    "append_log": ("entry_id", "bytes_written"),
    "delete_log": ("deleted", "entries_removed", "bytes_freed"),
}
READ_FIELDS = {  # the reading tools' compared fields, and of each listed item
    "read_file": ("path", "current_version", "content", "version", "version_too_old", "unchanged", "diff",
                  "start_line", "end_line", "total_lines"),
    "list_files": ("files", "count", "next_cursor"), "files": ("path", "current_version", "bytes"),
    "read_log": ("entries", "total", "last_entry_id", "has_more"), "entries": ("id", "entry"),
    "list_logs": ("logs", "count"), "logs": ("path", "entries", "bytes", "last_entry_id"),
    "list_versions": ("path", "current_version", "versions"), "versions": ("version", "bytes", "lines", "sha256"),
    "get_usage_stats": ("file_count", "log_count", "logs", "total_bytes", "quota"),
    "search_files": ("matches", "count", "has_more", "files_searched"),
}  # fmt: skip


def view(tool: str, reply: dict[str, Any]) -> dict[str, Any]:
    """A reading tool's reply as the model gives it: the compared fields, those that are None left out."""
    kept = {name: reply[name] for name in READ_FIELDS[tool] if reply.get(name) is not None}
    for name, value in kept.items():
        if name in READ_FIELDS and isinstance(value, list) and tool != "read_file":
            kept[name] = [{key: item[key] for key in READ_FIELDS[name]} for item in value]
    if tool == "read_log":
        kept["entries"] = [[item["id"], item["entry"]] for item in kept["entries"]]
    if tool == "search_files":
        kept["matches"] = [{k: v for k, v in item.items() if v is not None} for item in kept["matches"]]
        if kept["has_more"]:
            del kept["files_searched"]
    return kept


def patched(old: str, hunks: list[dict[str, Any]]) -> str:
    """The old text with a compact diff applied, as the README states it: lines are text.split("\\n"); each hunk
    removes `remove` lines at old line `at` (1-based) and puts `add` there."""
    lines = old.split("\n")
    for hunk in sorted(hunks, key=lambda h: -h["at"]):
        lines[hunk["at"] - 1 : hunk["at"] - 1 + hunk["remove"]] = hunk["add"]
    return "\n".join(lines)


class Stateful(RuleBasedStateMachine):
    url = ""  # set per backend by the test
    namespace = ""  # before every agent id in the store: examples that share one server stay apart
    remote: Remote | None = None  # the calls go over MCP instead of through the library

    def __init__(self) -> None:
        super().__init__()
        self.store = open_store(self.url, limits=LIMITS)
        self.model = Model(LIMITS)
        self.last: tuple[str, str, dict[str, Any], str | None] | None = None

    def _call(self, agent: str, tool: str, args: dict[str, Any], request_id: str | None) -> None:
        if args.get("expected_version") == "current":
            args["expected_version"] = self.model.agents[agent].files[args["path"]].current
        self.last = (agent, tool, dict(args), request_id)
        try:
            predicted: Any = self.model.call(agent, tool, args, request_id)
        except Refused as refused:
            predicted = refused.kind if self.remote is None else "refused"
        actual = self._actual(self.namespace + agent, tool, args, request_id)
        assert actual == predicted, f"{tool}({agent!r}, {args}, request_id={request_id!r})"

    def _actual(self, agent: str, tool: str, args: dict[str, Any], request_id: str | None) -> Any:
        """The reply's compared fields, or how the call was refused (over MCP: only that it was)."""
        if self.remote is not None:
            try:
                reply = self.remote(agent, tool, args, request_id)
            except RemoteRefused:
                return "refused"
            return {name: reply.get(name) for name in FIELDS[tool]}  # fields that are None are left out
        try:
            stored = dataclasses.asdict(getattr(self.store, tool)(agent, **args, request_id=request_id))
        except ScratchpadError as error:  # named as the model names it (RequestIdReused is an InvalidInput)
            return next(kind for kind in type(error).__mro__ if kind in KINDS or kind is ScratchpadError)
        return {name: stored[name] for name in FIELDS[tool]}

    @rule(agent=AGENTS, path=PATHS, content=CONTENT, expected=EXPECTED, request_id=REQUEST_IDS)
    def write(self, agent: str, path: str, content: str, expected: Any, request_id: str | None) -> None:
        self._call(agent, "write_file", {"path": path, "content": content, "expected_version": expected}, request_id)

    @rule(agent=AGENTS, path=PATHS, content=CONTENT, request_id=REQUEST_IDS)
    def write_plainly(self, agent: str, path: str, content: str, request_id: str | None) -> None:
        """A write with no expected_version, drawn as often again: files exist for the other tools to change."""
        self._call(agent, "write_file", {"path": path, "content": content, "expected_version": None}, request_id)

    @rule(agent=AGENTS, path=PATHS, contents=st.lists(CONTENT, min_size=2, max_size=5))
    def write_history(self, agent: str, path: str, contents: list[str]) -> None:
        """Several writes in a row: files with more versions than are kept, for since_version and version reads."""
        for content in contents:
            self._call(agent, "write_file", {"path": path, "content": content, "expected_version": None}, None)

    @rule(agent=AGENTS, path=PATHS, old=PIECES, new=PIECES, replace_all=st.booleans(), expected=EXPECTED,
          request_id=REQUEST_IDS)  # fmt: skip
    def edit(self, agent: str, path: str, old: str, new: str, replace_all: bool, expected: Any,
             request_id: str | None) -> None:  # fmt: skip
        args = {"path": path, "old_str": old, "new_str": new, "replace_all": replace_all, "expected_version": expected}
        self._call(agent, "edit_file", args, request_id)

    @rule(agent=AGENTS, path=PATHS, line=st.integers(-1, 4), text=PIECES, expected=EXPECTED, request_id=REQUEST_IDS)
    def insert(self, agent: str, path: str, line: int, text: str, expected: Any, request_id: str | None) -> None:
        args = {"path": path, "line": line, "text": text, "expected_version": expected}
        self._call(agent, "insert_lines", args, request_id)

    @rule(agent=AGENTS, path=PATHS, version=st.integers(0, 8), expected=EXPECTED, request_id=REQUEST_IDS)
    def restore(self, agent: str, path: str, version: int, expected: Any, request_id: str | None) -> None:
        args = {"path": path, "version": version, "expected_version": expected}
        self._call(agent, "restore_version", args, request_id)

    @rule(agent=AGENTS, path=PATHS, expected=EXPECTED, request_id=REQUEST_IDS)
    def delete(self, agent: str, path: str, expected: Any, request_id: str | None) -> None:
        self._call(agent, "delete_file", {"path": path, "expected_version": expected}, request_id)

    @rule(agent=AGENTS, path=LOGS, entry=ENTRIES, request_id=REQUEST_IDS)
    def append(self, agent: str, path: str, entry: str, request_id: str | None) -> None:
        self._call(agent, "append_log", {"path": path, "entry": entry}, request_id)

    @rule(agent=AGENTS, path=LOGS, request_id=REQUEST_IDS)
    def delete_log(self, agent: str, path: str, request_id: str | None) -> None:
        self._call(agent, "delete_log", {"path": path}, request_id)

    def _read(self, agent: str, tool: str, args: dict[str, Any]) -> dict[str, Any] | None:
        """A reading call on both sides, compared; the reply's view, or None when both refused it."""
        try:
            predicted: Any = read(LIMITS, self.model.agents[agent], tool, args)
        except Refused as refused:
            predicted = refused.kind if self.remote is None else "refused"
        actual = self._read_actual(self.namespace + agent, tool, args)
        if isinstance(actual, dict) and isinstance(actual.get("diff"), list) and actual["diff"]:
            old = self.model.agents[agent].files[args["path"]].versions[args["since_version"]]
            applies = patched(old, actual["diff"]) == self.model.agents[agent].files[args["path"]].content
            actual["diff"] = APPLIES if applies else f"does not apply: {actual['diff']}"
        assert actual == predicted, f"{tool}({agent!r}, {args})"
        return actual if isinstance(actual, dict) else None

    def _read_actual(self, agent: str, tool: str, args: dict[str, Any]) -> Any:
        if self.remote is not None:
            try:
                return view(tool, self.remote(agent, tool, args, None))
            except RemoteRefused:
                return "refused"
        try:
            return view(tool, dataclasses.asdict(getattr(self.store, tool)(agent, **args)))
        except ScratchpadError as error:
            return next(kind for kind in type(error).__mro__ if kind in KINDS or kind is ScratchpadError)

    def _reader(tool: str) -> Any:  # type: ignore[misc]  # a rule calling _reading for this tool
        def reading(self: Stateful, agent: str, data: st.DataObject) -> None:
            self._reading(agent, tool, data)

        reading.__name__ = tool
        return rule(agent=AGENTS, data=st.data())(reading)

    read_file, read_since, list_files, read_log = map(_reader, ["read_file", "read_since", "list_files", "read_log"])
    list_logs, list_versions, usage, search = map(
        _reader, ["list_logs", "list_versions", "get_usage_stats", "search_files"]
    )

    def _reading(self, agent: str, tool: str, data: st.DataObject) -> None:
        """A reading tool, on an agent and a path that exist as often as not (most drawn ones would be refused)."""
        holding = sorted(
            name for name, state in self.model.agents.items() if any(f.versions for f in state.files.values())
        )
        if holding:
            agent = data.draw(st.sampled_from([agent, *holding]))
        live = sorted(p for p, f in self.model.agents[agent].files.items() if f.versions)
        path = data.draw(st.one_of(st.sampled_from(live), PATHS) if live else PATHS)
        f = self.model.agents[agent].files.get(path)
        current = f.current if f else 0
        numbers = st.integers(1, max(current, 1))  # the versions it has had; 0 and current + 1 are refused
        if tool == "read_file":  # a whole file, a retained version, or a slice of lines of either
            version = data.draw(st.one_of(st.none(), st.none(), numbers, st.sampled_from([0, current + 1])))
            start_line, max_lines = data.draw(SLICE), data.draw(SLICE)
            args = {"path": path, "version": version, "start_line": start_line, "max_lines": max_lines}
            self._read(agent, tool, {name: value for name, value in args.items() if value is not None})
        elif tool == "read_since":  # compact hunks: unchanged, version_too_old, or a diff that applies
            pruned = [n for n in range(1, current) if f is not None and n not in f.versions]  # version_too_old
            old = data.draw(st.one_of(numbers, numbers, st.sampled_from([0, current + 1, *pruned])))
            self._read(agent, "read_file", {"path": path, "since_version": old, "format": "compact"})
        elif tool == "list_files":  # every page, following next_cursor
            prefix, limit, cursor = data.draw(PREFIXES), data.draw(PAGE), None
            for _ in range(5):
                page = self._read(agent, tool, {"prefix": prefix, "limit": limit, "cursor": cursor})
                cursor = page.get("next_cursor") if page else None
                if cursor is None:
                    break
        elif tool == "read_log":  # pages from since_entry, each from the last page's last_entry_id
            log = self.model.agents[agent].logs.get(path := data.draw(LOGS))
            since: int | None = data.draw(st.one_of(st.none(), st.integers(0, (log.last if log else 0) + 1)))
            limit = data.draw(PAGE)
            for _ in range(4):
                page = self._read(agent, tool, {"path": path, "since_entry": since, "limit": limit})
                if not page or not page["has_more"]:
                    break
                since = page["last_entry_id"]
        elif tool == "list_logs":
            self._read(agent, tool, {"prefix": data.draw(PREFIXES)})
        elif tool == "list_versions":
            self._read(agent, tool, {"path": path})
        elif tool == "get_usage_stats":
            self._read(agent, tool, {})
        else:  # search_files, exact (the word search has its own machine: test_search_model.py)
            query = data.draw(st.sampled_from(sorted(set(self._words(agent)))) if live else QUERIES)
            args = {"query": query, "prefix": data.draw(PREFIXES), "max_results": data.draw(st.integers(1, 4)),
                    "case_sensitive": data.draw(st.booleans()), "exact": True}  # fmt: skip
            self._read(agent, tool, args)

    def _words(self, agent: str) -> list[str]:
        """Queries that match something: pieces of the agent's lines and log entries, in either case."""
        held = self.model.agents[agent]
        pieces = [line.strip()[:2] for f in held.files.values() if f.versions
                  for line in split_lines(f.content or "") if line.strip()]  # fmt: skip
        pieces += [entry[-2:] for g in held.logs.values() for _, entry in g.entries if entry.strip()]
        return [*pieces, *(piece.upper() for piece in pieces), "x", "É"]

    @rule()
    def retry_last(self) -> None:
        """The last call again, exactly as sent: a client retrying after a lost answer."""
        if self.last is not None:
            agent, tool, args, request_id = self.last
            self._call(agent, tool, args, request_id)

    @invariant()
    def usage_agrees(self) -> None:
        for agent, state in self.model.agents.items():
            stats, used = self.store.get_usage_stats(self.namespace + agent), state.usage()
            assert (stats.file_count, stats.log_count, stats.logs, stats.total_bytes) == (
                used["files"], used["entries"], used["logs"], used["bytes"],
            ), agent  # fmt: skip

    def teardown(self) -> None:
        try:
            for agent, state in self.model.agents.items():
                self._same_files(self.namespace + agent, state)
                self._same_logs(self.namespace + agent, state)
            engine = make_engine(self.url)
            report = check(engine, LIMITS)
            engine.dispose()
            assert report.ok, "\n".join(report.lines())
        finally:
            self.store.close()

    def _same_files(self, agent: str, state: Any) -> None:
        live = {path: f for path, f in state.files.items() if f.versions}
        listed = self.store.list_files(agent).files
        assert [(f.path, f.current_version) for f in listed] == sorted((p, f.current) for p, f in live.items())
        for path, f in state.files.items():
            if not f.versions:
                with pytest.raises(NotFound):
                    self.store.read_file(agent, path)
                continue
            read = self.store.read_file(agent, path)
            assert (read.content, read.current_version) == (f.content, f.current), path
            kept = [(v.version, v.bytes) for v in self.store.list_versions(agent, path).versions]
            assert kept == [(n, len(c.encode())) for n, c in sorted(f.versions.items())], path
            for number, content in f.versions.items():
                assert self.store.read_file(agent, path, version=number).content == content

    def _same_logs(self, agent: str, state: Any) -> None:
        listed = {g.path: (g.entries, g.last_entry_id) for g in self.store.list_logs(agent).logs}
        assert listed == {p: (len(g.entries), g.last) for p, g in state.logs.items() if g.entries}
        for path, log in state.logs.items():
            page = self.store.read_log(agent, path)
            assert [(e.id, e.entry) for e in page.entries] == log.entries, path


@SQL_ONLY
def test_random_call_sequences_agree_with_the_model(database_url: str, tmp_path: Path) -> None:
    if database_url.startswith("sqlite"):
        template = tmp_path / "template.db"
        open_store(f"sqlite:///{template}").close()  # migrated once; each example starts from a copy
        counter = iter(range(10**6))

        def fresh() -> str:
            copy = tmp_path / f"example-{next(counter)}.db"
            shutil.copy(template, copy)
            return f"sqlite:///{copy}"
    else:

        def fresh() -> str:
            empty_postgres(database_url)
            return database_url

    class Machine(Stateful):
        def __init__(self) -> None:
            type(self).url = fresh()
            super().__init__()

    run_state_machine_as_test(Machine, settings=settings(EXAMPLES, max_examples=POSTGRES_EXAMPLES) if
                              database_url.startswith("postgres") else EXAMPLES)  # fmt: skip


def test_random_call_sequences_over_mcp_agree_with_the_model(tmp_path: Path) -> None:
    """The same machine with every call sent by a real MCP client to one stdio server (SQLite); each example
    uses agents of its own, and the final state is read through the library from the same file."""
    url = f"sqlite:///{tmp_path / 'over-mcp.db'}"
    open_store(url).close()
    examples = iter(range(10**6))
    with stdio_remote(url, LIMITS) as remote:

        class Machine(Stateful):
            def __init__(self) -> None:
                type(self).url, type(self).namespace = url, f"x{next(examples)}-"
                super().__init__()
                self.remote = remote

        run_state_machine_as_test(Machine, settings=settings(EXAMPLES, max_examples=25, stateful_step_count=30))


@SQL_ONLY
def test_reads_of_a_deep_history_agree_with_the_model(database_url: str) -> None:
    """The cases random sequences reach least often, stated once: a since_version read of a pruned version
    (version_too_old), a diff that applies, an older version, a slice, and a listing in pages."""
    if database_url.startswith("postgres"):
        empty_postgres(database_url)
    Stateful.url = database_url
    machine = Stateful()
    try:
        for n in range(5):
            machine._call("ann", "write_file", {"path": "a.md", "content": f"x\n{n}\n", "expected_version": None}, None)
        machine._call("ann", "write_file", {"path": "b.md", "content": "y\n", "expected_version": None}, None)
        assert machine._read("ann", "read_file", {"path": "a.md", "since_version": 1, "format": "compact"}) == {
            "current_version": 5, "content": "x\n4\n", "version_too_old": True}  # fmt: skip
        diff = machine._read("ann", "read_file", {"path": "a.md", "since_version": 3, "format": "compact"})
        assert diff == {"current_version": 5, "diff": APPLIES}
        machine._read("ann", "read_file", {"path": "a.md", "version": 4, "start_line": 2, "max_lines": 1})
        machine._read("ann", "read_file", {"path": "a.md", "version": 2})  # pruned: refused alike
        first = machine._read("ann", "list_files", {"prefix": None, "limit": 1, "cursor": None})
        assert first is not None and first["next_cursor"] == "a.md"
        machine._read("ann", "list_files", {"prefix": None, "limit": 1, "cursor": "a.md"})
        machine._read("ann", "search_files", {"query": "X", "prefix": None, "max_results": 1, "case_sensitive": False,
                                              "exact": True})  # fmt: skip
    finally:
        machine.teardown()
