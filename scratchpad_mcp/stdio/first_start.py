"""A first start's replies to a host's handshake and tool listing, shipped with the package (issue 29).

The warm start (warm_start) recalls what the last start made the same way answered; a first start (a new HOME,
or any change to the set-up or the code) has nothing to recall, and importing the SDK alone takes longer than the
original server's whole start. For the set-up most hosts use, no setting that could change a reply (none, or only
those in NO_EFFECT), these replies are the same on every machine: first_replies.json holds them, as the server
itself gave them (`python -m scratchpad_mcp.stdio.first_replies --write` starts it once per protocol revision and
records its answers; tests/mcp/stdio/test_first_start.py holds the file to them). They are used only with the
versions they were made with (this package, the SDK, pydantic, Python) and the code they came from (SOURCES, by
content: a checkout whose tools were edited since answers nothing early), and only for an initialize or a tools/list
of a shape the SDK takes as it is (plain_request, plain_initialize); anything else waits for the server. The
server still answers every request: a reply of its own that differs from one given early is logged
(stdio.asked), and it is what the next start recalls.

Standard library only: the warm start uses it before anything heavy is imported.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

PACKAGED = Path(__file__).with_name("first_replies.json")
SETTINGS_NAMES = frozenset({"MCP_TRANSPORT", "PORT", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"})  # and SCRATCHPAD_*
NO_EFFECT = frozenset(  # settings that change no reply to initialize or tools/list over stdio (a test holds it)
    {
        "SCRATCHPAD_DB_PATH",
        "SCRATCHPAD_LOG_LEVEL",
        "SCRATCHPAD_LOG_FORMAT",
        "SCRATCHPAD_MAX_READ_BYTES",
        "SCRATCHPAD_SUMMARY_MODEL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
    }
)
CLIENT_INFO = frozenset({"name", "version", "title", "description", "websiteUrl"})
CAPABILITIES = frozenset({"experimental", "sampling", "elicitation", "roots", "extensions", "tasks"})
MAX_ID = 2**53  # an integer id beyond what every JSON reader keeps exactly is left to the server
PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
MADE_WITH = ("scratchpad_mcp", "mcp", "mcp_types", "pydantic", "pydantic_core")  # distributions, as dist-info names
SOURCES = ("scratchpad_core", "scratchpad_mcp.server", "scratchpad_mcp.settings")  # the code that makes the replies


def is_setting(name: str) -> bool:
    """Whether the server's settings read this variable (a test holds this to Settings.variables())."""
    return name.startswith("SCRATCHPAD_") or name in SETTINGS_NAMES


def source_digest() -> str:
    """A hash of the code the replies come from (SOURCES' modules, by content: the same on every machine), so that
    a checkout whose tools changed since the file was made answers nothing early (nothing is imported)."""
    digest = hashlib.sha256()
    for name in SOURCES:
        spec = importlib.util.find_spec(name)
        for folder in (spec.submodule_search_locations or []) if spec is not None else []:
            for root, dirs, files in os.walk(folder):
                dirs.sort()
                for file in sorted(f for f in files if f.endswith(".py")):
                    relative = os.path.relpath(os.path.join(root, file), folder).replace(os.sep, "/")
                    with open(os.path.join(root, file), "rb") as source:
                        digest.update(f"{name}/{relative}:".encode() + source.read() + b";")
    return digest.hexdigest()[:32]


def installed(name: str, version: str) -> bool:
    """Whether the distribution is installed at this version, where the import finds it (no importlib.metadata)."""
    return any(os.path.isdir(os.path.join(entry or ".", f"{name}-{version}.dist-info")) for entry in sys.path)


class FirstReplies:
    """The packaged replies: initialize's result for each revision the SDK negotiates, and tools/list's."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.made_with: dict[str, str] = dict(data["made_with"])
        self.initialize: dict[str, Any] = dict(data["initialize"])  # by the revision the server agreed on
        self.otherwise: str = data["otherwise"]  # the revision agreed on when the one asked for is unknown
        self.tools: dict[str, Any] = dict(data["tools/list"])

    @classmethod
    def load(cls, environ: Mapping[str, str], path: Path = PACKAGED) -> FirstReplies | None:
        """The packaged replies, when they hold for this start: no setting but those in NO_EFFECT, and the
        versions they were made with; None otherwise (or when they cannot be read)."""
        if any(value and is_setting(name) and name not in NO_EFFECT for name, value in environ.items()):
            return None
        try:
            replies = cls(json.loads(path.read_bytes()))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        versions = dict(replies.made_with)
        if versions.pop("python", None) != PYTHON or set(versions) != {*MADE_WITH, "sources"}:
            return None
        if versions.pop("sources") != source_digest():
            return None
        return replies if all(installed(name, version) for name, version in versions.items()) else None

    def answer(self, message: Mapping[str, Any]) -> Any:
        """The result for a request (parsed by plain_request), or None when the server is to answer it."""
        method = message["method"]
        if method == "tools/list" and message.get("params", {}) == {}:  # no params, or empty ones
            return self.tools
        if method == "initialize":
            asked = plain_initialize(message.get("params"))
            return None if asked is None else self.initialize.get(asked, self.initialize[self.otherwise])
        return None


def plain_request(line: bytes) -> dict[str, Any] | None:
    """The request in a line when the SDK surely reads it as this module does: one JSON object with only
    jsonrpc 2.0, an id (a string, or an integer below MAX_ID), a method and params (an object, or null); no
    repeated key, no NaN or Infinity, no lone surrogate. None for anything else (the server answers it)."""
    try:
        message = json.loads(line, object_pairs_hook=_no_repeats, parse_constant=_refuse)
        json.dumps(message, ensure_ascii=False).encode()  # a lone surrogate cannot be encoded
    except (ValueError, TypeError):
        return None
    if not isinstance(message, dict) or not message.keys() <= {"jsonrpc", "id", "method", "params"}:
        return None
    request_id = message.get("id")
    id_ok = isinstance(request_id, str) or (type(request_id) is int and abs(request_id) < MAX_ID)
    params_ok = isinstance(message.get("params"), dict | None)
    if message.get("jsonrpc") != "2.0" or not id_ok or not params_ok or not isinstance(message.get("method"), str):
        return None
    return message


def plain_initialize(params: Any) -> str | None:
    """The protocol revision an initialize asks for, when its params are of a shape the SDK takes as it is:
    protocolVersion, capabilities and clientInfo (name, version and other strings); each capability SDK knows an
    object of objects (roots.listChanged a boolean); no _meta. None for anything else."""
    if not isinstance(params, dict) or params.keys() != {"protocolVersion", "capabilities", "clientInfo"}:
        return None
    asked, capabilities, client = params["protocolVersion"], params["capabilities"], params["clientInfo"]
    if not isinstance(asked, str) or not isinstance(client, dict) or not isinstance(capabilities, dict):
        return None
    if not {"name", "version"} <= client.keys() <= CLIENT_INFO or not all(isinstance(v, str) for v in client.values()):
        return None
    for name, value in capabilities.items():
        if name not in CAPABILITIES or not _objects(value, roots=name == "roots"):
            return None
    return asked


def _objects(value: Any, *, roots: bool = False) -> bool:
    """An object whose values are objects, all the way down; roots' listChanged, if there, is a boolean (the one
    field of the SDK's ClientCapabilities that is not an object)."""
    if not isinstance(value, dict):
        return False
    return all(
        isinstance(item, bool) if roots and key == "listChanged" else _objects(item) for key, item in value.items()
    )


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise ValueError("a key repeated")
    return found


def _refuse(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON")
