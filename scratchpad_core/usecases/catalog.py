"""Every agent's files at once, for whoever owns the whole store (a local MCP client listing its resources)."""

from __future__ import annotations

from dataclasses import dataclass

from ..bounds import MAX_LIST_LIMIT, check_range
from ..ports import UnitOfWork
from ..results import FileInfo
from .base import UseCaseBase
from .expiry import visible


@dataclass(frozen=True)
class StoreFiles:
    files: list[tuple[str, FileInfo]]  # (agent_id, the file)
    next_cursor: tuple[str, str] | None  # (agent_id, path) of the page's last file, when more follow


class Catalog(UseCaseBase):
    def list_store_files(self, *, limit: int = 100, after: tuple[str, str] | None = None) -> StoreFiles:
        """A page of every agent's files, sorted by agent and path, after the cursor; counts no agent's operation."""
        check_range("limit", limit, MAX_LIST_LIMIT)

        def work(uow: UnitOfWork) -> StoreFiles:
            rows = uow.files.list_all(after, limit + 1)
            more = len(rows) > limit
            page = rows[:limit]
            now, shown = self._clock(), {}  # each agent's rules read once; an expired file is not listed
            for agent_id in dict.fromkeys(r.agent_id for r in page):
                shown[agent_id] = visible(uow, agent_id, now)
            files = [(r.agent_id, r.info()) for r in page if shown[r.agent_id](r.path, r.updated_at)]
            return StoreFiles(files, (page[-1].agent_id, page[-1].path) if more else None)

        return self._transact(work, read_only=True)
