"""Answering a host's first requests while the server starts: the replies the server gave to the same requests the
last time it started the same way, recalled from a cache, in the time Python takes to start (issue 9).

Importing the MCP SDK alone takes about 0.5 s, more than the whole start of the original server, and a host waits
for initialize and tools/list before it offers any tool. Those replies depend only on how the server was started,
so a start over stdio records them (request and result, as the SDK gave them) in a file of the user's cache
directory named by a hash of everything they could depend on: the command line, the working directory, the whole
environment, the Python running it, and the size and time of every source file of scratchpad and of the SDK. A
later start with the same hash answers those requests, when they come again exactly (the whole request but its id)
and in turn (a listing after a handshake answered here, or under the 2026-07-28 envelope), from a thread reading
stdin while the rest of the server is imported; every line read is then handed to the server as if just read, and
its own replies to the requests already answered are dropped. Anything else waits for the server, as before. A
cache that cannot be read or written is ignored: the server starts as it would without one. With nothing recalled
(a first start), a handshake and listing of the set-up most hosts use are answered from the replies the package
ships (first_start).

Standard library only: this module runs before anything heavy is imported.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import select
import stat
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .first_start import FirstReplies, plain_request

RECALLED = ("initialize", "server/discover", "tools/list")  # what a host sends first; the rest wait for the server
MODERN_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"  # in a 2026-07-28 request's _meta
MAX_RECALLED_BYTES = 1 << 16  # a longer line is no request recalled here: it is left to the server unparsed
KEPT_FILES = 16  # cache files kept (one per way of starting); the oldest go
SOURCES = ("scratchpad_core", "scratchpad_adapters", "scratchpad_mcp", "mcp", "mcp_types", "pydantic", "pydantic_core")


def cache_dir(environ: Mapping[str, str]) -> Path:
    base = environ.get("XDG_CACHE_HOME") or str(Path(environ.get("HOME") or Path.home()) / ".cache")
    return Path(base) / "scratchpad-mcp"


def request_key(message: Mapping[str, Any]) -> str:
    """A request as a key: all of it but its id (so a line unlike the recorded one in any way is no match)."""
    rest = {key: value for key, value in message.items() if key != "id"}
    return json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def opens_by_itself(params: Any) -> bool:
    """Whether a request carries the 2026-07-28 envelope (it needs no handshake before it)."""
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and MODERN_VERSION_KEY in meta


def fingerprint(argv: Sequence[str], environ: Mapping[str, str]) -> str:
    """A hash of everything the recalled replies may depend on (see the module's docstring)."""
    digest = hashlib.sha256(json.dumps([sys.executable, list(argv), os.getcwd(), sorted(environ.items())]).encode())
    for name in SOURCES:
        spec = importlib.util.find_spec(name)  # where the import will find it (nothing is imported)
        for folder in (spec.submodule_search_locations or []) if spec is not None else []:
            for root, dirs, files in os.walk(folder):
                dirs.sort()
                for file in sorted(files):
                    if file.endswith((".py", ".so", ".json")):
                        info = os.stat(os.path.join(root, file))
                        digest.update(f"{root}/{file}:{info.st_size}:{info.st_mtime_ns};".encode())
    return digest.hexdigest()[:32]


class WarmStart:
    """The recalled replies of one way of starting, the early reader answering with them, and the recording of the
    replies this start gives (for the next one)."""

    def __init__(self, path: Path, replies: dict[str, Any], first: FirstReplies | None = None) -> None:
        self.path = path
        self._replies = replies
        self._first = first  # the package's replies, for what was not recalled
        self._recorded = dict(replies)
        self._unread = bytearray()
        self._answered: list[tuple[Any, str, Any]] = []  # (request id, method, the result given), as given
        self._handshake = False  # an initialize answered by the early reader
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def prepare(cls, argv: Sequence[str], environ: Mapping[str, str]) -> WarmStart | None:
        """The warm start for this way of starting, its early reader running when there is something to recall and
        stdin is a pipe (a host's); None when no cache can be used."""
        try:
            path = cache_dir(environ) / f"{fingerprint(argv, environ)}.json"
        except OSError:
            return None
        try:
            replies = json.loads(path.read_bytes())
        except (OSError, ValueError):
            replies = {}  # none yet, or unreadable: this start's replies replace it
        warm = cls(path, replies if isinstance(replies, dict) else {}, FirstReplies.load(environ))
        mode = os.fstat(0).st_mode
        if (warm._replies or warm._first) and (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
            warm._thread = threading.Thread(target=warm._answer_early, name="warm-start", daemon=True)
            warm._thread.start()
        return warm

    def _answer_early(self) -> None:
        done = 0  # bytes of self._unread looked at
        while not self._stop.is_set():
            ready, _, _ = select.select([0], [], [], 0.02)
            if not ready:
                continue
            chunk = os.read(0, 1 << 16)
            if not chunk:
                return
            self._unread += chunk
            while (end := self._unread.find(b"\n", done)) >= 0:
                self._answer(bytes(self._unread[done:end]))
                done = end + 1

    def _answer(self, line: bytes) -> None:
        """Answer one line if it is a recorded request (or one the package's replies hold), and one the server
        would take now: initialize, or a request after an initialize answered here, or one carrying the
        2026-07-28 envelope."""
        message = plain_request(line) if len(line) <= MAX_RECALLED_BYTES else None
        if message is None or "id" not in message:
            return  # not a request, or one left to the server
        request_id, method, params = message["id"], message["method"], message.get("params")
        if not (method == "initialize" or self._handshake or opens_by_itself(params)):
            return
        result = self._replies.get(request_key(message))
        if result is None and self._first is not None:
            result = self._first.answer(message)
        if result is None:
            return
        reply = {"jsonrpc": "2.0", "id": request_id, "result": result}
        try:
            view = memoryview(json.dumps(reply, separators=(",", ":"), ensure_ascii=False).encode() + b"\n")
        except ValueError:  # a record holding what cannot be encoded (a lone surrogate): the server answers
            return
        while view:
            view = view[os.write(1, view) :]
        self._answered.append((request_id, method, result))
        self._handshake = self._handshake or method == "initialize"

    def handover(self) -> tuple[bytes, list[tuple[Any, str, Any]]]:
        """Stop the early reader: what it read (to be read again by the server) and what it answered (id, method,
        result), in order."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        unread, self._unread = bytes(self._unread), bytearray()
        return unread, self._answered

    def record(self, method: str, params: Any, result: Any) -> None:
        """Keep the server's reply to one of the first requests for the next start (written at once, if new)."""
        key = request_key({"jsonrpc": "2.0", "method": method, **({} if params is None else {"params": params})})
        if method not in RECALLED or self._recorded.get(key) == result:
            return
        self._recorded[key] = result
        draft = self.path.with_suffix(f".{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            draft.write_text(json.dumps(self._recorded, ensure_ascii=False), encoding="utf-8")
            os.replace(draft, self.path)
            kept = sorted(self.path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
            for old in kept[KEPT_FILES:]:
                old.unlink(missing_ok=True)
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                draft.unlink(missing_ok=True)
