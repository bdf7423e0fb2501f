"""The docs' table of settings (docs/operations.md), generated from their definitions in scratchpad_mcp.settings.

uv run python -m scratchpad_mcp.settings.docs                      # print the table
uv run python -m scratchpad_mcp.settings.docs docs/operations.md   # rewrite the table between its markers there
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import SecretStr
from pydantic.fields import FieldInfo

from . import Settings
from .source import field_extra

START = "<!-- settings table: generated from scratchpad_mcp/settings by python -m scratchpad_mcp.settings.docs -->"
END = "<!-- end of settings table -->"


def shown_default(field: FieldInfo) -> str:
    shown = field_extra(field, "shown")
    if shown is not None:
        return shown
    default = field.get_default(call_default_factory=True)
    if default in (None, "", False, ()) or isinstance(default, SecretStr):
        return "—"
    return f"`{default}`" if isinstance(default, str) else str(default)


def settings_table() -> str:
    rows = [f"| `{name}` | {shown_default(field)} | {field.description} |" for name, field in Settings.variables()]
    return "\n".join(["| variable | default | meaning |", "|---|---|---|", *rows]) + "\n"


def with_table(text: str) -> str:
    """`text` (docs/operations.md) with the table between its markers replaced by the generated one."""
    head, start, rest = text.partition(START + "\n")
    _, end, tail = rest.partition(END)
    if not start or not end:
        raise ValueError(f"the settings table needs its markers: a line {START!r} before it and {END!r} after it")
    return f"{head}{start}{settings_table()}{end}{tail}"


def main(argv: Sequence[str]) -> int:
    if not argv:
        sys.stdout.write(settings_table())
        return 0
    readme = Path(argv[0])
    readme.write_text(with_table(readme.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
