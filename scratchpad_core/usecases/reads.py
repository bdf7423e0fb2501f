"""Use cases that read files: full, sliced, historical and diffed reads; listings; versions."""

from __future__ import annotations

import dataclasses
import json
from typing import Literal, get_args

from .. import diffing, hunks
from ..bounds import MAX_LIST_LIMIT, check_range
from ..errors import InvalidInput, NotFound, StorageBusy
from ..limits import utf8_len
from ..model import FileRecord, UsageDelta, Version
from ..paths import check_agent_id, check_cursor, check_prefix
from ..ports import UnitOfWork
from ..redaction import rules as redaction
from ..results import FileListing, ReadResult, VersionList
from ..text import split_keepends
from .base import UseCaseBase, checked, require_file
from .expiry import every_file, live, visible

DiffFormat = Literal["chunks", "unified", "compact"]  # the first is the default, the original's
DIFF_FORMATS: tuple[DiffFormat, ...] = get_args(DiffFormat)
DEFAULT_FORMAT: DiffFormat = DIFF_FORMATS[0]


class FileReads(UseCaseBase):
    def read_file(
        self,
        agent_id: str,
        path: str,
        since_version: int | None = None,
        *,
        context: int = diffing.DEFAULT_CONTEXT,
        format: DiffFormat = DEFAULT_FORMAT,
        version: int | None = None,
        start_line: int | None = None,
        max_lines: int | None = None,
        max_bytes: int | None = None,
    ) -> ReadResult:
        """The current content, a diff since a version, a retained version, or a slice of lines.

        max_bytes bounds a read to the end of the file (a full read, or a slice with start_line and no
        max_lines; not a diff) for a client that caps a tool result: past it, the reply holds the whole
        lines within it (UTF-8 bytes; a single longer line comes cut to it), with truncated, total_lines and
        the next_start_line to go on from. None (the default) returns every line.
        """
        agent_id, path = checked(agent_id, path)
        sliced = start_line is not None or max_lines is not None
        if since_version is not None and (version is not None or sliced):
            raise InvalidInput(
                "Invalid read: since_version returns a diff; "
                "it cannot be combined with version, start_line or max_lines."
            )
        if format not in DIFF_FORMATS:
            raise InvalidInput(
                "Invalid format: use 'chunks' (JSON chunks), 'unified' (a unified diff) "
                "or 'compact' (hunks: where the text changed and the new lines)."
            )
        diffing.check_context(context)
        if start_line is not None and start_line < 1:
            raise InvalidInput.said("Invalid {argument}: lines are numbered from 1.", argument="start_line")
        if max_lines is not None and max_lines < 1:
            raise InvalidInput("Invalid max_lines: it must be at least 1.")
        if max_bytes is not None and max_bytes < 1:
            raise InvalidInput("Invalid max_bytes: use None (no bound) or at least 1.")

        def work(uow: UnitOfWork) -> ReadResult:
            record = require_file(live(uow, uow.files.get(agent_id, path), self._clock()), agent_id, path)
            if since_version is not None:
                result, saved = _diff(uow, record, since_version, context, format)
            else:
                result, saved = _content(uow, record, version, start_line, max_lines, max_bytes)
            self._count(uow, agent_id, UsageDelta(bytes_saved=max(0, saved)))
            return result

        return self._transact(work)

    def list_files(
        self, agent_id: str, prefix: str | None = None, *, limit: int | None = None, cursor: str | None = None
    ) -> FileListing:
        """Metadata of the agent's files whose path starts with `prefix`, sorted by path."""
        agent_id = check_agent_id(agent_id)
        prefix = check_prefix(prefix)
        check_range("limit", limit, MAX_LIST_LIMIT)
        after = check_cursor(cursor)

        def work(uow: UnitOfWork) -> FileListing:
            rows = uow.files.listing(agent_id, prefix, after, None if limit is None else limit + 1)
            more = limit is not None and len(rows) > limit
            page = rows[:limit] if more else rows
            cursor = page[-1].path if more else None
            shown = visible(uow, agent_id, self._clock())  # an expired file is not listed (a page may come short)
            if shown is not every_file:
                page = [row for row in page if shown(row.path, row.updated_at)]
            self._count(uow, agent_id)
            return FileListing(page, len(page), cursor)

        return self._transact(work)

    def list_versions(self, agent_id: str, path: str) -> VersionList:
        """Metadata of each retained version, oldest first, without content."""
        agent_id, path = checked(agent_id, path)

        def work(uow: UnitOfWork) -> VersionList:
            record = require_file(live(uow, uow.files.get(agent_id, path), self._clock()), agent_id, path)
            versions = uow.files.list_versions(record.id)
            self._count(uow, agent_id)
            return VersionList(path, record.current_version, list(versions))

        return self._transact(work)


