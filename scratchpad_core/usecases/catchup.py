"""read_changes: every file and log an agent changed after a cursor, one item per path, in the order the
changes happened (the cursor and why it never skips or repeats a change: scratchpad_core.changes.catchup)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .. import hunks
from ..changes.catchup import DEFAULT_MAX_BYTES, ChangedFile, ChangedLog, Cursor, Position
from ..errors import InvalidInput
from ..paths import check_agent_id, check_prefix
from ..ports import UnitOfWork
from ..retention.rules import FILES, RetentionRule, age_threshold, expired, rule_for
from .base import UseCaseBase

Item = dict[str, Any]


@dataclass(frozen=True)
class ChangesPage:
    """A page of read_changes: its items, the cursor to pass as `since` next time, and has_more (True) when
    max_bytes cut the page (left out otherwise)."""

    items: list[Item]
    cursor: str
    has_more: bool | None = None


@dataclass(frozen=True)
class _Round:
    """What a reply describes: paths as of change `upto` (time `now`), for a reader that holds them as of `base`."""

    base: int
    base_time: int
    upto: int
    now: int
    rules: list[RetentionRule]

    @property
    def first_sync(self) -> bool:
        return self.base < 0

    def gone(self, path: str, updated_at: int) -> bool:
        return expired(rule_for(self.rules, path), updated_at, self.now)

    def knew(self, born: int) -> bool:
        """Whether the reader holds the path's life that began at change `born`."""
        return not self.first_sync and born <= self.base


class Catchup:
    """The items of one read_changes round (ChangeReading.read_changes pages them)."""

    def __init__(self, uow: UnitOfWork, agent_id: str, prefix: str, run: _Round) -> None:
        self._uow, self._agent, self._prefix, self._r = uow, agent_id, prefix, run

    def items(self) -> list[tuple[Position, Item]]:
        found = [*self._files(), *self._expired(), *self._logs()]
        return sorted(found, key=lambda pair: pair[0])

    def _files(self) -> Iterator[tuple[Position, Item]]:
        r, reader = self._r, self._uow.changes
        for row in reader.files(self._agent, self._prefix, max(r.base, -1)):
            if row.current_version <= 0:  # deleted: news only to a reader that held it
                if r.knew(row.born) and row.changed <= r.upto:
                    yield (row.changed, 0, row.path), {"path": row.path, "deleted": True}
                continue
            if row.born > r.upto:
                continue  # its life began after this round: the next one tells it
            if r.gone(row.path, row.updated_at):
                if r.knew(row.born):
                    yield (row.changed if row.changed <= r.upto else r.upto, 0, row.path), _expired(row.path)
                continue
            item = self._file(row)
            if item is not None:
                yield item

    def _file(self, row: ChangedFile) -> tuple[Position, Item] | None:
        r, reader = self._r, self._uow.changes
        to = reader.version_at(row.id, r.upto)
        if to is None:
            return None
        number, change = to
        if row.redacted and r.base < row.redacted <= r.upto:
            change = max(change, row.redacted)
        key: Position = (max(change, row.born), 0, row.path)
        if not r.knew(row.born):
            if row.moved_from is not None and not r.first_sync:
                return key, {"path": row.path, "renamed_from": row.moved_from, **self._content(row, number)}
            return key, {"path": row.path, "created": True, **self._content(row, number)}
        if r.base < row.redacted <= r.upto:
            return key, {"path": row.path, "redacted": True, **self._content(row, number)}
        since = reader.version_at(row.id, r.base)
        if since is None:
            return key, {"path": row.path, "too_old": True, **self._content(row, number)}
        if since[0] == number:
            return None  # changed after this round only
        old, new = self._text(row, since[0]), self._text(row, number)
        diff = [dataclasses.asdict(h) for h in hunks.diff_hunks(old, new)]
        return key, {"path": row.path, "from_version": since[0], "to_version": number, "diff": diff}

    def _content(self, row: ChangedFile, number: int) -> Item:
        return {"version": number, "content": self._text(row, number)}

    def _text(self, row: ChangedFile, number: int) -> str:
        version = self._uow.files.get_version(row.id, number)
        assert version is not None, "version_at names a retained version"
        return version.content

    def _expired(self) -> Iterator[tuple[Position, Item]]:
        """Files that were there at the cursor, unchanged since, and expired by age between its time and now."""
        r = self._r
        if r.first_sync:
            return
        for rule in r.rules:
            if (
                rule.kind != FILES
                or rule.max_age is None
                or not rule.prefix.startswith(self._prefix[: len(rule.prefix)])
            ):
                continue
            since, until = age_threshold(rule, r.base_time), age_threshold(rule, r.now)
            assert since is not None and until is not None
            deeper = [other.prefix for other in r.rules if other.prefix.startswith(rule.prefix) and other != rule]
            under = rule.prefix if len(rule.prefix) >= len(self._prefix) else self._prefix
            for record in self._uow.files.written_before(self._agent, under, until, deeper, None):
                if since <= record.updated_at and record.current_version > 0:
                    record_change = self._uow.changes.version_at(record.id, r.base)
                    if record_change is not None and record_change[0] == record.current_version:
                        yield (r.base, 0, record.path), _expired(record.path)

    def _logs(self) -> Iterator[tuple[Position, Item]]:
        r, reader = self._r, self._uow.changes
        for row in reader.logs(self._agent, self._prefix, max(r.base, -1)):
            if row.entries == 0:
                if r.knew(row.born) and row.changed <= r.upto:
                    yield (row.changed, 1, row.path), {"log": row.path, "deleted": True}
                continue
            if row.born > r.upto:
                continue
            item = self._log(row)
            if item is not None:
                yield item

    def _log(self, row: ChangedLog) -> tuple[Position, Item] | None:
        r = self._r
        knew = r.knew(row.born)
        entries = self._uow.changes.entries(row.id, r.base if knew else -1, r.upto)
        item: Item = {"log": row.path}
        if not knew and not r.first_sync:
            item["created"] = True  # a new log, or one deleted and begun again: what the reader held is gone
        if knew and row.dropped > r.base:  # retention dropped entries the reader never saw
            item.update(too_old=True, first_entry_id=row.last_entry_id - row.entries + 1)
        if not entries and len(item) == 1:
            return None
        item["entries"] = [{"id": e.id, "entry": e.entry, "by": e.by} for _, e in entries]
        key = max([row.born, *(change for change, _ in entries)])
        return (min(key, r.upto), 1, row.path), item


