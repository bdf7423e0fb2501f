"""How inspection commands print: aligned tables and times for a person, JSON for a script, a unified diff
coloured only on a terminal.

Stored text never reaches a terminal raw: on a terminal its control characters show as visible symbols
(visible_text), and a table (log, search) shows them so even when piped, so that no entry can forge a line.
Content printed whole (cat, a diff) into a pipe or file is written byte for byte, through sys.stdout's buffer:
click.echo would strip what looks like colour from it."""

from __future__ import annotations

import dataclasses
import datetime
import difflib
import json
import re
import sys
from collections.abc import Iterable, Sequence
from typing import Any

import click

from scratchpad_core import quotas
from scratchpad_core.limits import Limits
from scratchpad_core.model import Usage
from scratchpad_core.visible_text import INVISIBLE, screen_line, screen_text

CONTINUED = "    | "
"""What starts each further line of a multi-line log entry: never a `#ID` at the start of a line, as an entry."""


def on_terminal() -> bool:
    return sys.stdout.isatty()


def write_exactly(text: str) -> None:
    """`text` on stdout byte for byte (UTF-8), whatever it holds."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (some test captures)
        sys.stdout.write(text)
    else:
        buffer.write(text.encode("utf-8"))
    sys.stdout.flush()


def print_text(text: str) -> None:
    """Stored content whole: visible controls on a terminal, the exact bytes into a pipe or file."""
    if on_terminal():
        click.echo(screen_text(text), nl=False)
    else:
        write_exactly(text)


def when(ms: int | None) -> str:
    if ms is None:
        return "-"
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def table(headers: Sequence[str], rows: Iterable[Sequence[object]], *, right: Sequence[str] = ()) -> None:
    """Columns as wide as their widest cell; the columns named in `right` (numbers) aligned right."""
    cells = [[screen_line(str(cell)) for cell in row] for row in rows]
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


_RAW_IN_JSON = re.compile("[\x7f-\x9f" + "".join(map(chr, INVISIBLE)) + "]")


def emit_json(value: Any) -> None:
    """One JSON line. json escapes C0 controls; DEL, C1 and the bidi controls are escaped here too (the same
    JSON value: they only ever stand inside strings), so a JSON line on a terminal cannot act on it either."""
    text = json.dumps(plain(value), ensure_ascii=False)
    click.echo(_RAW_IN_JSON.sub(lambda found: f"\\u{ord(found[0]):04x}", text))


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
    lines = difflib.unified_diff(_split(before), _split(after), old_name, new_name)
    shown: list[str] = []
    for line in lines:
        shown.append(line.rstrip("\n"))
        if not line.endswith("\n"):
            shown.append("\\ No newline at end of file")
    return shown


def _split(text: str) -> list[str]:
    """Lines as stored, each with its line feed: only "\\n" ends a line (str.splitlines also splits at form
    feeds, carriage returns and separators, which would break one stored line in two)."""
    return re.findall(r"[^\n]*\n|[^\n]+\Z", text)


STYLES: dict[str, dict[str, Any]] = {
    "+++": {"bold": True},
    "---": {"bold": True},
    "@@": {"fg": "cyan"},
    "+": {"fg": "green"},
    "-": {"fg": "red"},
}


def print_diff(lines: Iterable[str]) -> None:
    """Coloured, stored controls visible, on a terminal; the diff's exact text into a pipe (a patch)."""
    if not on_terminal():
        write_exactly("".join(f"{line}\n" for line in lines))
        return
    for line in lines:
        style = next((style for start, style in STYLES.items() if line.startswith(start)), {})
        click.secho(screen_line(line), **style)
