"""get_usage_stats: what an agent stores and has done, against its quotas, read from its counters; and the agents
of a store with their counters, for people looking at one. Expired files and log entries past their age, not yet
pruned, count in neither."""

from __future__ import annotations

from collections import defaultdict

from .. import quotas
from ..model import Usage
from ..paths import check_agent_id
from ..ports import UnitOfWork
from ..results import Quota, UsageStats
from ..retention.rules import FILES, RetentionRule
from .aging import aged_usage
from .base import UseCaseBase
from .expiry import visible_usage


class UsageReport(UseCaseBase):
    def get_usage_stats(self, agent_id: str) -> UsageStats:
        """The agent's stored bytes, counts and operations (this call included), read from counters; files that
        have expired (not yet pruned) are not counted, as list_files does not show them."""
        agent_id = check_agent_id(agent_id)

        def work(uow: UnitOfWork) -> UsageStats:
            self._count(uow, agent_id)
            u = aged_usage(uow, visible_usage(uow, uow.usage.get(agent_id), self._clock()), self._clock())
            limits = self.limits
            quota = Quota(**{rule.counter: rule.quota(limits) for rule in quotas.QUOTAS})
            return UsageStats(
                agent_id=agent_id,
                total_bytes=u.bytes,
                file_count=u.files,
                log_count=u.log_entries,
                total_operations=u.operations,
                bytes_saved=u.bytes_saved,
                logs=u.logs,
                quota=quota,
            )

        return self._transact(work)

    def list_agents(self, after: str | None = None, limit: int = 100) -> list[Usage]:
        """The counters of the first `limit` agents after the agent id `after`, by agent id, with expired files
        left out as in get_usage_stats; counts no operation (a person looking at the store)."""

        def work(uow: UnitOfWork) -> list[Usage]:
            rules: defaultdict[str, list[RetentionRule]] = defaultdict(list)
            for rule in uow.retention.all():
                if rule.kind == FILES:
                    rules[rule.agent_id].append(rule)
            now = self._clock()
            return [
                aged_usage(uow, visible_usage(uow, u, now, rules.get(u.agent_id, [])), now)
                for u in uow.usage.page(after, limit)
            ]

        return self._transact(work, read_only=True)

    def find_agent(self, agent_id: str) -> Usage | None:
        """The agent's counters as list_agents gives them; None when the store has never heard of it (no call of
        it was counted). Counts no operation."""
        agent_id = check_agent_id(agent_id)

        def work(uow: UnitOfWork) -> Usage | None:
            found = uow.usage.find(agent_id)
            return None if found is None else aged_usage(uow, visible_usage(uow, found, self._clock()), self._clock())

        return self._transact(work, read_only=True)
