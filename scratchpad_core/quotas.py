"""The quota rule: which of an agent's counters a quota bounds, how a change is checked, what a refusal says.

An agent's counters (model.Usage) grow and shrink with every write in the write's own transaction; a
quota (a Limits field) bounds three of them. A change that would take a bounded counter past its quota
is refused whole. Storage adapters derive their guards from QUOTAS (the SQL adapter: one conditional
UPDATE per combination of growing counters), imports check their running totals with `first_passed`,
and the server's settings are named after the Limits fields.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from .errors import QuotaExceeded
from .limits import Limits
from .model import Usage, UsageDelta

ADVICE = "Nothing was changed; {do.free_space}, then retry."  # a refusals template: each interface says how


@dataclass(frozen=True)
class QuotaRule:
    counter: str  # the Usage / UsageDelta field it bounds
    limit: str  # the Limits field holding the quota
    title: str  # how a refusal names it
    unit: str  # what the counter counts, plural

    def quota(self, limits: Limits) -> int:
        value: int = getattr(limits, self.limit)
        return value


QUOTAS = (
    QuotaRule("files", "quota_files", "File quota", "files"),
    QuotaRule("log_entries", "quota_log_entries", "Log entry quota", "log entries"),
    QuotaRule("bytes", "quota_bytes", "Storage quota", "bytes"),
)


@dataclass(frozen=True)
class Breach:
    """A change refused by a quota: which one, and the usage the change met."""

    rule: QuotaRule
    usage: Usage

    def error(self, delta: UsageDelta, limits: Limits) -> QuotaExceeded:
        return refusal(self.rule, self.usage, delta, limits)


NO_QUOTA = 2**62  # what a lifted quota bounds a counter by


def lifted(limits: Limits) -> Limits:
    """The limits without their quotas: for an operator's redaction, which removes content and must not be
    refused for the few bytes its markers add (the counters still count them)."""
    return dataclasses.replace(limits, **{rule.limit: NO_QUOTA for rule in QUOTAS})


def quotas_passed_by(delta: UsageDelta, limits: Limits) -> dict[str, int]:
    """{counter: quota} for each bounded counter the delta grows: the guards a write must pass."""
    return {rule.counter: rule.quota(limits) for rule in QUOTAS if getattr(delta, rule.counter) > 0}


def first_passed(totals: Mapping[str, int], limits: Limits) -> QuotaRule | None:
    """The first quota that these totals (counter -> value) pass, if any."""
    return next((rule for rule in QUOTAS if totals.get(rule.counter, 0) > rule.quota(limits)), None)


def breach(usage: Usage, delta: UsageDelta, limits: Limits) -> QuotaRule | None:
    """The quota that applying `delta` to `usage` would pass, or None when it fits."""
    grown = {rule.counter: getattr(usage, rule.counter) + getattr(delta, rule.counter) for rule in QUOTAS}
    return next(
        (rule for rule in QUOTAS if getattr(delta, rule.counter) > 0 and grown[rule.counter] > rule.quota(limits)),
        None,
    )


def refusal(rule: QuotaRule, usage: Usage, delta: UsageDelta, limits: Limits) -> QuotaExceeded:
    """The error an agent gets: whose quota (quotas are the namespace's: every writer of a shared agent draws on
    them), what it uses, and what to do."""
    used, quota = getattr(usage, rule.counter), rule.quota(limits)
    whose = f"Agent {usage.agent_id}'s {rule.title[0].lower()}{rule.title[1:]} exceeded"
    if rule.counter == "bytes":
        needed = delta.bytes
        return QuotaExceeded.said(
            "{whose}: this call needs {needed:,} more byte{s}, but {agent_id} stores {used:,} of {quota:,} bytes. "
            + ADVICE,
            whose=whose, needed=needed, s="s" if needed != 1 else "", agent_id=usage.agent_id, used=used, quota=quota,
        )  # fmt: skip
    return QuotaExceeded.said(
        "{whose}: {agent_id} already has {used:,} of {quota:,} {unit}. " + ADVICE,
        whose=whose, agent_id=usage.agent_id, used=used, quota=quota, unit=rule.unit,
    )  # fmt: skip
