"""A plain in-memory model of the README's rules for the writing tools, written for this test alone.

It shares no code with scratchpad's rules (only the error classes, to name a refusal, and Limits, to be
configured alike). Each call returns the reply fields the README promises, or raises Refused naming the
error; a refused call changes nothing. The rules, as the README states them:

- a write makes version N+1 of the path (N: its last number, remembered after a delete); identical content
  makes none (unchanged); the newest max_versions versions are kept;
- expected_version: on a mismatch nothing changes and the call conflicts, whatever the file holds (a file that
  does not exist is at version 0, so a delete of a file already gone conflicts too); 0 means "must not exist";
- edit_file replaces exactly one occurrence (or all with replace_all); insert_lines puts whole lines after
  a line (0 top, -1 end; either creates a missing file);
- log entry ids count up within a log and carry on after delete_log;
- sizes and quotas in UTF-8 bytes: a call past max_file_bytes / max_log_entry_bytes is refused; an agent's
  live files, log entries and stored bytes (retained versions plus entries) stay within their quotas;
- a request_id repeat by the same agent returns the first reply and changes nothing; another call under it is
  refused; a refused call stores no id.
"""

from __future__ import annotations

import copy
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from scratchpad_core.errors import (
    EditMismatch,
    InvalidInput,
    LimitExceeded,
    NotFound,
    QuotaExceeded,
    ScratchpadError,
    VersionConflict,
)
from scratchpad_core.limits import Limits

Reply = dict[str, Any]
KINDS = (EditMismatch, InvalidInput, LimitExceeded, NotFound, QuotaExceeded, VersionConflict)  # how a refusal is named


class Refused(Exception):
    def __init__(self, kind: type[ScratchpadError]) -> None:
        super().__init__(kind.__name__)
        self.kind = kind


def size(text: str) -> int:
    return len(text.encode("utf-8"))


@dataclass
class File:
    versions: dict[int, str] = field(default_factory=dict)  # the retained ones, by number
    last: int = 0  # the last number the path used; kept when the file is deleted

    @property
    def current(self) -> int:
        return self.last if self.versions else 0

    @property
    def content(self) -> str | None:
        return self.versions[self.last] if self.versions else None


@dataclass
class Log:
    entries: list[tuple[int, str]] = field(default_factory=list)
    last: int = 0


@dataclass
class Agent:
    files: dict[str, File] = field(default_factory=lambda: defaultdict(File))
    logs: dict[str, Log] = field(default_factory=lambda: defaultdict(Log))
    requests: dict[str, tuple[Any, Reply]] = field(default_factory=dict)

    def usage(self) -> dict[str, int]:
        return {
            "files": sum(1 for f in self.files.values() if f.versions),
            "entries": sum(len(g.entries) for g in self.logs.values()),
            "logs": sum(1 for g in self.logs.values() if g.entries),
            "bytes": sum(size(c) for f in self.files.values() for c in f.versions.values())
            + sum(size(e) for g in self.logs.values() for _, e in g.entries),
        }


def write_reply(version: int, written: int, *, unchanged: bool = False) -> Reply:
    return {"version": version, "bytes_written": written, "unchanged": unchanged or None}


