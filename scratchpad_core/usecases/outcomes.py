"""What the writing use cases share besides storage: a version committed (or not), an edit call as given, and the
rule that a retry whose change has already landed succeeds (already_applied) instead of conflicting."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import editing
from ..errors import InvalidInput, VersionConflict
from ..model import FileRecord, sha256_hex
from ..ports import UnitOfWork
from ..results import EditResult, WriteResult
from ..text import numbered, split_keepends


@dataclass(frozen=True)
class Committed:
    version: int
    bytes: int
    unchanged: bool | None = None
    already_applied: bool | None = None

    def result(self, path: str) -> WriteResult:
        return WriteResult(path, self.version, self.bytes, self.unchanged, self.already_applied)


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

    def result(
        self, path: str, version: int, size: int, edit: editing.Edit, *, already_applied: bool | None = None
    ) -> EditResult:
        lines = numbered(split_keepends(edit.content), edit.first_line, edit.last_line) if self.snippet else None
        replacements = edit.replacements if edit.replacements > 1 else None
        return EditResult(path, version, size, edit.first_line, edit.last_line, replacements, lines, already_applied)


def edited_already(
    uow: UnitOfWork, record: FileRecord | None, path: str, expected: int, change: Callable[[str], editing.Edit]
) -> editing.Edit:
    """The edit as made on the expected version, when the file now holds exactly its outcome (a retry of an
    edit that landed); otherwise the version conflict."""
    current = record.current_version if record else 0
    conflict = VersionConflict(path, expected, current)
    if record is None or current == 0:
        raise conflict
    old = uow.files.get_version(record.id, expected) if expected else None
    if expected and old is None:
        raise conflict  # not retained (or never made): what the edit made of it cannot be told
    base = old.content if old else ""
    try:
        edit = change(base)
    except InvalidInput:
        raise conflict from None
    if sha256_hex(edit.content) != record.sha256:
        raise conflict
    return edit
