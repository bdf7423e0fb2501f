"""What the benchmarks share (and the tests that drive real processes): realistic test content, request/reply
sizes, percentiles, Markdown tables, Postgres databases, server processes and HTTP replicas, library clients in
processes of their own, and the cost of the tool definitions. Each benchmark is one file beside this one, run with
`uv run python -m bench.NAME`; none imports another."""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import multiprocessing
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp import ClientSession, StdioServerParameters, stdio_client

from scratchpad_core.limits import MIB, Limits

if TYPE_CHECKING:
    from multiprocessing.synchronize import Barrier

    from mcp import Client

    from scratchpad_core.service import Scratchpad

WORDS = [
    "agent",
    "plan",
    "note",
    "task",
    "step",
    "result",
    "check",
    "review",
    "update",
    "draft",
    "idea",
    "issue",
    "fix",
    "test",
    "build",
    "deploy",
    "data",
    "model",
    "query",
    "cache",
    "index",
    "token",
    "budget",
    "context",
    "summary",
    "version",
    "diff",
    "file",
    "log",
    "entry",
    "path",
    "prefix",
    "search",
    "limit",
    "quota",
    "user",
    "request",
    "reply",
    "error",
    "retry",
    "timeout",
    "config",
    "server",
    "client",
    "session",
    "store",
    "write",
    "read",
    "edit",
    "insert",
    "schema",
    "table",
    "column",
    "migration",
    "backup",
    "restore",
    "metric",
    "latency",
    "throughput",
    "memory",
    "disk",
    "network",
]


def note_line(rng: random.Random, number: int) -> str:
    """One markdown-ish line of 40-60 characters; the line number keeps every line unique."""
    kind = number % 25
    if kind == 0:
        head = f"## Section {number // 25 + 1}: "
    elif kind in (1, 13):
        head = ""
    elif kind % 4 == 0:
        head = f"- [ ] item {number}: "
    else:
        head = f"- {number}. "
    tail = f" (ref {number})." if kind in (1, 13) else ""
    target = rng.randint(40, 60) - len(tail)
    words: list[str] = []
    line = head
    while len(line) < target:
        candidate = head + " ".join([*words, rng.choice(WORDS)])
        if len(candidate) > 60 - len(tail):
            break
        words.append(candidate.rsplit(" ", 1)[-1])
        line = candidate
    return line + tail


def markdown_lines(count: int = 1000, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    lines = [f"# Working notes ({count} lines)"]
    lines += [note_line(rng, n) for n in range(1, count)]
    return lines


def markdown_file(count: int = 1000, seed: int = 7) -> str:
    """A realistic notes file: `count` lines of ~40-60 characters, ending with a newline."""
    return "\n".join(markdown_lines(count, seed)) + "\n"


def json_bytes(value: Any) -> int:
    """UTF-8 bytes of a value as compact JSON, the way the server encodes its replies."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def request_bytes(arguments: dict[str, Any]) -> int:
    """What the tool call's arguments cost on the wire, as compact JSON."""
    return json_bytes(arguments)


def definition_bytes(tools: Sequence[Any]) -> int:
    """What a model reads about the tools every turn: name, description and inputSchema of each, as compact JSON."""
    return sum(json_bytes({"name": t.name, "description": t.description, "inputSchema": t.input_schema}) for t in tools)


def reply_text(result: Any) -> str:
    """The text content of a tool result: what the model reads."""
    return str(result.content[0].text)


def reply_bytes(result: Any) -> int:
    return len(reply_text(result).encode())


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); nan for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def fmt(cells: Sequence[str]) -> str:
        out = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "| " + " | ".join(out) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if i in right else ("-" * (w + 2)) for i, w in enumerate(widths)) + "|"
    return "\n".join([fmt(headers), rule, *(fmt(r) for r in rows)])


def server_command() -> list[str]:
    """The scratchpad-mcp console script next to this interpreter, else `python -m scratchpad_mcp`."""
    script = Path(sys.executable).parent / "scratchpad-mcp"
    if script.exists():
        return [str(script)]
    found = shutil.which("scratchpad-mcp")
    return [found] if found else [sys.executable, "-m", "scratchpad_mcp"]


