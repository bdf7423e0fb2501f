"""What the writing use cases share besides storage: a version committed (or not), and an edit call as given."""

from __future__ import annotations

from dataclasses import dataclass

from .. import editing
from ..results import EditResult, WriteResult
from ..text import numbered, split_keepends


@dataclass(frozen=True)
class Committed:
    version: int
    bytes: int
    unchanged: bool | None = None

    def result(self, path: str) -> WriteResult:
        return WriteResult(path, self.version, self.bytes, self.unchanged)


@dataclass(frozen=True)
class Edit:
    """An edit call as given: which tool, for whom, the version it expects, who makes it (the actor) and its own
    arguments (which, with the path, the expected version and snippet, name the call a request_id stands for)."""

    operation: str
    agent_id: str
    path: str
    expected_version: int | None
    snippet: bool
    request_id: str | None
    actor: str
    arguments: dict[str, object]

    def result(self, path: str, version: int, size: int, edit: editing.Edit) -> EditResult:
        lines = numbered(split_keepends(edit.content), edit.first_line, edit.last_line) if self.snippet else None
        replacements = edit.replacements if edit.replacements > 1 else None
        return EditResult(path, version, size, edit.first_line, edit.last_line, replacements, lines)
