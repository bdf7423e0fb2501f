"""How inspection commands print: aligned tables and times for a person, JSON for a script, a unified diff
coloured only on a terminal (click drops the colour when stdout is piped)."""

from __future__ import annotations

import dataclasses
import datetime
import difflib
import json
from collections.abc import Iterable, Sequence
from typing import Any

import click

from scratchpad_core import quotas
from scratchpad_core.limits import Limits
from scratchpad_core.model import Usage


def when(ms: int | None) -> str:
    if ms is None:
        return "-"
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def table(headers: Sequence[str], rows: Iterable[Sequence[object]], *, right: Sequence[str] = ()) -> None:
    """Columns as wide as their widest cell; the columns named in `right` (numbers) aligned right."""
    cells = [[str(cell) for cell in row] for row in rows]
    widths = [max([len(header), *(len(row[i]) for row in cells)]) for i, header in enumerate(headers)]
    for row in [list(headers), *cells]:
        padded = [
            cell.rjust(width) if header in right else cell.ljust(width)
            for cell, width, header in zip(row, widths, headers, strict=True)
        ]
        click.echo("  ".join(padded).rstrip())


def plain(value: Any) -> Any:
    """A result (dataclasses, lists of them) as JSON-ready values, leaving out fields that are None."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(v) for f in dataclasses.fields(value) if (v := getattr(value, f.name)) is not None}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


def emit_json(value: Any) -> None:
    click.echo(json.dumps(plain(value), ensure_ascii=False))


def more(what: str, cursor: str | None) -> None:
    """Where a listing cut off, on stderr: the table on stdout stays a table."""
    if cursor is not None:
        click.echo(f"scratchpad-mcp: more {what}: continue with --cursor {cursor!r}", err=True)


def quota_use(usage: Usage, limits: Limits) -> dict[str, float]:
    """{counter: share of its quota used, 0..1} for the counters a quota bounds."""
    return {rule.counter: _share(getattr(usage, rule.counter), rule.quota(limits)) for rule in quotas.QUOTAS}


def fullest(use: dict[str, float]) -> str:
    counter, share = max(use.items(), key=lambda item: item[1])
    return f"{share:.0%} of {counter.replace('_', ' ')}"


def _share(used: int, quota: int) -> float:
    return round(used / quota, 4) if quota else 0.0


def unified(before: str, after: str, old_name: str, new_name: str) -> list[str]:
    """The unified diff from `before` to `after`, one line each without its ending."""
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), old_name, new_name
    )  # fmt: skip
    shown: list[str] = []
    for line in lines:
        shown.append(line.rstrip("\n"))
        if not line.endswith("\n"):
            shown.append("\\ No newline at end of file")
    return shown


STYLES: dict[str, dict[str, Any]] = {
    "+++": {"bold": True},
    "---": {"bold": True},
    "@@": {"fg": "cyan"},
    "+": {"fg": "green"},
    "-": {"fg": "red"},
}


def print_diff(lines: Iterable[str]) -> None:
    for line in lines:
        style = next((style for start, style in STYLES.items() if line.startswith(start)), {})
        click.secho(line, **style)
