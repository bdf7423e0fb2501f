"""Retention: the one home of the rule that drops old log entries (and expires files) of an agent.

A rule names an agent, what it governs (its logs, or its files) and a path prefix: the longest prefix a path
starts with decides (a rule on a log's own path is a prefix too). A logs rule keeps the newest `keep_entries`
entries and/or the entries younger than `max_age`; a files rule makes files expire `max_age` after their last
write. Durations are written as a whole number and a unit: 90s, 15m, 12h, 30d.

Dropping is amortized: an append drops at most DROP_BATCH entries (it adds one, so a log past a new rule
catches up over the next appends, or at `db prune`). Entries go from the front only, so a log's kept ids stay
contiguous: the oldest kept is last_entry_id - entries + 1. Readers do not wait for the drop: an entry older
than its rule's max_age reads as dropped already (kept_from; scratchpad_core.usecases.aging).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import InvalidInput, InvalidPath
from ..paths import check_agent_id, check_path, check_prefix

LOGS, FILES = "logs", "files"
KINDS = (LOGS, FILES)
DROP_BATCH = 64  # entries one append (or one step of a prune) drops at most
UNITS = {"s": 1, "m": 60, "h": 3_600, "d": 86_400}
EXAMPLES = "90s, 15m, 12h or 30d"
MAX_KEEP_ENTRIES = 2**31 - 1  # what every backend stores (a 32-bit integer column)
MAX_DURATION_S = 100 * 365 * 86_400  # a century: beyond it a duration is a typo, not a retention
_DURATION = re.compile(r"(\d{1,12})([smhd])")


def parse_duration(text: str) -> int:
    """Seconds in a duration written like 90s, 15m, 12h, 30d; refused in one line otherwise."""
    found = _DURATION.fullmatch(text.strip()) if isinstance(text, str) else None
    if found is None:
        raise InvalidInput(f"Invalid duration {text!r}: write a whole number and a unit, e.g. {EXAMPLES}.")
    seconds = int(found[1]) * UNITS[found[2]]
    _check_age(seconds, text)
    return seconds


def _check_age(seconds: int, written: object = None) -> int:
    shown = written if written is not None else f"{seconds}s"
    if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds <= 0:
        raise InvalidInput(f"Invalid duration {shown!r}: it must be positive, e.g. {EXAMPLES}.")
    if seconds > MAX_DURATION_S:
        raise InvalidInput(f"Invalid duration {shown!r}: at most 36500d.")
    return seconds


def format_duration(seconds: int) -> str:
    """The duration in its largest whole unit (90s, 15m, 12h, 30d): parse_duration reads it back."""
    for unit in ("d", "h", "m"):
        if seconds % UNITS[unit] == 0:
            return f"{seconds // UNITS[unit]}{unit}"
    return f"{seconds}s"


@dataclass(frozen=True)
class RetentionRule:
    agent_id: str
    kind: str  # LOGS or FILES
    prefix: str
    keep_entries: int | None = None
    max_age: int | None = None  # seconds

    def describe(self) -> str:
        return f"{self.agent_id} {self.kind} {self.prefix or '(all)'}: " + "; ".join(self.limits())

    def limits(self) -> list[str]:
        """What the rule keeps, in words: "keep the newest 1,000 entries", "drop entries older than 30d"."""
        parts = [] if self.keep_entries is None else [f"keep the newest {self.keep_entries:,} entries"]
        if self.max_age is not None:
            verb = "expire" if self.kind == FILES else "drop entries older than"
            parts.append(f"{verb} {format_duration(self.max_age)}" + (" after the last write" * (self.kind == FILES)))
        return parts


def make_rule(
    agent_id: str,
    *,
    logs: str | None = None,
    files: str | None = None,
    keep_entries: int | None = None,
    max_age: str | int | None = None,
) -> RetentionRule:
    """A checked rule: exactly one of logs or files (a path prefix), and keep_entries and/or max_age (a
    duration string or seconds), each positive; a files rule has max_age only."""
    agent_id = check_agent_id(agent_id)
    kind, prefix = target(logs, files)
    keep, age = check_keep(keep_entries), check_max_age(max_age)
    if keep is None and age is None:
        raise InvalidInput(NOTHING_GIVEN)
    if kind == FILES and keep is not None:
        raise InvalidInput(FILES_KEEP_NO_ENTRIES)
    return RetentionRule(agent_id, kind, prefix, keep, age)


NOTHING_GIVEN = f"Invalid retention rule: give keep-entries N, max-age DURATION ({EXAMPLES}) or both; nothing was set."
FILES_KEEP_NO_ENTRIES = "Invalid retention rule: keep-entries is for logs; a files rule takes max-age only."


def check_keep(keep_entries: int | None) -> int | None:
    if keep_entries is not None and (isinstance(keep_entries, bool) or not isinstance(keep_entries, int)):
        raise InvalidInput(f"Invalid keep-entries {keep_entries!r}: give a whole number of entries, at least 1.")
    if keep_entries is not None and keep_entries <= 0:
        raise InvalidInput(f"Invalid keep-entries {keep_entries}: it must be positive (at least 1 entry is kept).")
    if keep_entries is not None and keep_entries > MAX_KEEP_ENTRIES:
        raise InvalidInput(f"Invalid keep-entries {keep_entries}: at most {MAX_KEEP_ENTRIES:,} (a log's entry ids).")
    return keep_entries


def check_max_age(max_age: str | int | None) -> int | None:
    """Seconds, from a duration string or seconds (None: no max_age)."""
    return None if max_age is None else parse_duration(max_age) if isinstance(max_age, str) else _check_age(max_age)


def target(logs: str | None, files: str | None) -> tuple[str, str]:
    """(kind, prefix) from the one of logs or files given."""
    if (logs is None) == (files is None):
        raise InvalidInput("Invalid retention target: give a logs prefix or a files prefix, exactly one of the two.")
    kind, prefix = (LOGS, logs) if logs is not None else (FILES, files)
    if check_prefix(prefix) != prefix:  # a prefix no path can have would govern nothing: a typo
        raise InvalidInput(f"Invalid {kind} prefix {prefix!r}: only the characters [a-zA-Z0-9/_.-] are allowed.")
    try:  # and so would one that starts no valid path ('/abs', '../x'): the path rule says why
        check_path(prefix + "x")
    except InvalidPath as error:
        raise InvalidInput(f"Invalid {kind} prefix {prefix!r}: no path starts so. {error}") from None
    return kind, prefix


def nested(rules: Iterable[RetentionRule], rule: RetentionRule) -> list[str]:
    """The prefixes of the longer rules inside `rule`'s prefix: the paths under them are theirs, not `rule`'s
    (the longest prefix decides), so what `rule` governs is its prefix without these."""
    return sorted(r.prefix for r in rules if len(r.prefix) > len(rule.prefix) and r.prefix.startswith(rule.prefix))


def rule_for(rules: Iterable[RetentionRule], path: str) -> RetentionRule | None:
    """The rule that governs `path`: of those whose prefix it starts with, the longest."""
    best: RetentionRule | None = None
    for rule in rules:
        if path.startswith(rule.prefix) and (best is None or len(rule.prefix) > len(best.prefix)):
            best = rule
    return best


def age_threshold(rule: RetentionRule, now: int) -> int | None:
    """Entries (files) written before this time (ms) are past the rule's max_age; None: no max_age."""
    return None if rule.max_age is None else now - rule.max_age * 1000


