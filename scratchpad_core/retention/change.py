"""Changing a retention rule (scratchpad_core.retention.rules) in place: `retention set` on a prefix that already has a
rule changes only the limits it is given, and removes those it is told to; the other limits stay.

A change is checked whole before anything is read (the target, each limit given, what may be removed), and
applied to the rule it finds (None: the prefix has none, and the change makes one of the limits given).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from ..errors import InvalidInput
from ..paths import check_agent_id
from .rules import (
    FILES,
    FILES_KEEP_NO_ENTRIES,
    NOTHING_GIVEN,
    RetentionRule,
    check_keep,
    check_max_age,
    make_rule,
    target,
)

KEEP_ENTRIES, MAX_AGE = "keep_entries", "max_age"  # a rule's limits, by their field names
LIMITS = (KEEP_ENTRIES, MAX_AGE)


def _shown(limit: str) -> str:
    return limit.replace("_", "-")


@dataclass(frozen=True)
class RuleChange:
    agent_id: str
    kind: str
    prefix: str
    keep_entries: int | None  # None: unchanged (or removed)
    max_age: int | None  # seconds; None: unchanged (or removed)
    remove: frozenset[str]  # of LIMITS

    def applied_to(self, existing: RetentionRule | None) -> RetentionRule:
        """The rule after this change: the limits given, the existing rule's others unless removed."""
        kept = {limit: None if existing is None else getattr(existing, limit) for limit in LIMITS}
        given = {KEEP_ENTRIES: self.keep_entries, MAX_AGE: self.max_age}
        result = {limit: given[limit] if given[limit] is not None else kept[limit] for limit in LIMITS}
        result.update(dict.fromkeys(self.remove))
        removed = " and ".join(map(_shown, sorted(self.remove)))
        if existing is None and result[KEEP_ENTRIES] is None and result[MAX_AGE] is None:
            raise InvalidInput(
                f"Invalid retention rule: agent {self.agent_id!r} has no rule on {self.kind} {self.prefix!r} to "
                f"remove {removed} from; give the limits of a new one. Nothing was set."
            )
        if result[KEEP_ENTRIES] is None and result[MAX_AGE] is None:
            raise InvalidInput(
                f"Invalid retention rule: without {removed} the rule on "
                f"{self.kind} {self.prefix!r} of agent {self.agent_id!r} would keep everything; clear the rule "
                "instead. Nothing was set."
            )
        logs, files = (None, self.prefix) if self.kind == FILES else (self.prefix, None)
        return make_rule(
            self.agent_id, logs=logs, files=files, keep_entries=result[KEEP_ENTRIES], max_age=result[MAX_AGE]
        )


def rule_change(
    agent_id: str,
    *,
    logs: str | None = None,
    files: str | None = None,
    keep_entries: int | None = None,
    max_age: str | int | None = None,
    remove: Collection[str] = (),
) -> RuleChange:
    """A checked change: one target (logs or files, a prefix); limits given (each as make_rule takes it) and/or
    limits to remove ("keep_entries", "max_age"), at least one, none both given and removed."""
    agent_id = check_agent_id(agent_id)
    kind, prefix = target(logs, files)
    keep, age = check_keep(keep_entries), check_max_age(max_age)
    removed = frozenset(remove)
    unknown = sorted(removed - set(LIMITS))
    if unknown:
        raise InvalidInput(f"Invalid limit to remove {unknown[0]!r}: a rule's limits are keep_entries and max_age.")
    if keep is None and age is None and not removed:
        raise InvalidInput(NOTHING_GIVEN)
    both = sorted(
        limit for limit, value in ((KEEP_ENTRIES, keep), (MAX_AGE, age)) if value is not None and limit in removed
    )
    if both:
        raise InvalidInput(f"Invalid retention rule: {_shown(both[0])} is both given and removed; nothing was set.")
    if kind == FILES and (keep is not None or KEEP_ENTRIES in removed):
        raise InvalidInput(FILES_KEEP_NO_ENTRIES)
    return RuleChange(agent_id, kind, prefix, keep, age, removed)
