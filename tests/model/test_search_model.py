"""A Hypothesis state machine for word search: random sequences of every writing path (write, edit, insert,
restore, delete, rename_file, rename_prefix, delete_prefix, append, delete_log, and quota refusals) sent to a
store on each backend at once, with searches in between, checked against a model search over the same texts.

The model is plain: a file line (or log entry) is found when one of its words is one of the query's (the
analyzer's rule, scratchpad_core.search.words); with max_results large enough, the passages must cover exactly the
lines that are found, each passage being lines first..last of the file as it is now (at most 5, never
overlapping another of the same file, holding a found line), and the entries exactly the entries found. The
backends must give the same reply, order included (their rankings agree). At the end `db check` holds on the
SQL stores: the index is exactly the current versions and entries.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from scratchpad_adapters import memory, open_store
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.integrity.checking import check
from scratchpad_adapters.stemming import default_analyzer
from scratchpad_core.errors import ScratchpadError
from scratchpad_core.limits import Limits
from scratchpad_core.results import SearchResult
from scratchpad_core.search.indexing import split_text
from scratchpad_core.service import Scratchpad
from tests.conftest import create_postgres_database, drop_postgres_database, postgres_admin_url

LIMITS = Limits(max_file_bytes=200, max_log_entry_bytes=60, max_versions=3, quota_files=4, quota_log_entries=6,
                quota_bytes=600)  # fmt: skip
EXAMPLES = settings(max_examples=60, stateful_step_count=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
WORDS = ["deploy", "deployed", "Deployment", "café", "CAFE", "北京大学", "Αθήνα", "the", "a", "plan", "plans", "x",
         "—", "(", "NOT", "42"]  # fmt: skip
LINE = st.lists(st.sampled_from(WORDS), max_size=5).map(" ".join)
CONTENT = st.lists(LINE, max_size=6).map("\n".join) | st.lists(LINE, max_size=6).map(
    lambda lines: "".join(f"{line}\n" for line in lines)
)
AGENTS = st.sampled_from(["ann", "bob"])
PATHS = st.sampled_from(["a.md", "b.md", "d/c.md", "d/e.md"])
LOGS = st.sampled_from(["log", "d/log"])
QUERIES = st.lists(st.sampled_from([*WORDS, "deploying", "cafés", "北京", "αθηνα", "plan?"]), min_size=1, max_size=3)


def model_search(store: Scratchpad, agent: str, query: str, prefix: str) -> tuple[set[tuple[str, int]], dict[Any, str]]:
    """The lines and entries holding one of the query's words, from the texts the store holds now."""
    analyzer = default_analyzer()
    terms = set(analyzer.terms(query))
    lines: set[tuple[str, int]] = set()
    texts: dict[Any, str] = {}
    for info in store.list_files(agent, prefix).files:
        for n, line in enumerate(split_text(store.read_file(agent, info.path).content or ""), 1):
            texts[info.path, n] = line
            if terms & set(analyzer.terms(line)):
                lines.add((info.path, n))
    for log in store.list_logs(agent, prefix).logs:
        for entry in store.read_log(agent, log.path).entries:
            if terms & set(analyzer.terms(entry.entry)):
                texts[log.path, "entry", entry.id] = entry.entry
    return lines, texts


def check_reply(result: SearchResult, lines: set[tuple[str, int]], texts: dict[Any, str]) -> None:
    covered: dict[str, list[tuple[int, int]]] = {}
    entries = {}
    for match in result.matches:
        if match.entry is not None:
            entries[match.path, "entry", match.entry] = match.text
            continue
        assert match.line is not None and match.end_line is not None
        lo, hi = match.line, match.end_line
        assert 1 <= lo <= hi < lo + 5, match
        assert match.text == "\n".join(texts[match.path, n] for n in range(lo, hi + 1)), match
        assert any((match.path, n) in lines for n in range(lo, hi + 1)), f"{match} holds no query word"
        for other in covered.get(match.path, []):
            assert hi < other[0] or lo > other[1], f"{match} overlaps {other}"
        covered.setdefault(match.path, []).append((lo, hi))
    found = {(p, n) for p, spans in covered.items() for lo, hi in spans for n in range(lo, hi + 1)}
    assert lines <= found, f"lines holding a query word in no passage: {sorted(lines - found)}"
    assert entries == {key: text for key, text in texts.items() if len(key) == 3}


