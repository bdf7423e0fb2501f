"""get_usage_stats: what an agent stores and has done, against its quotas, read from its counters."""

from __future__ import annotations

from .. import quotas
from ..paths import check_agent_id
from ..ports import UnitOfWork
from ..results import Quota, UsageStats
from .base import UseCaseBase


class UsageReport(UseCaseBase):
    def get_usage_stats(self, agent_id: str) -> UsageStats:
        """The agent's stored bytes, counts and operations (this call included), read from counters."""
        agent_id = check_agent_id(agent_id)

        def work(uow: UnitOfWork) -> UsageStats:
            self._count(uow, agent_id)
            u = uow.usage.get(agent_id)
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