def code_version() -> str:
    """The git commit being measured, with '-dirty' when the working tree has changes."""
    root = Path(__file__).resolve().parents[1]
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def create_database(admin_url: str, prefix: str) -> str:
    """A new, empty Postgres database next to admin_url's; returns its URL."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    engine = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return make_url(admin_url).set(database=name).render_as_string(hide_password=False)


def drop_database(admin_url: str, url: str) -> None:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    engine = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)'))
    engine.dispose()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class ServerProcess:
    """One `scratchpad-mcp` process serving HTTP on 127.0.0.1:port, its stderr going to `log`."""

    name: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def mcp_url(self) -> str:
        return f"{self.base}/mcp"

    def stderr(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def wait_healthy(self, timeout: float) -> None:
        import httpx2

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}: {self.stderr()[-4000:]}")
            try:
                if httpx2.get(f"{self.base}/health", timeout=5).status_code == 200:
                    return
            except httpx2.TransportError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"{self.name}: no /health within {timeout}s: {self.stderr()[-4000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


# HTTP replicas on Postgres, and what their clients write (bench.http_load, bench.soak)


DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


START_TIMEOUT = 90.0


LINES_PER_FILE = 60


@dataclass
class Replica(ServerProcess):
    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError(f"no VmRSS for {self.process.pid}")


def start_replica(name: str, database: str, folder: Path, extra: dict[str, str]) -> Replica:
    port = free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SCRATCHPAD_", "ANTHROPIC_")) and k not in ("MCP_TRANSPORT", "PORT")
    }
    env.update(
        MCP_TRANSPORT="http",
        PORT=str(port),
        SCRATCHPAD_DATABASE_URL=database,
        SCRATCHPAD_AUTH="keys",
        SCRATCHPAD_LOG_FORMAT="json",
    )
    env.update(extra)  # extra may also change the defaults above (SCRATCHPAD_AUTH=none)
    log = folder / f"{name}.stderr.jsonl"
    with log.open("wb") as errors:
        process = subprocess.Popen(
            server_command(), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors
        )
    return Replica(name, port, process, log)


def file_content(rng: random.Random, counter: int, seed: int) -> str:
    lines = [f"# notes {seed}", f"counter: {counter}"]
    lines += [note_line(rng, n) for n in range(1, LINES_PER_FILE)]
    return "\n".join(lines) + "\n"


def server_log_summary(replica: Replica) -> str:
    levels: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    other = 0
    for line in replica.log.read_text(errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            other += 1
            continue
        levels[record.get("level", "?")] += 1
        if record.get("event") == "tool_call":
            outcomes[record.get("outcome", "?")] += 1
    parts = [f"{n} {level}" for level, n in sorted(levels.items())]
    bad = {k: v for k, v in outcomes.items() if k != "ok"}
    return f"{', '.join(parts)}; non-JSON lines: {other}; tool_call outcomes other than ok: {bad or 'none'}"


# Library clients, one process each, writing or appending on one database (bench.throughput, bench.speed)


def library_client(
    url: str, operation: str, seconds: float, barrier: Barrier, queue: multiprocessing.Queue[object]
) -> None:
    from scratchpad_adapters import open_store

    agent = f"bench-{os.getpid()}"
    latencies: list[float] = []
    errors = 0
    with open_store(url, upgrade=False) as store:
        store.write_file(agent, "warm.md", "warm-up\n")
        barrier.wait()
        deadline = time.perf_counter() + seconds
        i = 0
        while (started := time.perf_counter()) < deadline:
            try:
                if operation == "write":
                    store.write_file(agent, f"notes/{i % 20}.md", f"line {i}\n" * 40)
                else:
                    store.append_log(agent, "events", f"event {i}: something happened")
            except Exception:
                errors += 1
            latencies.append(time.perf_counter() - started)
            i += 1
    queue.put((latencies, errors))


def run(url: str, operation: str, clients: int, seconds: float) -> tuple[float, float, float, int]:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(clients)
    queue: multiprocessing.Queue[object] = context.Queue()
    processes = [
        context.Process(target=library_client, args=(url, operation, seconds, barrier, queue)) for _ in range(clients)
    ]
    for process in processes:
        process.start()
    results: list[tuple[list[float], int]] = [queue.get() for _ in processes]  # type: ignore[misc]
    for process in processes:
        process.join()
    latencies = [lat for lats, _ in results for lat in lats]
    errors = sum(err for _, err in results)
    ordered = sorted(latencies)
    p99 = ordered[int(len(ordered) * 0.99) - 1]
    return len(latencies) / seconds, statistics.median(ordered) * 1000, p99 * 1000, errors


# What the tool definitions cost, ours beside the original's (bench.definitions, bench.tokens)


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
    from mcp import Client

    from scratchpad_adapters import open_store
    from scratchpad_adapters.factory import sqlite_url
    from scratchpad_mcp.server import build_server
    from scratchpad_mcp.server.calls import CallRunner, TrustedCaller

    with open_store(sqlite_url(db)) as store:
        async with Client(build_server(store, CallRunner(TrustedCaller()))) as client:
            return await surface(client)


async def original(checkout: Path, db: Path) -> Surface:
    from mcp import Client, StdioServerParameters

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


# --------------------------------------------------------------------------------------------------------------
# Stores at scale (bench.search_scale, bench.index_pass): Zipf-distributed text, an agent filled with it, the
# limits such a store needs, a server over stdio, and a release's packages from git history.

ROOT = Path(__file__).resolve().parents[1]
VOCABULARY = 30_000
SCALE_LIMITS = Limits(quota_bytes=400 * MIB, quota_files=2000, max_versions=3)  # ~100 MiB, and edits keep versions
ZIPF_COMMON = ["the", "a", "to", "of", "and", "in", "is", "it", "that", "was", "for", "on", "we", "did", "when", "what"]


class Text:
    """Lines of Zipf-distributed pseudo-words, the same for a seed."""

    def __init__(self, seed: int = 5) -> None:
        self.rng = random.Random(seed)
        letters = "abcdefghijklmnopqrstuvwxyz"
        words: set[str] = set()
        while len(words) < VOCABULARY:
            words.add("".join(self.rng.choice(letters) for _ in range(self.rng.randint(3, 10))))
        self.words = sorted(words)
        self.rng.shuffle(self.words)
        weights = [1 / (rank + 1) ** 1.07 for rank in range(VOCABULARY)]
        self.mixed = [*ZIPF_COMMON, *self.words]
        self.cumulative = list(itertools.accumulate([0.4] * len(ZIPF_COMMON) + weights))  # ~40% common words

    def line(self) -> str:
        out: list[str] = []
        while sum(len(w) + 1 for w in out) < 80:
            out.extend(self.rng.choices(self.mixed, cum_weights=self.cumulative, k=4))
        return " ".join(out)

    def file(self, size: int) -> str:
        lines: list[str] = []
        total = 0
        while total < size:
            line = self.line()
            lines.append(line)
            total += len(line) + 1
        return "\n".join(lines) + "\n"

    def question(self) -> str:
        """Two common English words, two frequent and two rare words of the store."""
        frequent = self.rng.choices(self.words[:300], k=2)
        rare = self.rng.choices(self.words[300:20_000], k=2)
        return " ".join([*self.rng.sample(ZIPF_COMMON, 2), *frequent, *rare]) + "?"


def fill(store: Scratchpad, agent: str, files: int, size: int, text: Text, say: str) -> None:
    started = time.perf_counter()
    for n in range(files):
        store.write_file(agent, f"notes/{n:04d}.md", text.file(size))
        if n % 100 == 99:
            print(f"  {say}: {n + 1} files, {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)


def release_from_history(release: str, folder: Path) -> Path | None:
    """The packages of `release` (a commit) unpacked into `folder`; None where git history does not have it."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", release, "scratchpad_core", "scratchpad_adapters",
                              "scratchpad_mcp", "alembic", "bench"], capture_output=True, check=False)  # fmt: skip
    if archive.returncode != 0:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


@contextlib.asynccontextmanager
async def stdio_server(code: Path, db: Path, **settings: str) -> AsyncIterator[ClientSession]:
    """The release in `code` as a server over stdio on a SQLite file (and these settings), initialized."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCRATCHPAD_")} | {"SCRATCHPAD_DB_PATH": str(db)}
    env |= settings
    params = StdioServerParameters(command=sys.executable, args=["-m", "scratchpad_mcp"], env=env, cwd=code)
    with (db.parent / "servers.stderr").open("a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session