class SearchMachine(RuleBasedStateMachine):
    urls: ClassVar[list[str]] = []

    def __init__(self) -> None:
        super().__init__()
        self.stores = [open_store(url, limits=LIMITS) for url in self.urls]
        self.prefix = f"x{uuid.uuid4().hex[:8]}-"  # each example's agents are its own

    def _all(self, method: str, agent: str, *args: Any, **kwargs: Any) -> Any:
        """The call on every store: the same reply, or the same refusal."""
        outcomes: list[Any] = []
        for store in self.stores:
            try:
                outcomes.append(dataclasses.asdict(getattr(store, method)(self.prefix + agent, *args, **kwargs)))
            except ScratchpadError as error:
                outcomes.append(type(error).__name__)
        assert all(outcome == outcomes[0] for outcome in outcomes), (method, args, outcomes)
        return outcomes[0]

    @rule(agent=AGENTS, path=PATHS, content=CONTENT)
    def write(self, agent: str, path: str, content: str) -> None:
        self._all("write_file", agent, path, content)

    @rule(agent=AGENTS, path=PATHS, old=st.sampled_from(WORDS), new=LINE, every=st.booleans())
    def edit(self, agent: str, path: str, old: str, new: str, every: bool) -> None:
        self._all("edit_file", agent, path, old, new, every)

    @rule(agent=AGENTS, path=PATHS, line=st.integers(-1, 4), text=CONTENT)
    def insert(self, agent: str, path: str, line: int, text: str) -> None:
        self._all("insert_lines", agent, path, line, text)

    @rule(agent=AGENTS, path=PATHS, version=st.integers(1, 6))
    def restore(self, agent: str, path: str, version: int) -> None:
        self._all("restore_version", agent, path, version)

    @rule(agent=AGENTS, path=PATHS)
    def delete(self, agent: str, path: str) -> None:
        self._all("delete_file", agent, path)

    @rule(agent=AGENTS, path=PATHS, new_path=PATHS)
    def rename(self, agent: str, path: str, new_path: str) -> None:
        self._all("rename_file", agent, path, new_path)

    @rule(agent=AGENTS, pair=st.sampled_from([("d/", "e/"), ("e/", "d/"), ("a", "z"), ("z", "a")]))
    def rename_prefix(self, agent: str, pair: tuple[str, str]) -> None:
        self._all("rename_prefix", agent, *pair)

    @rule(agent=AGENTS, prefix=st.sampled_from(["d/", "e/", "b"]))
    def delete_prefix(self, agent: str, prefix: str) -> None:
        self._all("delete_prefix", agent, prefix)

    @rule(agent=AGENTS, path=LOGS, entry=LINE)
    def append(self, agent: str, path: str, entry: str) -> None:
        self._all("append_log", agent, path, entry)

    @rule(agent=AGENTS, path=LOGS)
    def delete_log(self, agent: str, path: str) -> None:
        self._all("delete_log", agent, path)

    @rule(agent=AGENTS, words=QUERIES, prefix=st.sampled_from(["", "d/", "a", "log"]), few=st.booleans())
    def search(self, agent: str, words: list[str], prefix: str, few: bool) -> None:
        query = " ".join(words)
        reply = self._all("search_files", agent, query, prefix, max_results=2 if few else 200)
        if isinstance(reply, str):
            assert reply == "InvalidInput" and not default_analyzer().terms(query)
            return
        result = SearchResult(**{**reply, "matches": [_match(m) for m in reply["matches"]]})
        lines, texts = model_search(self.stores[0], self.prefix + agent, query, prefix)
        if few:
            assert result.count <= 2 and result.has_more == (result.count == 2 and _more(lines, texts, result))
        else:
            assert not result.has_more
            check_reply(result, lines, texts)

    @invariant()
    def every_store_holds_the_same(self) -> None:
        for agent in ("ann", "bob"):
            listed = [[(f.path, f.current_version, f.bytes) for f in s.list_files(self.prefix + agent).files]
                      for s in self.stores]  # fmt: skip
            assert all(each == listed[0] for each in listed), listed

    def teardown(self) -> None:
        try:
            for url in self.urls:
                if not memory.is_memory_url(url):
                    engine = make_engine(url)
                    report = check(engine, LIMITS)
                    engine.dispose()
                    assert report.ok, "\n".join(report.lines())
        finally:
            for store in self.stores:
                store.close()


def _match(fields: dict[str, Any]) -> Any:
    from scratchpad_core.results import SearchMatch

    return SearchMatch(**fields)


def _more(lines: set[tuple[str, int]], texts: dict[Any, str], result: SearchResult) -> bool:
    """Whether more is found than the two passages shown hold."""
    shown_lines = {(m.path, n) for m in result.matches if m.line for n in range(m.line, (m.end_line or 0) + 1)}
    shown_entries = {(m.path, "entry", m.entry) for m in result.matches if m.entry is not None}
    entries = {key for key in texts if len(key) == 3}
    return bool(lines - shown_lines) or bool(entries - shown_entries)


@pytest.fixture
def urls(tmp_path: Path) -> Iterator[list[str]]:
    """A SQLite file, a memory store and (when the server is set) a Postgres database, used together."""
    named = f"memory://search-model-{uuid.uuid4().hex}"
    keep = memory.connect(named)
    found = [f"sqlite:///{tmp_path / 'model.db'}", named]
    postgres = create_postgres_database("scratchpad_search_model") if postgres_admin_url() else None
    if postgres is not None:
        found.append(postgres)
    for url in found:
        open_store(url).close()  # migrated once
    yield found
    keep.close()
    if postgres is not None:
        drop_postgres_database(postgres)


def test_word_search_agrees_with_the_model_on_every_backend(urls: list[str]) -> None:
    class Machine(SearchMachine):
        pass

    Machine.urls = urls
    run_state_machine_as_test(Machine, settings=EXAMPLES)
