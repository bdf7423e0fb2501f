"""The retention rules (scratchpad_core.retention.rules): one row per agent, kind and prefix."""

from __future__ import annotations

from sqlalchemy import ColumnElement, Connection, ScalarSelect, bindparam, delete, func, select

from scratchpad_core.errors import StorageBusy
from scratchpad_core.retention.rules import FILES, RetentionRule

from ..connection.execution import run
from ..schema.tables import retention_rules
from .upserts import upsert

r = retention_rules.c
_COLUMNS = (r.agent_id, r.kind, r.prefix, r.keep_entries, r.max_age)
_OF_AGENT = select(*_COLUMNS).where(r.agent_id == bindparam("agent_id"), r.kind == bindparam("kind"))
_LOCK = _OF_AGENT.where(r.prefix == bindparam("prefix")).with_for_update()
_ALL = select(*_COLUMNS).order_by(r.agent_id, r.kind, r.prefix)
_CLEAR = (
    delete(retention_rules)
    .where(r.agent_id == bindparam("agent_id"), r.kind == bindparam("kind"), r.prefix == bindparam("prefix"))
    .returning(r.prefix)
)


def rule_count(agent_id: ColumnElement[str], kind: str) -> ScalarSelect[int]:
    """How many rules of `kind` the agent has, as a scalar subquery for another statement to return (NoRules)."""
    return select(func.count()).where(r.agent_id == agent_id, r.kind == kind).scalar_subquery()


_COUNT_FILES = select(rule_count(bindparam("agent_id"), FILES))


class KnownRules:
    """The agents this process has found without files rules (one store's, shared by its transactions), so that a
    write need not ask before it starts. Another replica may set one meanwhile: a transaction that took the
    answer from here checks it before it commits (NoRules.assumed), in the agent's counters update that a
    write runs anyway (usage_repository), else with a query of its own."""

    LIMIT = 10_000  # agents remembered; past it the set starts again

    def __init__(self) -> None:
        self._without: set[str] = set()

    def without(self, agent_id: str) -> bool:
        return agent_id in self._without

    def found(self, agent_id: str, count: int) -> None:
        if count:
            self._without.discard(agent_id)
        else:
            if len(self._without) >= self.LIMIT:
                self._without.clear()
            self._without.add(agent_id)


class NoRules:
    """What one transaction knows of its agents' rules without asking again: the (agent, kind) pairs it found
    without rules, counted by a statement it ran anyway (rule_count: an append's insert returns its agent's logs
    rules, from the statement's own snapshot, later than any lock the transaction waited for, as a query of its
    own would have been), and the agents whose files rules it took from the process (KnownRules) and has yet to
    check (assumed). A change to the rules in the transaction forgets them."""

    def __init__(self, known: KnownRules | None = None) -> None:
        self._none: set[tuple[str, str]] = set()
        self.known = KnownRules() if known is None else known
        self.assumed: set[str] = set()

    def saw(self, agent_id: str, kind: str, count: int) -> None:
        if count == 0:
            self._none.add((agent_id, kind))
        if kind == FILES:
            self.known.found(agent_id, count)

    def __contains__(self, key: tuple[str, str]) -> bool:
        return key in self._none

    def assume(self, agent_id: str) -> bool:
        """Whether the process knows the agent has no files rules; then the transaction must check it (checked)."""
        if not self.known.without(agent_id):
            return False
        self.assumed.add(agent_id)
        return True

    def checked(self, agent_id: str, count: int) -> None:
        """The agent's files rules counted late in the transaction: a rule set since it assumed none makes it run
        again (StorageBusy: the call is retried from the start, reading the rules)."""
        self.known.found(agent_id, count)
        if agent_id in self.assumed and count:
            self.assumed.clear()
            raise StorageBusy("Retention rules changed while this call ran; nothing was changed. Retry the call.")
        self.assumed.discard(agent_id)

    def forget(self) -> None:
        self._none.clear()
        self.assumed.clear()


class SqlRetentionRepository:
    def __init__(self, connection: Connection, none: NoRules | None = None) -> None:
        self._c = connection
        self._none = NoRules() if none is None else none

    def rules(self, agent_id: str, kind: str) -> list[RetentionRule]:
        if (agent_id, kind) in self._none or (kind == FILES and self._none.assume(agent_id)):
            return []
        found = [RetentionRule(**row) for row in run(self._c, _OF_AGENT, {"agent_id": agent_id, "kind": kind})]
        self._none.saw(agent_id, kind, len(found))
        return found

    def check_assumed(self) -> None:
        """Before the transaction commits: count the files rules of the agents it assumed had none (NoRules)."""
        for agent_id in sorted(self._none.assumed):
            self._none.checked(agent_id, run(self._c, _COUNT_FILES, {"agent_id": agent_id}).scalar())

    def all(self, agent_id: str | None = None) -> list[RetentionRule]:
        query = _ALL if agent_id is None else _ALL.where(r.agent_id == agent_id)
        return [RetentionRule(**row._mapping) for row in self._c.execute(query)]

    def lock(self, agent_id: str, kind: str, prefix: str) -> RetentionRule | None:
        row = run(self._c, _LOCK, {"agent_id": agent_id, "kind": kind, "prefix": prefix}).first()
        return None if row is None else RetentionRule(**row)

    def set(self, rule: RetentionRule, now: int) -> None:
        self.check_assumed()  # what the transaction took from the process holds up to its own change
        self._none.forget()
        self._none.known.found(rule.agent_id, 1)
        stmt = upsert(
            self._c, retention_rules, ["agent_id", "kind", "prefix"], ["keep_entries", "max_age", "updated_at"]
        )
        run(self._c, stmt, {**vars(rule), "updated_at": now})

    def clear(self, agent_id: str, kind: str, prefix: str) -> bool:
        self.check_assumed()
        self._none.forget()
        params = {"agent_id": agent_id, "kind": kind, "prefix": prefix}
        return bool(run(self._c, _CLEAR, params).scalars())
