"""A longer fuzz run than the test suite's: generated tool calls and malformed JSON-RPC against real server processes.

Run:  uv run python -m bench.fuzz [--calls 50000] [--raw 20000] [--seed 1] [--no-http]

Starts `scratchpad-mcp` over stdio on a temporary SQLite file (SCRATCHPAD_MAX_FILE_BYTES=65536, so that messages
over the line bound, 6 x 64 KiB + 64 KiB, are cheap to send) and writes, one line at a time, --calls tool calls
generated from each tool's input schema (about half broken: wrong types, missing and extra fields, huge integers,
megabyte strings, NUL, unicode and traversal paths, deep nesting) and --raw malformed messages (lone surrogate
escapes, JSON nested hundreds of levels deep, params that are not an object, wrong jsonrpc, batches, odd and
missing ids, garbage, cut and oversized lines). Then the same calls and bodies as POSTs to an HTTP server process.

Every answer is checked: one per id, a result or a clean JSON-RPC error (no traceback, path, SQL, driver or
pydantic text), and a refusal commits nothing (SQLite's data_version does not move). The first failure stops
the run with what was sent; otherwise it prints the counts by kind, calls per second, and exits 0.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ServerProcess, free_port, server_command
from bench.fuzz_cases import call_message, calls
from bench.fuzz_checks import Commits, assert_call_answer, assert_http_answer
from bench.fuzz_raw import raw_messages
from bench.fuzz_stdio import RawStdio, call_lines, envelopes, handshake

MAX_FILE_BYTES = 64 * 1024
LINE_BOUND = 6 * MAX_FILE_BYTES + 64 * 1024  # scratchpad_mcp.wire.max_message_bytes of those limits
TIMEOUT = 30.0
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def environment(db: Path, **more: str) -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith(("SCRATCHPAD_", "ANTHROPIC_", "MCP_"))}
    env.update(SCRATCHPAD_DB_PATH=str(db), SCRATCHPAD_MAX_FILE_BYTES=str(MAX_FILE_BYTES), **more)
    return env


def over_stdio(folder: Path, seed: int, count: int, raw: int) -> Counter[str]:
    db = folder / "stdio.db"
    with (folder / "stdio.stderr").open("wb") as errlog:
        server = RawStdio(server_command(), environment(db, SCRATCHPAD_LOG_LEVEL="WARNING"), errlog)
        try:
            schemas = handshake(server, TIMEOUT)
            commits = Commits(db)
            try:
                seen = call_lines(server, commits, schemas, seed, count, TIMEOUT)
                kinds = envelopes(server, commits, seed, raw, LINE_BOUND, TIMEOUT)
                seen.update({f"raw {kind}": n for kind, n in kinds.items()})
            finally:
                commits.close()
            assert server.close(TIMEOUT) == 0, "the server did not end cleanly at the end of stdin"
        finally:
            server.kill()
    return seen


def over_http(folder: Path, seed: int, count: int, raw: int) -> Counter[str]:
    import subprocess

    import httpx2

    db = folder / "http.db"
    port = free_port()
    env = environment(db, MCP_TRANSPORT="http", PORT=str(port), SCRATCHPAD_AUTH="none", SCRATCHPAD_LOG_LEVEL="WARNING")
    log = folder / "http.stderr"
    with log.open("wb") as errors:
        process = subprocess.Popen(
            server_command(), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors
        )
    server = ServerProcess("http", port, process, log)
    seen: Counter[str] = Counter()
    try:
        server.wait_healthy(TIMEOUT * 2)
        with httpx2.Client(base_url=server.base, headers=HEADERS, timeout=TIMEOUT) as http:
            listed = http.post("/mcp", content=b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}').json()
            schemas = {tool["name"]: tool["inputSchema"] for tool in listed["result"]["tools"]}
            commits = Commits(db)
            try:
                for n, generated in enumerate(calls(schemas, seed, count)):
                    before = commits.version()
                    reply = http.post("/mcp", content=call_message(n, generated)).json()
                    seen[assert_call_answer(reply, n, generated, commits, before)] += 1
                for message in raw_messages(seed, raw, line_bound=LINE_BOUND):
                    before = commits.version()
                    response = http.post("/mcp", content=message.data)
                    accepted = not message.answer_ids and response.status_code == 202  # a notification taken
                    if not accepted:
                        assert_http_answer(response.status_code, response.json(), message, commits, before)
                    seen[f"raw {message.kind}"] += 1
            finally:
                commits.close()
        assert process.poll() is None, "the HTTP server died"
    finally:
        server.stop()
    return seen


def report(transport: str, seen: Counter[str], seconds: float) -> None:
    total = sum(seen.values())
    print(f"\n{transport}: {total:,} messages in {seconds:.1f} s ({total / seconds:,.0f}/s), all answered as required")
    for kind, n in sorted(seen.items()):
        print(f"  {kind:32} {n:7,}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=50_000, help="generated tool calls per transport (50,000)")
    parser.add_argument("--raw", type=int, default=20_000, help="malformed JSON-RPC messages per transport (20,000)")
    parser.add_argument("--seed", type=int, default=1, help="the generators' seed (1); a failure repeats with it")
    parser.add_argument("--no-http", action="store_true", help="stdio only")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="scratchpad-fuzz-") as folder:
        runs = [("stdio", over_stdio)] + ([] if args.no_http else [("http", over_http)])
        for transport, run in runs:
            started = time.monotonic()
            try:
                seen = run(Path(folder), args.seed, args.calls, args.raw)
            except AssertionError as failure:
                stderr = (Path(folder) / f"{transport}.stderr").read_text(errors="replace")
                print(f"FAILED over {transport} (seed {args.seed}): {str(failure)[:2000]}", file=sys.stderr)
                print(f"the server's last log lines:\n{stderr[-3000:]}", file=sys.stderr)
                return 1
            report(transport, seen, time.monotonic() - started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
