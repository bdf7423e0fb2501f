"""What an import accepts: each record's fields and types, and the order the records must keep.

Checked before anything is written, so that a hand-edited or truncated export is refused with the
line and the rule, and never leaves a database that later calls would trip over.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scratchpad_core import quotas
from scratchpad_core.actors import MAX_ACTOR_CHARS
from scratchpad_core.errors import InvalidInput, ScratchpadError
from scratchpad_core.limits import Limits, storable_size, utf8_len
from scratchpad_core.model import COUNTERS
from scratchpad_core.numbering import MAX_SEQUENCE
from scratchpad_core.paths import check_agent_id, check_path
from scratchpad_core.retention.rules import KINDS, RetentionRule, make_rule

MAX_NUMBER = 2**63 - 1


@dataclass(frozen=True)
class Number:
    low: int
    high: int = MAX_NUMBER

    def describe(self) -> str:
        return f"a whole number from {self.low} to {self.high:,}"


@dataclass(frozen=True)
class Text:
    max_chars: int | None = None

    def describe(self) -> str:
        return "text" if self.max_chars is None else f"text of at most {self.max_chars} characters"


TEXT = Text()
COUNTER = Number(0)
SEQUENCE = Number(1, MAX_SEQUENCE)
ACTOR = Text(MAX_ACTOR_CHARS)
_FIELDS: dict[str, dict[str, Number | Text]] = {
    "agent": {"agent_id": TEXT, "operations": COUNTER, "bytes_saved": COUNTER},
    "file": {"path": TEXT, "current_version": SEQUENCE, "created_at": COUNTER, "updated_at": COUNTER},
    "version": {"path": TEXT, "version": SEQUENCE, "content": TEXT, "by": ACTOR, "created_at": COUNTER},
    "summary": {"path": TEXT, "version": SEQUENCE, "summary": TEXT, "model": Text(100), "created_at": COUNTER},
    "log": {"path": TEXT, "last_entry_id": Number(0, MAX_SEQUENCE), "created_at": COUNTER, "updated_at": COUNTER},
    "entry": {"path": TEXT, "id": SEQUENCE, "entry": TEXT, "by": ACTOR, "created_at": COUNTER},
    "rule": {"kind": Text(8), "prefix": TEXT},  # its limits: rule_of
}
_OPTIONAL = {("agent", "operations"), ("agent", "bytes_saved"), ("version", "by"), ("entry", "by")}  # by: UNKNOWN


def check_fields(kind: str, record: dict[str, Any], line: int) -> None:
    """Each field the record needs, of its type and range; text that both backends can store."""
    for name, rule in _FIELDS[kind].items():
        if name not in record and (kind, name) in _OPTIONAL:
            continue
        value = record.get(name)
        if isinstance(rule, Number):
            if type(value) is not int or not rule.low <= value <= rule.high:
                raise refused(line, f"the {kind} record needs {name!r} as {rule.describe()} (got {value!r:.60}).")
        elif not isinstance(value, str) or (rule.max_chars is not None and len(value) > rule.max_chars):
            raise refused(line, f"the {kind} record needs {name!r} as {rule.describe()} (got {value!r:.60}).")
        else:
            try:
                storable_size(value, name)
            except ScratchpadError as error:
                raise refused(line, str(error)) from None
    try:
        if kind == "agent":
            check_agent_id(record["agent_id"])
        elif kind != "rule":  # a rule's prefix: rule_of
            check_path(record["path"])
    except ScratchpadError as error:
        raise refused(line, str(error)) from None


def rule_of(agent_id: str, record: dict[str, Any], line: int) -> RetentionRule:
    """The retention rule a rule record holds (scratchpad_core.retention.rules: as `retention set` takes it, its
    max_age in seconds), or the refusal naming the line."""
    for name in ("keep_entries", "max_age"):
        value = record.get(name)
        if value is not None and type(value) is not int:
            raise refused(line, f"the rule record needs {name!r} as a whole number or null (got {value!r:.60}).")
    if record["kind"] not in KINDS:
        raise refused(line, f"the rule record needs 'kind' as one of {', '.join(KINDS)} (got {record['kind']!r:.60}).")
    target = {record["kind"]: record["prefix"]}
    try:
        return make_rule(agent_id, **target, keep_entries=record.get("keep_entries"), max_age=record.get("max_age"))
    except ScratchpadError as error:
        raise refused(line, str(error)) from None


@dataclass
class Numbering:
    """The order one file's versions or one log's entries must keep: increasing, up to the head's number."""

    head: int
    line: int  # where the file or log was defined
    seen: int = 0
    count: int = 0