class Model:
    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.agents: dict[str, Agent] = defaultdict(Agent)

    def call(self, agent: str, tool: str, args: dict[str, Any], request_id: str | None) -> Reply:
        self._precheck(tool, args)
        a = self.agents[agent]
        call = (tool, sorted(args.items()))
        if request_id is not None and request_id in a.requests:
            first, first_reply = a.requests[request_id]
            if first != call:
                raise Refused(InvalidInput)
            return dict(first_reply)
        before = copy.deepcopy((a.files, a.logs))
        try:
            reply: Reply = dict(getattr(self, tool)(a, **args))
        except Refused:
            a.files, a.logs = before  # nothing changes
            raise
        if request_id is not None:
            a.requests[request_id] = (call, reply)
        return reply

    def _precheck(self, tool: str, args: dict[str, Any]) -> None:
        if tool == "write_file" and size(args["content"]) > self.limits.max_file_bytes:
            raise Refused(LimitExceeded)
        if tool == "append_log" and size(args["entry"]) > self.limits.max_log_entry_bytes:
            raise Refused(LimitExceeded)

    def _within_quotas(self, a: Agent, files: int = 0, entries: int = 0, stored: int = 0) -> None:
        used, limits = a.usage(), self.limits
        for grows, now, quota in ((files, used["files"], limits.quota_files),
                                  (entries, used["entries"], limits.quota_log_entries),
                                  (stored, used["bytes"], limits.quota_bytes)):  # fmt: skip
            if grows > 0 and now + grows > quota:
                raise Refused(QuotaExceeded)

    def _store(self, a: Agent, path: str, content: str, expected: int | None) -> Reply:
        f = a.files[path]
        if expected is not None and expected != f.current:
            raise Refused(VersionConflict)
        if f.current and f.content == content:
            return write_reply(f.current, 0, unchanged=True)
        number = f.last + 1
        kept = {n: c for n, c in f.versions.items() if n > number - self.limits.max_versions}
        freed = sum(size(c) for n, c in f.versions.items() if n not in kept)
        self._within_quotas(a, files=0 if f.current else 1, stored=size(content) - freed)
        f.versions, f.last = {**kept, number: content}, number
        return write_reply(number, size(content))

    def write_file(self, a: Agent, path: str, content: str, expected_version: int | None) -> Reply:
        return self._store(a, path, content, expected_version)

    def restore_version(self, a: Agent, path: str, version: int, expected_version: int | None) -> Reply:
        f = a.files[path]
        if not f.current:
            raise Refused(NotFound)
        if not 1 <= version <= f.current:
            raise Refused(InvalidInput)
        if version not in f.versions:
            raise Refused(NotFound)
        return self._store(a, path, f.versions[version], expected_version)

    def delete_file(self, a: Agent, path: str, expected_version: int | None) -> Reply:
        f = a.files[path]
        if expected_version is not None and expected_version != f.current:
            raise Refused(VersionConflict)
        if not f.current:
            return {"deleted": False, "versions_removed": 0}
        removed, f.versions = len(f.versions), {}
        return {"deleted": True, "versions_removed": removed}

    def edit_file(self, a: Agent, path: str, old_str: str, new_str: str, replace_all: bool,
                  expected_version: int | None) -> Reply:  # fmt: skip
        if not a.files[path].current:
            raise Refused(NotFound)
        return self._edit(a, path, expected_version, lambda text: (replaced(text, old_str, new_str, replace_all), {}))

    def insert_lines(self, a: Agent, path: str, line: int, text: str, expected_version: int | None) -> Reply:
        if not a.files[path].current and line not in (0, -1):
            raise Refused(NotFound)
        return self._edit(a, path, expected_version, lambda content: inserted(content, line, text))

    def _edit(self, a: Agent, path: str, expected: int | None, change: Any) -> Reply:
        f = a.files[path]
        if expected is not None and expected != f.current:
            raise Refused(VersionConflict)
        new, lines = change(f.content or "")
        if size(new) > self.limits.max_file_bytes:
            raise Refused(LimitExceeded)
        stored = self._store(a, path, new, f.current)
        return {"version": stored["version"], "bytes_written": stored["bytes_written"], **lines}

    def append_log(self, a: Agent, path: str, entry: str) -> Reply:
        log = a.logs[path]
        self._within_quotas(a, entries=1, stored=size(entry))
        log.last += 1
        log.entries.append((log.last, entry))
        return {"entry_id": log.last, "bytes_written": size(entry)}

    def delete_log(self, a: Agent, path: str) -> Reply:
        log = a.logs[path]
        removed, freed = len(log.entries), sum(size(e) for _, e in log.entries)
        log.entries = []
        return {"deleted": removed > 0, "entries_removed": removed, "bytes_freed": freed}


def replaced(content: str, old: str, new: str, replace_all: bool) -> str:
    if old == "" or old == new:
        raise Refused(InvalidInput)
    count = content.count(old)
    if count == 0 or (count > 1 and not replace_all):
        raise Refused(EditMismatch)
    return content.replace(old, new) if replace_all else content.replace(old, new, 1)


def inserted(content: str, line: int, text: str) -> tuple[str, Reply]:
    """Whole lines after `line`; the reply's start_line and end_line are where they now stand."""
    if text == "":
        raise Refused(InvalidInput)
    lines = split_lines(content)
    at = len(lines) if line == -1 else line
    if not 0 <= at <= len(lines):
        raise Refused(InvalidInput)
    added = split_lines(text)
    added[-1] = added[-1] if added[-1].endswith("\n") else added[-1] + "\n"
    if at == len(lines) and lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    return "".join(lines[:at] + added + lines[at:]), {"start_line": at + 1, "end_line": at + len(added)}


def split_lines(text: str) -> list[str]:
    """Lines with their "\\n"; the last may have none."""
    return re.findall(r"[^\n]*\n|[^\n]+$", text)
