"""The scratchpad-mcp command's entry point. A start as a host makes it (no arguments) first gets its warm start
going (stdio.warm_start), before the server's heavy imports; then the command runs (cli)."""

from __future__ import annotations

import os
import sys


def entry_point() -> None:
    args = sys.argv[1:]
    warm = None
    if not args:
        from .stdio.warm_start import WarmStart

        warm = WarmStart.prepare(sys.argv, os.environ)
    from .cli.main import main

    sys.exit(main(args, warm=warm))
