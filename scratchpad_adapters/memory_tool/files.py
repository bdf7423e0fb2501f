"""The memory tool's commands on one agent's scratchpad files; the sync and async tools both call these.

Every change is one use-case call, so one transaction: create and the edits write a version (an edit
re-reads and retries when another writer got there first), delete removes a file or every file under a
folder, rename moves a file or a folder with their versions. The reads before a change only decide which
reference answer applies.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from anthropic.lib.tools import ToolError

from scratchpad_core.actors import LIBRARY, check_actor
from scratchpad_core.errors import NotFound, ScratchpadError, VersionConflict
from scratchpad_core.paths import check_agent_id
from scratchpad_core.results import FileInfo
from scratchpad_core.service import Scratchpad

from . import texts
from .paths import ancestors, into_itself, not_a_directory, refused, resolve, storable

EDIT_ATTEMPTS = 10  # reads and writes of one edit, when other writers keep getting there first


class MemoryFiles:
    def __init__(self, store: Scratchpad, agent_id: str, actor: str = LIBRARY) -> None:
        self.store = store
        self.agent_id = check_agent_id(agent_id)
        self.actor = check_actor(actor)

    def view(self, path: str, view_range: Sequence[int] | None) -> str:
        relative = resolve(path)
        with _refusals("view", path):
            read = self._read(relative)
            if read is not None:
                return texts.file_view(path, read[0], view_range)
            files = self._under(relative)
            if relative and not files:
                raise ToolError(f"The path {path} does not exist. Please provide a valid path.")
            return texts.listing(path, files, _folder(relative))

    def create(self, path: str, file_text: str) -> str:
        relative = resolve(path)
        with _refusals("create", path):
            if relative and any(self._is_file(folder) for folder in ancestors(relative)):
                raise not_a_directory()
            if not relative or self._is_dir(relative):
                raise ToolError(f"File {path} already exists")
            try:
                self.store.write_file(self.agent_id, relative, file_text, expected_version=0, actor=self.actor)
            except VersionConflict:
                raise ToolError(f"File {path} already exists") from None
        return f"File created successfully at: {path}"

    def str_replace(self, path: str, old_str: str, new_str: str) -> str:
        result = ""

        def change(content: str) -> str:
            nonlocal result
            new_content, result = texts.replaced(path, content, old_str, new_str)
            return new_content

        self._edit(path, change)
        return result

    def insert(self, path: str, insert_line: int, insert_text: str) -> str:
        self._edit(path, lambda content: texts.inserted(content, insert_line, insert_text))
        return f"The file {path} has been edited."

    def delete(self, path: str) -> str:
        relative = resolve(path)
        if not relative:
            raise ToolError("Cannot delete the /memories directory itself")
        with _refusals("delete", path):
            if not (storable(relative) and self.store.delete_file(self.agent_id, relative).deleted):
                folder = _folder(relative)
                if not (storable(folder) and self.store.delete_prefix(self.agent_id, folder).files_deleted):
                    raise ToolError(f"The path {path} does not exist")
        return f"Successfully deleted {path}"

    def rename(self, old_path: str, new_path: str) -> str:
        old, new = resolve(old_path), resolve(new_path)
        if not old:
            raise ToolError("Cannot rename the /memories directory itself")
        with _refusals("rename", old_path):
            if not new or self._is_file(new) or self._is_dir(new):
                raise ToolError(f"The destination {new_path} already exists")
            if self._check_rename(old_path, old, new):  # a file
                self._move(old_path, lambda: self.store.rename_file(self.agent_id, old, new))
            else:
                self._move(old_path, lambda: self.store.rename_prefix(self.agent_id, f"{old}/", f"{new}/"))
        return f"Successfully renamed {old_path} to {new_path}"

    def _check_rename(self, old_path: str, old: str, new: str) -> bool:
        """The reference's refusals in its order: it makes new's folders, then the system's rename(2) looks up
        old's folders, new's folder, then old, and refuses moving a folder into itself. True: old is a file."""
        made = ancestors(new)  # the reference makes these folders first (here they only count as folders)
        if any(self._is_file(folder) for folder in made[:-1]):
            raise not_a_directory()
        for folder in ancestors(old):
            if self._is_file(folder):
                raise not_a_directory()
            if folder not in made and not self._is_dir(folder):
                raise ToolError(f"The path {old_path} does not exist")
        if made and self._is_file(made[-1]):
            raise not_a_directory()
        if new.startswith(f"{old}/"):  # a folder, or made one just now
            raise into_itself()
        is_file = self._is_file(old)
        if not is_file and not self._is_dir(old):
            raise ToolError(f"The path {old_path} does not exist")
        return is_file

    def clear_all_memory(self) -> str:
        with _refusals("clear", "/memories"):
            self.store.delete_prefix(self.agent_id, "")
        return "All memory cleared"

    def _edit(self, path: str, change: Callable[[str], str]) -> None:
        """Read, change and write back at the version read: one transaction writes; a concurrent write retries."""
        relative = resolve(path)
        with _refusals("edit", path):
            for attempt in range(EDIT_ATTEMPTS):
                read = self._read(relative)
                if read is None and (not relative or self._is_dir(relative)):
                    raise ToolError(f"The path {path} is not a file.")
                if read is None:
                    raise ToolError(f"The path {path} does not exist. Please provide a valid path.")
                content, version = read
                try:
                    self.store.write_file(
                        self.agent_id, relative, change(content), expected_version=version, actor=self.actor
                    )
                    return
                except VersionConflict:
                    time.sleep(random.uniform(0, 0.001 * 2**attempt))  # jitter: racing writers fall out of step
            raise ToolError(f"Cannot edit {path}: other writers kept changing it; nothing was changed. Retry.")

    def _move(self, old_path: str, move: Callable[[], object]) -> None:
        try:
            move()
        except NotFound:  # moved or deleted meanwhile
            raise ToolError(f"The path {old_path} does not exist") from None

    def _read(self, relative: str) -> tuple[str, int] | None:
        """The file's content and version; None when no file is there."""
        if not relative or not storable(relative):
            return None
        try:
            read = self.store.read_file(self.agent_id, relative)
        except NotFound:
            return None
        assert read.content is not None, "a whole read has content"
        return read.content, read.current_version

    def _under(self, relative: str, limit: int | None = None) -> list[FileInfo]:
        """The files in the folder (every file, for /memories); none for a path no file can lie under."""
        folder = _folder(relative)
        if folder and not storable(folder):
            return []
        return self.store.list_files(self.agent_id, folder, limit=limit).files

    def _is_file(self, relative: str) -> bool:
        if not storable(relative):
            return False
        found = self.store.list_files(self.agent_id, relative, limit=1).files  # the path itself sorts first
        return bool(found) and found[0].path == relative

    def _is_dir(self, relative: str) -> bool:
        """A folder exists while a file lies under it (scratchpad has files only); /memories always does."""
        return not relative or bool(self._under(relative, limit=1))


def _folder(relative: str) -> str:
    """The prefix of the files in a folder ("" for /memories)."""
    return f"{relative}/" if relative else ""


@contextmanager
def _refusals(verb: str, path: str) -> Iterator[None]:
    """Scratchpad's refusals inside the block become the tool's errors: `Cannot <verb> <path>: <why>`."""
    try:
        yield
    except ScratchpadError as error:
        raise refused(verb, path, error) from error