def _diff(uow: UnitOfWork, record: FileRecord, since: int, context: int, fmt: DiffFormat) -> tuple[ReadResult, int]:
    result, saved = _full_diff(uow, record, since, context, fmt)
    if fmt == "compact":  # the lean reply leaves out what the reader sent, and flags that are false
        too_old = result.version_too_old or None
        result = dataclasses.replace(result, path=None, since_version=None, version_too_old=too_old)
    return result, saved


def _full_diff(
    uow: UnitOfWork, record: FileRecord, since: int, context: int, fmt: DiffFormat
) -> tuple[ReadResult, int]:
    path, current = record.path, record.current_version
    if not 1 <= since <= current:
        raise InvalidInput.said(
            "Invalid {argument} {since}: {path} is at version {current}; use a version from 1 to {current}.",
            argument="since_version", since=since, path=path, current=current, agent_id=record.agent_id,
        )  # fmt: skip
    diff: list[diffing.Chunk] | list[hunks.Hunk] | str = "" if fmt == "unified" else []
    if since == current:
        return ReadResult(
            path=path, current_version=current, since_version=since, version_too_old=False, unchanged=True, diff=diff
        ), record.bytes
    head = _version(uow, record, current)
    old = uow.files.get_version(record.id, since)
    if old is None:
        return ReadResult(
            path=path, current_version=current, content=head.content, since_version=since, version_too_old=True
        ), 0
    if fmt == "unified":
        names = {"old_name": f"{path}@{since}", "new_name": f"{path}@{current}"}
        diff = diffing.unified_diff(old.content, head.content, context, **names)
        size = utf8_len(diff)
    elif fmt == "compact":
        diff = hunks.diff_hunks(old.content, head.content)
        size = utf8_len(_json([dataclasses.asdict(h) for h in diff]))
    else:
        diff = diffing.diff_chunks(old.content, head.content, context)
        size = utf8_len(_json([c.as_json() for c in diff]))
    redacted = redaction.holds_marker(old.content) or None  # the diff starts from the marker, and says so
    return ReadResult(
        path=path, current_version=current, since_version=since, version_too_old=False, diff=diff, redacted=redacted
    ), head.bytes - size


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _content(
    uow: UnitOfWork,
    record: FileRecord,
    version: int | None,
    start_line: int | None,
    max_lines: int | None,
    max_bytes: int | None,
) -> tuple[ReadResult, int]:
    path, current = record.path, record.current_version
    if version is not None and not 1 <= version <= current:
        raise InvalidInput.said(
            "Invalid {argument} {version}: {path} is at version {current}; use 1 to {current}.",
            argument="version", version=version, path=path, current=current,
        )  # fmt: skip
    target = _version(uow, record, version or current, required=version is None)
    if start_line is None and max_lines is None and (max_bytes is None or target.bytes <= max_bytes):
        return ReadResult(path=path, current_version=current, content=target.content, version=version), 0
    lines = split_keepends(target.content)
    start = start_line or 1
    if start > max(len(lines), 1):
        raise InvalidInput.said(
            "Invalid {argument} {start}: {path} has {lines} line{s}.",
            argument="start_line", start=start, path=path, lines=len(lines), s="" if len(lines) == 1 else "s",
        )  # fmt: skip
    if max_lines is None and max_bytes is not None:  # a read to the end: bounded like a full one
        end, text, whole = _within(lines, start, max_bytes)
        if end < len(lines) or not whole:
            sliced = start_line is not None
            result = ReadResult(
                path=path,
                current_version=current,
                content=text,
                version=version,
                start_line=start if sliced else None,
                end_line=end if sliced else None,
                total_lines=len(lines),
                truncated=True,
                next_start_line=end + 1 if end < len(lines) else None,
            )
            return result, target.bytes - utf8_len(text)
    end = len(lines) if max_lines is None else min(len(lines), start + max_lines - 1)
    text = "".join(lines[start - 1 : end])
    result = ReadResult(
        path=path,
        current_version=current,
        content=text,
        version=version,
        start_line=start,
        end_line=end,
        total_lines=len(lines),
    )
    return result, target.bytes - utf8_len(text)


def _within(lines: list[str], start: int, max_bytes: int) -> tuple[int, str, bool]:
    """(last line, text, whether it is whole lines) from `start` within max_bytes: the whole lines that fit,
    or a first line longer than the bound cut to it (on a character boundary), so a reader always moves on."""
    end, size = start - 1, 0
    while end < len(lines) and size + utf8_len(lines[end]) <= max_bytes:
        size += utf8_len(lines[end])
        end += 1
    if end >= start:
        return end, "".join(lines[start - 1 : end]), True
    return start, lines[start - 1].encode("utf-8")[:max_bytes].decode("utf-8", "ignore"), False


def _version(uow: UnitOfWork, record: FileRecord, number: int, required: bool = True) -> Version:
    found = uow.files.get_version(record.id, number)
    if found is not None:
        return found
    if required:
        raise StorageBusy(f"{record.path} changed while it was being read; retry.")
    raise NotFound.said(
        "Version {version} of {path} is no longer retained. {do.see_versions}",
        version=number,
        path=record.path,
        agent_id=record.agent_id,
    )
