"""Change numbers on the in-memory tables, as migration 0014 keeps them in SQL (scratchpad_core.changes.catchup)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field


@dataclass(frozen=True)
class FileStamp:
    changed: int = 0
    born: int = 0
    redacted: int = 0
    moved_from: str | None = None


@dataclass(frozen=True)
class LogStamp:
    changed: int = 0
    born: int = 0
    dropped: int = 0


@dataclass
class Stamps:
    """Each agent's last change number, and the numbers on its rows (by file or log id; versions and entries by
    (id, number))."""

    heads: dict[str, int] = field(default_factory=dict)
    files: dict[int, FileStamp] = field(default_factory=dict)
    versions: dict[tuple[int, int], int] = field(default_factory=dict)
    logs: dict[int, LogStamp] = field(default_factory=dict)
    entries: dict[tuple[int, int], int] = field(default_factory=dict)

    def copy(self) -> Stamps:
        return Stamps(dict(self.heads), dict(self.files), dict(self.versions), dict(self.logs), dict(self.entries))

    def file(self, file_id: int, **changes: object) -> None:
        self.files[file_id] = dataclasses.replace(self.files.get(file_id, FileStamp()), **changes)  # type: ignore[arg-type]

    def log(self, log_id: int, **changes: int) -> None:
        self.logs[log_id] = dataclasses.replace(self.logs.get(log_id, LogStamp()), **changes)
