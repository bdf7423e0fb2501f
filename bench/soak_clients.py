"""The soak's clients: real MCP clients over streamable HTTP with a bearer key, run as asyncio tasks in a few
spawned processes. Each client owns a few files under its agent (c<N>/...) and shares its agent's journal
with the agent's other clients; it sends every finished call, (finish time, seconds, error or None), to the
main process about once a second."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import httpx2

from bench.common import WORDS, note_line, reply_text
from bench.http_load import file_content

FILES_PER_CLIENT = 4
LOG_PAGE = 20
FLUSH_EVERY = 1.0  # seconds between batches sent to the main process

# Relative weights of the operations in one client's loop.
MIX = {
    "read_diff": 15,  # read_file since_version (chunks)
    "read_compact": 10,  # read_file since_version, format="compact"
    "read_full": 5,
    "edit_file": 15,
    "write_file": 8,
    "append_log": 15,
    "read_log": 10,  # the next page after this client's cursor
    "list_files": 8,
    "search_files": 8,
    "delete_file": 3,  # the file is written again the next time it comes up
}

Call = tuple[float, float, str | None]  # finished at (epoch s), seconds, error message or None


async def run_client(index: int, url: str, secret: str, out: list[Call], setup: asyncio.Barrier,
                     go: asyncio.Event, stop: Any) -> None:  # fmt: skip
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    rng = random.Random(index)
    seen: dict[str, int] = {}  # path -> the version this client last read or wrote; absent: deleted
    counters: dict[str, int] = {}  # path -> the counter value in the file
    cursor = 0  # the journal entry this client has read up to
    appended = 0
    operations = list(MIX)
    weights = [MIX[name] for name in operations]
    paths = [f"c{index}/notes-{n}.md" for n in range(FILES_PER_CLIENT)]
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"}, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):

        async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
            started = time.time()
            try:
                result = await client.call_tool(tool, arguments)
            except Exception as error:  # counted as an error, the client goes on
                out.append((time.time(), time.time() - started, f"exception {type(error).__name__}: {error}"[:90]))
                return None
            finished = time.time()
            out.append((finished, finished - started, reply_text(result)[:90] if result.is_error else None))
            return None if result.is_error else dict(result.structured_content or {})

        async def write(path: str) -> None:
            reply = await call("write_file", {"path": path, "content": file_content(rng, 0, rng.randrange(10**6))})
            if reply is not None:
                seen[path], counters[path] = reply["version"], 0

        for path in paths:
            await write(path)
        await setup.wait()
        await go.wait()

        while not stop.is_set():
            operation = rng.choices(operations, weights)[0]
            path = rng.choice(paths)
            if path not in seen and operation in ("read_diff", "read_compact", "read_full", "edit_file",
                                                  "write_file", "delete_file"):  # fmt: skip
                await write(path)
            elif operation.startswith("read_") and operation != "read_log":
                arguments: dict[str, Any] = {"path": path}
                if operation != "read_full":
                    arguments["since_version"] = seen[path]
                if operation == "read_compact":
                    arguments["format"] = "compact"
                reply = await call("read_file", arguments)
                if reply is not None:
                    seen[path] = reply["current_version"]
            elif operation == "edit_file":
                counter = counters[path]
                change = {"old_str": f"counter: {counter}\n", "new_str": f"counter: {counter + 1}\n"}
                reply = await call("edit_file", {"path": path, **change})
                if reply is not None:
                    seen[path], counters[path] = reply["version"], counter + 1
            elif operation == "write_file":
                await write(path)
            elif operation == "delete_file":
                if await call("delete_file", {"path": path}) is not None:
                    del seen[path], counters[path]
            elif operation == "append_log":
                appended += 1
                await call("append_log", {"path": "team/journal", "entry": f"c{index} step {appended}: "
                                          + note_line(rng, appended)})  # fmt: skip
            elif operation == "read_log":
                reply = await call("read_log", {"path": "team/journal", "since_entry": cursor, "limit": LOG_PAGE})
                if reply is not None:
                    cursor = reply["last_entry_id"]
            elif operation == "list_files":
                await call("list_files", {"prefix": f"c{index}/"})
            else:
                await call("search_files", {"query": rng.choice(WORDS), "max_results": 10})


def client_process(indexes: list[int], urls: list[str], secrets: list[str], queue: Any, go: Any, stop: Any) -> None:
    """Run the clients `indexes` (client i on urls[i % replicas] with secrets[i]); report to `queue`:
    ("ready",) once all are connected and set up, ("calls", [...]) batches, then ("done",) or ("failed", why)."""

    async def main() -> None:
        out: list[Call] = []
        setup = asyncio.Barrier(len(indexes) + 1)
        started = asyncio.Event()
        tasks = [
            asyncio.create_task(run_client(i, urls[i % len(urls)], secrets[i], out, setup, started, stop))
            for i in indexes
        ]
        waiting = asyncio.create_task(setup.wait())
        await asyncio.wait([waiting, *tasks], return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            if task.done():
                task.result()  # a client that failed to set up
        queue.put(("ready",))
        await asyncio.to_thread(go.wait)
        out.clear()  # the setup's calls are not measured
        started.set()
        running = asyncio.gather(*tasks)
        while not running.done():
            await asyncio.wait([running], timeout=FLUSH_EVERY)
            batch, out[:] = list(out), []
            queue.put(("calls", batch))
        running.result()

    try:
        asyncio.run(main())
    except BaseException as error:
        queue.put(("failed", f"{type(error).__name__}: {error}"))
        raise
    queue.put(("done",))
