"""The index as it will be once its backlog is caught up, for a search that may not write it (a viewer's store, the
command line's read-only one) or that meets writes made after its catch-up: the stored index, read in the same
snapshot, with the pending files' and logs' rows replaced in memory by the rows of their current content.

Statistics and frequencies stay exact: the replaced rows' documents (their terms, from their own text through the
same analyzer) are counted out, the new ones in. A pending file's new rows belong to an owner of the overlay's
own (a file's owner, so positive, above every stored id), its stored owner is left out; a pending log keeps its
owner, its stored entries outside the live ones are left out and the new entries are added.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ...model import Posting
from ...ports import SearchReader, UnitOfWork
from ...search.indexing import Document, IndexRow, Statistics, document, rows_of, rows_of_lines, split_text
from ...search.words import Analyzer

FIRST_ID = 1 << 62  # the overlay's row and owner ids start here (no stored id comes near)
PENDING_AT_MOST = 1_000_000  # the backlog an overlay reads (every one an agent may have)


@dataclass
class _Owner:
    path: str
    updated_at: int = 0  # a file's last write (0: a log)
    slots: list[int] = field(default_factory=list)  # a new file's; empty for a log


class OverlayIndex:
    """A SearchReader over `stored`, with the agent's backlog applied."""

    def __init__(self, stored: SearchReader, agent_id: str) -> None:
        self._stored = stored
        self._agent = agent_id
        self._hidden: set[int] = set()  # stored owners whose rows are all replaced
        self._live: dict[int, tuple[int, int]] = {}  # a pending log's owner -> the stored entries still live
        self._owners: dict[int, _Owner] = {}  # the overlay's files, by owner
        self._rows: dict[int, tuple[int, int, IndexRow]] = {}  # row id -> (owner, entry, row)
        self._entries: dict[tuple[int, int], str] = {}  # (a log's owner, entry) -> its text
        self._postings: dict[str, list[Posting]] = {}
        self._added: list[Document] = []
        self._removed: list[Document] = []
        self._next = FIRST_ID

    @property
    def analyzer(self) -> Analyzer:
        return self._stored.analyzer

    @classmethod
    def of(cls, uow: UnitOfWork, agent_id: str) -> OverlayIndex | None:
        """The agent's index with its backlog applied, read in uow's snapshot (None: there is no backlog)."""
        files, logs = uow.index.lagging(agent_id, PENDING_AT_MOST)
        if not files and not logs:
            return None
        overlay = cls(uow.index, agent_id)
        for file_id, path in files:
            overlay._file(uow, file_id, path)
        for log_id, path in logs:
            overlay._log(uow, log_id, path)
        return overlay

    def _file(self, uow: UnitOfWork, file_id: int, path: str | None) -> None:
        record = uow.index.file_slots(file_id)
        if record is not None:
            self._hidden.add(record.owner)
            self._take_out(uow.index.texts([abs(slot) for slot in record.slots if slot]).values(), joined=False)
        head = None if path is None else uow.files.get(self._agent, path)
        if head is None or head.id != file_id or head.current_version <= 0:
            return
        version = uow.files.get_version(file_id, head.current_version)
        if version is None:
            return
        owner = self._new_id()
        slots = self._owners.setdefault(owner, _Owner(head.path, head.updated_at)).slots
        for row in rows_of_lines(self.analyzer, split_text(version.content)):
            slots.append(0 if row is None else self._add(owner, 0, row, -1 if row.continued else 1))

    def _log(self, uow: UnitOfWork, log_id: int, path: str | None) -> None:
        indexed = uow.index.log_entries(log_id)
        log = None if path is None else uow.logs.get(self._agent, path)
        first, last = (1, 0)  # no live entries
        if log is not None and log.id == log_id and log.entries > 0:
            first, last = log.last_entry_id - log.entries + 1, log.last_entry_id
            self._owners[-log_id] = _Owner(log.path)
        kept = (1, 0)  # the stored entries still live
        if indexed is not None and last >= first and first - 1 <= indexed[1] <= last:
            kept = (max(first, indexed[0]), indexed[1])
        self._live[-log_id] = kept
        if indexed is not None:
            gone = [e for e in range(indexed[0], indexed[1] + 1) if not kept[0] <= e <= kept[1]]
            self._take_out(uow.index.entry_texts(-log_id, gone).values(), joined=True)
        after = max(first - 1, kept[1])
        while after < last:
            page = uow.logs.entries(log_id, after, 1000)
            if not page:
                break
            for entry in page:
                self._entries[(-log_id, entry.id)] = entry.entry
                for row in rows_of(self.analyzer, entry.entry):
                    self._add(-log_id, entry.id, row, 1)
            after = page[-1].id

    def _take_out(self, texts: Iterable[str], *, joined: bool) -> None:
        for text in texts:
            pieces = rows_of(self.analyzer, text) if joined else [IndexRow(text, tuple(self.analyzer.terms(text)))]
            self._removed.extend(document(row.terms) for row in pieces)

    def _add(self, owner: int, entry: int, row: IndexRow, sign: int) -> int:
        row_id = self._new_id()
        self._rows[row_id] = (owner, entry, row)
        self._added.append(document(row.terms))
        for term, count in Counter(row.terms).items():
            self._postings.setdefault(term, []).append((row_id, owner, entry, count, len(row.terms)))
        return sign * row_id

    def _new_id(self) -> int:
        self._next += 1
        return self._next

    # --- what word_search reads ---------------------------------------------------------------------

    def statistics(self, agent_id: str) -> Statistics:
        return self._stored.statistics(agent_id).changed(self.analyzer.common, self._added, self._removed)

    def frequency(self, agent_id: str, term: str) -> int:
        out = sum(term in terms for _, terms in self._removed)
        return self._stored.frequency(agent_id, term) - out + len(self._postings.get(term, ()))

    def postings(self, agent_id: str, term: str) -> list[Posting]:
        stored = [p for p in self._stored.postings(agent_id, term) if self._shown(p[1], p[2])]
        return stored + self._postings.get(term, [])

    def _shown(self, owner: int, entry: int) -> bool:
        if owner in self._hidden:
            return False
        live = self._live.get(owner)
        return live is None or live[0] <= entry <= live[1]

    def owners(self, agent_id: str, owners: Sequence[int]) -> dict[int, tuple[str, int]]:
        found = self._stored.owners(agent_id, [o for o in owners if o not in self._hidden and o not in self._owners])
        return found | {o: (self._owners[o].path, self._owners[o].updated_at) for o in owners if o in self._owners}

    def owner_slots(self, owner: int) -> Sequence[int]:
        return self._owners[owner].slots if owner >= FIRST_ID else self._stored.owner_slots(owner)

    def texts(self, row_ids: Sequence[int]) -> dict[int, str]:
        out = self._stored.texts([r for r in row_ids if r < FIRST_ID])
        return out | {r: self._rows[r][2].text for r in row_ids if r >= FIRST_ID}

    def entry_texts(self, owner: int, entries: Sequence[int]) -> dict[int, str]:
        out = self._stored.entry_texts(owner, [e for e in entries if self._shown(owner, e)])
        return out | {e: self._entries[(owner, e)] for e in entries if (owner, e) in self._entries}