@dataclass
class AgentOrder:
    """One agent's records as they arrive: defined paths, order, and the limits and quotas they must fit.

    An import may not create what the server itself would refuse: more retained versions than it keeps,
    content beyond the size limits, an agent beyond its quotas, or a summary of a version not yet written.
    """

    limits: Limits
    agent_id: str = ""
    rules: set[tuple[str, str]] = field(default_factory=set)  # (kind, prefix)
    files: dict[str, Numbering] = field(default_factory=dict)
    logs: dict[str, Numbering] = field(default_factory=dict)
    summarized: set[str] = field(default_factory=set)
    totals: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTERS, 0))  # the agent's counters so far

    def check(self, kind: str, record: dict[str, Any], line: int) -> None:
        if kind == "rule":
            rule = rule_of(self.agent_id, record, line)
            if (rule.kind, rule.prefix) in self.rules:
                raise refused(line, f"the {rule.kind} rule on {rule.prefix!r} is defined twice for this agent.")
            self.rules.add((rule.kind, rule.prefix))
            return
        path = str(record.get("path"))
        if kind in ("file", "log"):
            defined = self.files if kind == "file" else self.logs
            if path in defined:
                raise refused(line, f"the {kind} {path!r} is defined twice for this agent.")
            if kind == "file":
                self._within_quotas(line, files=len(self.files) + 1)
            head = record["current_version"] if kind == "file" else record["last_entry_id"]
            defined[path] = Numbering(head, line)
            return
        owners = self.logs if kind == "entry" else self.files
        numbering = owners.get(path)
        if numbering is None:
            owner = "log" if kind == "entry" else "file"
            raise refused(line, f"this {kind} belongs to the {owner} {path!r}, which no earlier record defines.")
        if kind == "summary":
            if path in self.summarized:
                raise refused(line, f"the file {path!r} has a second summary; a file keeps one.")
            if record["version"] > numbering.head:
                raise refused(line, f"the summary is of version {record['version']}, beyond the file's last.")
            self.summarized.add(path)
            return
        number = record["version"] if kind == "version" else record["id"]
        if not numbering.seen < number <= numbering.head:
            raise refused(
                line,
                f"{kind} {number} of {path!r} is out of order: numbers must increase, "
                f"after {numbering.seen} and up to {numbering.head}.",
            )
        numbering.seen, numbering.count = number, numbering.count + 1
        self._fits(kind, record, line, numbering)

    def _fits(self, kind: str, record: dict[str, Any], line: int, numbering: Numbering) -> None:
        limits = self.limits
        text = record["content"] if kind == "version" else record["entry"]
        size = utf8_len(text)
        most = limits.max_file_bytes if kind == "version" else limits.max_log_entry_bytes
        if size > most:
            raise refused(line, f"the {kind} holds {size:,} bytes, over this server's limit of {most:,}.")
        if kind == "version" and numbering.count > limits.max_versions:
            raise refused(line, f"the file keeps more than this server's {limits.max_versions} versions.")
        self.totals["log_entries"] += kind == "entry"
        self.totals["bytes"] += size
        self._within_quotas(line, files=len(self.files))

    def _within_quotas(self, line: int, files: int) -> None:
        """The agent's totals so far against the server's quotas (scratchpad_core.quotas, as every write)."""
        passed = quotas.first_passed({**self.totals, "files": files}, self.limits)
        if passed is not None:
            quota = passed.quota(self.limits)
            raise refused(line, f"the agent has more than its quota of {quota:,} {passed.unit} on this server.")

    def finish(self, line: int) -> None:
        """At the agent's end: each file's records reached its current version, each log's its last entry."""
        for path, numbering in self.files.items():
            if numbering.seen != numbering.head:
                raise refused(
                    numbering.line, f"the file {path!r} is at version {numbering.head}, but no record holds it."
                )
        for path, numbering in self.logs.items():
            if numbering.seen != numbering.head or numbering.seen == 0:
                raise refused(
                    numbering.line, f"the log {path!r} ends at entry {numbering.head}, but no record holds it."
                )


def refused(line: int, reason: str) -> InvalidInput:
    return InvalidInput(f"Import line {line}: {reason} Nothing was imported.")
