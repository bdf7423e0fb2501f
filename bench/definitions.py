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
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mcp import Client, StdioServerParameters

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import definition_bytes, markdown_table
from scratchpad_adapters import open_store
from scratchpad_adapters.factory import sqlite_url
from scratchpad_mcp.server import build_server
from scratchpad_mcp.server.calls import CallRunner, TrustedCaller

ORIGINAL_RECORDED_BYTES = 4_057  # 8 tools, measured with this module against the original at 8fef32c
TARGET_BYTES = 5_500
INSTRUCTIONS_TARGET = 600


@dataclass(frozen=True)
class Surface:
    tools: int
    definitions: int
    instructions: int


async def surface(client: Client) -> Surface:
    """What a connected server's tools and instructions cost."""
    tools = (await client.list_tools()).tools
    return Surface(len(tools), definition_bytes(tools), len((client.instructions or "").encode()))


async def ours(db: Path) -> Surface:
    with open_store(sqlite_url(db)) as store:
        async with Client(build_server(store, CallRunner(TrustedCaller()))) as client:
            return await surface(client)


async def original(checkout: Path, db: Path) -> Surface:
    params = StdioServerParameters(
        command="node", args=[str(checkout / "dist" / "index.js")], env={"SCRATCHPAD_DB_PATH": str(db)}
    )
    async with Client(params) as client:
        return await surface(client)


async def measure(checkout: Path | None) -> tuple[Surface, Surface | None]:
    with tempfile.TemporaryDirectory(prefix="scratchpad-definitions-") as temp:
        mine = await ours(Path(temp) / "ours.db")
        theirs = await original(checkout, Path(temp) / "original.db") if checkout else None
    return mine, theirs


def report(mine: Surface, theirs: Surface | None) -> str:
    base = theirs.definitions if theirs else ORIGINAL_RECORDED_BYTES
    source = "measured in this run" if theirs else "recorded"
    rows = [
        ["scratchpad", str(mine.tools), f"{mine.definitions:,}", f"{mine.definitions / base:.2f}×"],
        [f"original ({source})", str(theirs.tools if theirs else 8), f"{base:,}", "1.00×"],
    ]
    verdict = "PASS" if mine.definitions <= TARGET_BYTES else "FAIL"
    said = "PASS" if mine.instructions <= INSTRUCTIONS_TARGET else "FAIL"
    return "\n".join(
        [
            markdown_table(["server", "tools", "definitions B", "vs original"], rows, right=(1, 2, 3)),
            "",
            f"definitions target ≤ {TARGET_BYTES:,} B: {verdict} ({mine.definitions:,} B)",
            f"instructions target ≤ {INSTRUCTIONS_TARGET} B: {said} ({mine.instructions:,} B)",
        ]
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--original", type=Path, help="a built checkout of the original server (DIR/dist/index.js)")
    args = parser.parse_args(argv)
    print(report(*asyncio.run(measure(args.original))))


if __name__ == "__main__":
    main()