def kept_from(first: int, last: int, first_young: int | None) -> int:
    """The oldest entry id a reader sees of the log first..last under a rule with max_age: entries older than
    it read as dropped, whether or not an append or a prune has dropped them yet, and, as a drop does, from
    the front only (ids stay contiguous). first_young: the oldest entry made at or after age_threshold (None:
    none is, and last + 1 says that nothing is seen)."""
    return last + 1 if first_young is None else max(first, first_young)


def drop_window(rule: RetentionRule, first: int, last: int) -> tuple[int, int]:
    """The entry ids a trim of the log first..last may drop, as (count_below, batch_end): every id below
    count_below goes by keep_entries (first: none), and no id from batch_end on goes this time."""
    count_below = first if rule.keep_entries is None else max(first, last - rule.keep_entries + 1)
    return count_below, min(first + DROP_BATCH, last + 1)


def drop_below(rule: RetentionRule, first: int, last: int, first_young: int | None) -> int:
    """Drop the ids first..result-1 of the log first..last. first_young: the oldest id below the batch's end
    younger than max_age (None: none is; ignored without max_age)."""
    count_below, end = drop_window(rule, first, last)
    age_below = first if rule.max_age is None else kept_from(first, end - 1, first_young)
    return min(max(count_below, age_below), end)


def expired(rule: RetentionRule | None, updated_at: int, now: int) -> bool:
    """Whether a file last written at `updated_at` has expired by `now` under `rule` (exactly max_age old: not
    yet)."""
    since = None if rule is None else age_threshold(rule, now)
    return since is not None and updated_at < since
