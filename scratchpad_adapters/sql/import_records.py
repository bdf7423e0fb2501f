"""What an import accepts: each record's fields and types, and the order the records must keep.

Checked before anything is written, so that a hand-edited or truncated export is refused with the
line and the rule, and never leaves a database that later calls would trip over.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scratchpad_core.errors import InvalidInput, ScratchpadError
from scratchpad_core.limits import storable_size
from scratchpad_core.model import MAX_SEQUENCE
from scratchpad_core.paths import check_agent_id, check_path

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
_FIELDS: dict[str, dict[str, Number | Text]] = {
    "agent": {"agent_id": TEXT, "operations": COUNTER, "bytes_saved": COUNTER},
    "file": {"path": TEXT, "current_version": SEQUENCE, "created_at": COUNTER, "updated_at": COUNTER},
    "version": {"path": TEXT, "version": SEQUENCE, "content": TEXT, "created_at": COUNTER},
    "summary": {"path": TEXT, "version": SEQUENCE, "summary": TEXT, "model": Text(100), "created_at": COUNTER},
    "log": {"path": TEXT, "last_entry_id": Number(0, MAX_SEQUENCE), "created_at": COUNTER, "updated_at": COUNTER},
    "entry": {"path": TEXT, "id": SEQUENCE, "entry": TEXT, "created_at": COUNTER},
}
_OPTIONAL = {("agent", "operations"), ("agent", "bytes_saved")}


def check_fields(kind: str, record: dict[str, Any], line: int) -> None:
    """Each field the record needs, of its type and range; text that both backends can store."""
    for name, rule in _FIELDS[kind].items():
        if name not in record and (kind, name) in _OPTIONAL:
            continue
        value = record.get(name)
        if isinstance(rule, Number):
            if type(value) is not int or not rule.low <= value <= rule.high:
                raise _refused(line, f"the {kind} record needs {name!r} as {rule.describe()} (got {value!r:.60}).")
        elif not isinstance(value, str) or (rule.max_chars is not None and len(value) > rule.max_chars):
            raise _refused(line, f"the {kind} record needs {name!r} as {rule.describe()} (got {value!r:.60}).")
        else:
            try:
                storable_size(value, name)
            except ScratchpadError as error:
                raise _refused(line, str(error)) from None
    try:
        if kind == "agent":
            check_agent_id(record["agent_id"])
        else:
            check_path(record["path"])
    except ScratchpadError as error:
        raise _refused(line, str(error)) from None


@dataclass
class Numbering:
    """The order one file's versions or one log's entries must keep: increasing, up to the head's number."""

    head: int
    seen: int = 0


@dataclass
class AgentOrder:
    """Which paths an agent's records have defined, and how far each file's versions and log's entries got."""

    files: dict[str, Numbering] = field(default_factory=dict)
    logs: dict[str, Numbering] = field(default_factory=dict)
    summarized: set[str] = field(default_factory=set)

    def check(self, kind: str, record: dict[str, Any], line: int) -> None:
        path = record.get("path")
        if kind in ("file", "log"):
            defined = self.files if kind == "file" else self.logs
            if path in defined:
                raise _refused(line, f"the {kind} {path!r} is defined twice for this agent.")
            head = record["current_version"] if kind == "file" else record["last_entry_id"]
            defined[str(path)] = Numbering(head)
        elif kind == "summary":
            if path in self.summarized:
                raise _refused(line, f"the file {path!r} has a second summary; a file keeps one.")
            self.summarized.add(str(path))
        elif kind in ("version", "entry"):
            owners = self.files if kind == "version" else self.logs
            number = record["version"] if kind == "version" else record["id"]
            sequence = owners.get(str(path))
            if sequence is not None:
                if not sequence.seen < number <= sequence.head:
                    raise _refused(
                        line,
                        f"{kind} {number} of {path!r} is out of order: numbers must increase, "
                        f"after {sequence.seen} and up to {sequence.head}.",
                    )
                sequence.seen = number


def _refused(line: int, reason: str) -> InvalidInput:
    return InvalidInput(f"Import line {line}: {reason} Nothing was imported.")
