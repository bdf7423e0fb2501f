"""The scratchpad-mcp command's entry points. A start as a host makes it (no arguments) first gets its warm start
going (stdio.warm_start), before the server's heavy imports; then the command runs (cli.main), serving with what
the composition root gives it (app.Servers)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .stdio.warm_start import WarmStart


def entry_point() -> None:
    args = sys.argv[1:]
    warm = None
    if not args:
        from .stdio.warm_start import WarmStart

        warm = WarmStart.prepare(sys.argv, os.environ)
    sys.exit(main(args, warm=warm))


def main(argv: Sequence[str] | None = None, *, warm: WarmStart | None = None) -> int:
    """The scratchpad-mcp command on `argv` (None: this process's arguments); its exit code."""
    from .app import Servers
    from .cli.main import main as run_command

    return run_command(argv, Servers(warm))
