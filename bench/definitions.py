"""Tool definitions: what a model reads about the tools on every turn, ours beside the original's.

Run:  uv run python -m bench.definitions [--original DIR]

Counts name + description + inputSchema of every tool as compact JSON (UTF-8 bytes), and the server's
instructions. With --original (a built checkout of the original TypeScript server: DIR/dist/index.js),
the original is started over stdio and measured in the same run; without it, its figure as measured
on 2026-12-01 (commit 8fef32c) is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import measure, report


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--original", type=Path, help="a built checkout of the original server (DIR/dist/index.js)")
    args = parser.parse_args(argv)
    print(report(*asyncio.run(measure(args.original))))


if __name__ == "__main__":
    main()