def _expired(path: str) -> Item:
    return {"path": path, "deleted": True, "expired": True}


def _size_of(item: Item) -> int:
    return len(json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def page(
    items: list[tuple[Position, Item]], after: Position | None, max_bytes: int
) -> tuple[list[tuple[Position, Item]], bool]:
    """The items after `after` that fit in max_bytes (at least one: an item larger than a page goes alone)."""
    taken: list[tuple[Position, Item]] = []
    used = 0
    for position, item in items:
        if after is not None and position <= after:
            continue
        size = _size_of(item) + 1
        if taken and used + size > max_bytes:
            return taken, True
        taken.append((position, item))
        used += size
    return taken, False


def _check_max_bytes(max_bytes: int | None) -> int:
    if max_bytes is None:
        return DEFAULT_MAX_BYTES
    if max_bytes < 1:
        raise InvalidInput.said(
            "Invalid {argument}: use at least 1 (or omit it for the read bound).", argument="max_bytes"
        )
    return max_bytes


class ChangeReading(UseCaseBase):
    def read_changes(
        self, agent_id: str, since: str | None = None, prefix: str | None = None, max_bytes: int | None = None
    ) -> ChangesPage:
        """Every file and log under `prefix` changed after the cursor `since` (None: the whole space, as
        creations), one item per path in the order the changes happened, up to max_bytes of items (default: the
        read bound, or 40,000 B); pass the reply's cursor as `since` next time."""
        agent_id = check_agent_id(agent_id)
        prefix = check_prefix(prefix)
        bound = _check_max_bytes(max_bytes)
        cursor = Cursor(-1, 0) if since is None else Cursor.decode(since)

        def work(uow: UnitOfWork) -> ChangesPage:
            head = uow.changes.head(agent_id)
            upto = head if cursor.upto is None else cursor.upto
            now = self._clock() if cursor.upto is None else cursor.upto_time
            if upto > head or cursor.base > upto:
                raise InvalidInput.said(
                    "Invalid {argument}: this cursor is not one of this agent's; {do.continue_changes}.",
                    argument="since",
                )
            rules = uow.retention.rules(agent_id, FILES)
            run = _Round(cursor.base, cursor.base_time, upto, now, rules)
            taken, more = page(Catchup(uow, agent_id, prefix, run).items(), cursor.after, bound)
            if more:
                after = Cursor(cursor.base, cursor.base_time, upto, now, taken[-1][0])
                return ChangesPage([item for _, item in taken], after.encode(), True)
            return ChangesPage([item for _, item in taken], Cursor(upto, now).encode())

        result = self._transact(work, read_only=True)
        self._transact(lambda uow: self._count(uow, agent_id))  # one operation, as every call is
        return result

    def changes_cursor(self, agent_id: str, back: int = 0) -> str:
        """The cursor of the agent's space as it stands (read_changes from it gives what changes next), or as it
        stood `back` changes ago (the web view's recent changes)."""
        agent_id = check_agent_id(agent_id)
        head = self._transact(lambda uow: uow.changes.head(agent_id), read_only=True)
        return Cursor(max(head - back, 0), self._clock()).encode()
