"""A Hypothesis state machine: random sequences of every writing tool against scratchpad and against the model
(tests/model/rules.py), on a real SQLite file and the real Postgres, comparing every reply and the final state.

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
from scratchpad_adapters.sql.engine import make_engine
from scratchpad_adapters.sql.integrity import check
from scratchpad_core.errors import NotFound, ScratchpadError
from scratchpad_core.limits import Limits
from tests.conftest import SQL_ONLY, empty_postgres
from tests.model.over_mcp import Refused as RemoteRefused
from tests.model.over_mcp import Remote, stdio_remote
from tests.model.rules import KINDS, Model, Refused

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

# the reply fields compared, per tool
FIELDS = {
    "write_file": ("version", "bytes_written", "unchanged", "already_applied"),
    "restore_version": ("version", "bytes_written", "unchanged", "already_applied"),
    "edit_file": ("version", "bytes_written", "already_applied"),
    "insert_lines": ("version", "bytes_written", "already_applied", "start_line", "end_line"),
    "delete_file": ("deleted", "versions_removed", "already_applied"),
    "append_log": ("entry_id", "bytes_written"),
    "delete_log": ("deleted", "entries_removed", "bytes_freed"),
}


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
