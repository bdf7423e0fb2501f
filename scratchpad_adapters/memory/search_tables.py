"""The in-memory word-search index's tables (search_index.py uses them): rows, file records, logs, and an
inverted index per agent, all replaced on write, never changed in place once committed."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from scratchpad_core.search.indexing import MAX_TF, Statistics


@dataclass(frozen=True)
class SearchRow:
    owner: int
    entry: int
    text: str
    terms: tuple[str, ...]


@dataclass(frozen=True)
class FileRecordRow:
    owner: int
    agent_id: str
    version: int
    slots: tuple[int, ...]


@dataclass
class AgentIndex:
    stats: Statistics = field(default_factory=Statistics)
    postings: dict[str, dict[int, int]] = field(default_factory=dict)  # term -> row -> how often
    owned: set[str] = field(default_factory=set)  # terms whose postings this copy may change

    def copy(self) -> AgentIndex:
        stats = Statistics(self.stats.documents, self.stats.length, Counter(self.stats.common))
        return AgentIndex(stats, dict(self.postings))

    def change(self, row: int, terms: Sequence[str], sign: int) -> None:
        for term, count in Counter(terms).items():
            if term not in self.owned:
                self.postings[term] = dict(self.postings.get(term, {}))
                self.owned.add(term)
            if sign > 0:
                self.postings[term][row] = min(count, MAX_TF)
            else:
                self.postings[term].pop(row, None)
                if not self.postings[term]:
                    del self.postings[term]
                    self.owned.discard(term)


@dataclass
class SearchTables:
    rows: dict[int, SearchRow] = field(default_factory=dict)
    files: dict[int, FileRecordRow] = field(default_factory=dict)  # by file id
    owners: dict[int, int] = field(default_factory=dict)  # a file record's owner id -> its file id
    logs: dict[int, tuple[str, int, int]] = field(default_factory=dict)  # log id -> (agent, first, last entry)
    log_rows: dict[int, tuple[int, ...]] = field(default_factory=dict)  # log id -> its rows, in entry order
    agents: dict[str, AgentIndex] = field(default_factory=dict)
    last_row: int = 0
    last_owner: int = 0
    copied: set[str] = field(default_factory=set)  # agents whose index this copy owns

    def copy(self) -> SearchTables:
        return dataclasses.replace(
            self, rows=dict(self.rows), files=dict(self.files), owners=dict(self.owners), logs=dict(self.logs),
            log_rows=dict(self.log_rows), agents=dict(self.agents), copied=set(),
        )  # fmt: skip

    def agent(self, agent_id: str) -> AgentIndex:
        """The agent's index, to change."""
        if agent_id not in self.copied:
            self.agents[agent_id] = self.agents.get(agent_id, AgentIndex()).copy()
            self.copied.add(agent_id)
        return self.agents[agent_id]
