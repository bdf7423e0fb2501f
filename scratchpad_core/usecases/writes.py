"""Use cases that change files: write, edit, insert, restore, delete."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from .. import editing
from ..actors import LIBRARY, check_actor
from ..errors import InvalidInput, NotFound, VersionConflict
from ..limits import check_content_size, payload_bytes, utf8_len
from ..model import NotAdvanced, UsageDelta, Version
from ..numbering import check_expected
from ..ports import UnitOfWork
from ..results import DeleteResult, EditResult, WriteResult
from ..retries import Request
from .base import UseCaseBase, checked, not_found, require_file
from .expiry import expire_if_due
from .outcomes import Committed, Edit


class FileWrites(UseCaseBase):
    def write_file(
        self,
        agent_id: str,
        path: str,
        content: str,
        expected_version: int | None = None,
        *,
        request_id: str | None = None,
        actor: str = LIBRARY,
    ) -> WriteResult:
        """Store content as the file's next version (no new version when it is identical); `actor` says who
        makes it (every writing call takes one)."""
        agent_id, path = checked(agent_id, path)
        check_content_size(content, self.limits)
        check_expected(expected_version)
        check_actor(actor)
        request = Request.of(
            agent_id, request_id, "write_file", WriteResult, actor=actor, path=path, content=content,
            expected=expected_version,
        )  # fmt: skip

        def work(uow: UnitOfWork) -> WriteResult:
            expire_if_due(uow, agent_id, path, self._clock(), self.limits)
            head = self._commit(uow, agent_id, path, content, expected_version, actor, create=True)
            return head.result(path)

        return self._transact(work, request=request)

    def edit_file(
        self,
        agent_id: str,
        path: str,
        old_str: str,
        new_str: str,
        replace_all: bool = False,
        expected_version: int | None = None,
        *,
        snippet: bool = False,
        request_id: str | None = None,
        actor: str = LIBRARY,
    ) -> EditResult:
        """Replace one exact occurrence of old_str (or every one, with replace_all).

        The result says where the first replacement landed; snippet=True adds those lines, numbered.
        """
        arguments = {"old": old_str, "new": new_str, "all": replace_all}
        return self._edit(
            Edit("edit_file", agent_id, path, expected_version, snippet, request_id, actor, arguments),
            payload_bytes(old_str, new_str),
            lambda text: editing.replace(text, old_str, new_str, replace_all),
        )

    def insert_lines(
        self,
        agent_id: str,
        path: str,
        line: int,
        text: str,
        expected_version: int | None = None,
        *,
        snippet: bool = False,
        request_id: str | None = None,
        actor: str = LIBRARY,
    ) -> EditResult:
        """Insert text as whole lines after `line` (0: top, -1: end); at 0 or -1 a missing file is created."""
        return self._edit(
            Edit(
                "insert_lines",
                agent_id,
                path,
                expected_version,
                snippet,
                request_id,
                actor,
                {"line": line, "text": text},
            ),
            payload_bytes(text),
            lambda c: editing.insert(c, line, text),
            create_missing=line in (0, -1),
        )

    def restore_version(
        self,
        agent_id: str,
        path: str,
        version: int,
        expected_version: int | None = None,
        *,
        request_id: str | None = None,
        actor: str = LIBRARY,
    ) -> WriteResult:
        """Make a retained version current again, as a new version."""
        agent_id, path = checked(agent_id, path)
        check_expected(expected_version)
        check_actor(actor)
        request = Request.of(
            agent_id, request_id, "restore_version", WriteResult, actor=actor, path=path, version=version,
            expected=expected_version,
        )  # fmt: skip

        def work(uow: UnitOfWork) -> WriteResult:
            expire_if_due(uow, agent_id, path, self._clock(), self.limits)
            record = require_file(uow.files.lock(agent_id, path), agent_id, path)
            current = record.current_version
            if not 1 <= version <= current:
                raise InvalidInput(f"Invalid version {version}: {path} is at version {current}; use 1 to {current}.")
            old = uow.files.get_version(record.id, version)
            if old is None:
                raise NotFound.said(
                    "Version {version} of {path} is not retained. {do.see_versions}",
                    version=version, path=path, agent_id=agent_id,
                )  # fmt: skip
            head = self._commit(uow, agent_id, path, old.content, expected_version, actor, saved=old.bytes)
            return head.result(path)

        return self._transact(work, request=request)

    def delete_file(
        self,
        agent_id: str,
        path: str,
        expected_version: int | None = None,
        *,
        request_id: str | None = None,
        actor: str = LIBRARY,
    ) -> DeleteResult:
        """Delete a file with all its versions and its cached summary (not a log at the same path).

        With an expected_version the file does not have (a file already gone is at version 0), a version conflict.
        """
        agent_id, path = checked(agent_id, path)
        check_expected(expected_version)
        request = Request.of(
            agent_id, request_id, "delete_file", DeleteResult, actor=actor, path=path, expected=expected_version
        )

        def work(uow: UnitOfWork) -> DeleteResult:
            expire_if_due(uow, agent_id, path, self._clock(), self.limits)
            record = uow.files.lock(agent_id, path)
            current = record.current_version if record else 0
            if expected_version is not None and expected_version != current:
                raise VersionConflict(path, expected_version, current)
            if record is None or current == 0:
                self._count(uow, agent_id)
                return DeleteResult(path, deleted=False, versions_removed=0)
            uow.index.drop_file(record.id)
            removed, freed = uow.files.delete(record.id, self._clock(), self.limits.remembered_deletions)
            self._count(uow, agent_id, UsageDelta(files=-1, bytes=-freed))
            return DeleteResult(path, deleted=True, versions_removed=removed)

        return self._transact(work, request=request)

    def _edit(
        self, call: Edit, request_bytes: int, change: Callable[[str], editing.Edit], *, create_missing: bool = False
    ) -> EditResult:
        agent_id, path = checked(call.agent_id, call.path)
        expected_version = call.expected_version
        check_expected(expected_version)
        check_actor(call.actor)
        request = Request.of(
            agent_id, call.request_id, call.operation, EditResult, actor=call.actor, path=path,
            expected=expected_version, snippet=call.snippet, **call.arguments,
        )  # fmt: skip

        def work(uow: UnitOfWork) -> EditResult:
            expire_if_due(uow, agent_id, path, self._clock(), self.limits)
            record = uow.files.lock(agent_id, path)
            if not create_missing:
                record = require_file(record, agent_id, path)
            version = record.current_version if record else 0
            if expected_version is not None and expected_version != version:
                raise VersionConflict(path, expected_version, version)
            content = ""
            if record is not None and version > 0:
                current = uow.files.get_version(record.id, version)
                assert current is not None, "the head version is always retained"
                content = current.content
            edit = change(content)
            check_content_size(edit.content, self.limits)
            saved = max(0, utf8_len(edit.content) - request_bytes)
            head = self._commit(
                uow,
                agent_id,
                path,
                edit.content,
                version,
                call.actor,
                saved=saved,
                create=version == 0,
            )
            return call.result(path, head.version, head.bytes, edit)

        return self._transact(work, request=request)

    def _commit(
        self,
        uow: UnitOfWork,
        agent_id: str,
        path: str,
        content: str,
        expected: int | None,
        actor: str,
        saved: int = 0,
        *,
        create: bool = False,
        indexed: Callable[[int], None] | None = None,
        quotas: bool = True,
        prune: bool = True,
    ) -> Committed:
        """Make `content` the file's next version, unless it equals the current one. The index is not touched:
        the row's new version puts the file in the agent's backlog (usecases.indexer), unless the caller indexes
        it (`indexed`, given the new number before the agent's counters change: one lock order). quotas=False:
        counted, never refused (a redaction). prune=False: no version falls out of the kept window by this one
        (a redaction, which keeps the history it rewrites; the next write prunes back to the window)."""
        head = Version.of(0, content, self._clock(), actor)
        outcome = uow.files.advance(agent_id, path, head, expected)
        if isinstance(outcome, NotAdvanced) and outcome.reason == "missing" and create:
            record = uow.files.lock_or_create(agent_id, path, head.created_at)  # a new row, or the deleted path's
            outcome = uow.files.advance(agent_id, path, head, record.current_version if expected is None else expected)
        if isinstance(outcome, NotAdvanced):
            if outcome.reason == "missing":
                raise not_found(agent_id, path)
            if outcome.reason == "conflict":  # whatever the file holds: a second writer is not a retry
                assert expected is not None, "only an expected version can conflict"
                raise VersionConflict(path, expected, outcome.current_version)
            self._count(uow, agent_id, UsageDelta(bytes_saved=saved), quotas=quotas)
            return Committed(outcome.current_version, 0, unchanged=True)
        number = outcome.version
        uow.files.add_version(outcome.file_id, dataclasses.replace(head, version=number))
        if indexed is not None:
            indexed(number)
        freed = uow.files.prune(outcome.file_id, number - self.limits.max_versions + 1)[1] if prune else 0
        delta = UsageDelta(files=int(outcome.created), bytes=head.bytes - freed, bytes_saved=saved)
        self._count(uow, agent_id, delta, quotas=quotas)
        return Committed(number, head.bytes)
