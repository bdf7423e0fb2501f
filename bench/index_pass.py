"""What the server's background index pass saves the first search after a burst of writes (issue 29), over stdio.

    uv run python -m bench.index_pass [--files 1000] [--pause 3] [--rounds 3]

An agent holds --files files of 100 KiB (bench.search_scale's text, written through the library into a SQLite
file and indexed once); then our server runs on that file over stdio with a real MCP client, which makes a
burst of one-line edits (each file's first line, one edit a file) and searches: at once (the search catches the
whole burst up), or after --pause seconds with no call (the background pass, SCRATCHPAD_INDEX_EVERY=1, catches
it up meanwhile). A round asks one question in the three regimes (with no backlog first); medians over --rounds
rounds (questions cost differently: a round's three are compared), in ms.
Figures only, no asserts; they go to the docs (docs/).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession

from bench.common import ROOT, SCALE_LIMITS, Text, fill, markdown_table, stdio_server
from scratchpad_adapters import open_store

AGENT = "large"


async def edits(session: ClientSession, first: dict[str, str], burst: int) -> None:
    """A one-line edit of each file; the new lines hold no word of the questions (which would change what they
    find, and so what they cost: a question whose rare words are in no document reads its frequent ones)."""
    for path, line in first.items():
        new = f"edit number {burst} of this file"
        arguments = {"agent_id": AGENT, "path": path, "old_str": line, "new_str": new}
        result = await session.call_tool("edit_file", arguments)
        assert not result.is_error, result
        first[path] = new


async def search_ms(session: ClientSession, query: str) -> float:
    started = time.perf_counter()
    result = await session.call_tool("search_files", {"agent_id": AGENT, "query": query})
    assert not result.is_error, result
    return (time.perf_counter() - started) * 1000


async def measure(db: Path, first: dict[str, str], pause: float, rounds: int) -> dict[str, float]:
    text = Text(seed=21)
    queries = [text.question() for _ in range(rounds)]
    times: dict[str, list[float]] = {"no backlog": [], "right after the burst": [], f"after a {pause:g} s pause": []}
    scale = SCALE_LIMITS
    limits = {"SCRATCHPAD_QUOTA_BYTES": str(scale.quota_bytes), "SCRATCHPAD_QUOTA_FILES": str(scale.quota_files),
              "SCRATCHPAD_MAX_VERSIONS": str(scale.max_versions), "SCRATCHPAD_INDEX_EVERY": "1"}  # fmt: skip
    async with stdio_server(ROOT, db, **limits) as session:
        await search_ms(session, "warm up")  # the server's first search loads what searches use
        for n in range(rounds):
            await search_ms(session, queries[n])  # one question a round, in each regime; asked once first: the
            times["no backlog"].append(await search_ms(session, queries[n]))  # first asking reads it from disk
            await edits(session, first, 2 * n)
            times["right after the burst"].append(await search_ms(session, queries[n]))
            await edits(session, first, 2 * n + 1)
            await anyio.sleep(pause)
            times[f"after a {pause:g} s pause"].append(await search_ms(session, queries[n]))
    print({name: [round(ms, 1) for ms in found] for name, found in times.items()}, file=sys.stderr)
    return {name: statistics.median(found) for name, found in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--pause", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "pass.db"
        with open_store(f"sqlite:///{db}", limits=SCALE_LIMITS) as store:
            fill(store, AGENT, args.files, 100 * 1024, Text(), f"{args.files} files")
            store.search_files(AGENT, "warm")  # indexed once
            first = {
                info.path: (store.read_file(AGENT, info.path, max_lines=1).content or "").rstrip("\n")
                for info in store.list_files(AGENT).files
            }
        found = anyio.run(measure, db, first, args.pause, args.rounds)
    print(markdown_table(["search", "ms"], [[name, f"{ms:.1f}"] for name, ms in found.items()], right=[1]))


if __name__ == "__main__":
    main()
