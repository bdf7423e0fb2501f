"""Making first_replies.json (first_start): the server's own replies to an initialize in each protocol revision the
SDK negotiates and to the tools/list after it, each from a server started on a new database with nothing recalled.

    uv run python -m scratchpad_mcp.stdio.first_replies --write    # after changing a tool, the instructions, a version
    uv run python -m scratchpad_mcp.stdio.first_replies --check    # exit 1 if the file is out of date

tests/mcp/stdio/test_first_start.py runs the same comparison.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .first_start import MADE_WITH, PACKAGED, PYTHON, is_setting, source_digest

SERVE = "import sys; from scratchpad_mcp.launch import main; sys.exit(main([]))"  # serving, with no early replies
UNKNOWN = "0000-00-00"  # a revision no SDK knows: what the server agrees on instead is recorded


def server_replies(version: str, environ: Mapping[str, str] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The server's own results for an initialize asking for `version` and the tools/list after it, on a new
    database and with nothing recalled (launch.main, not the console script's warm start); `environ` adds to this
    process's environment without its settings."""
    with tempfile.TemporaryDirectory(prefix="scratchpad-first-") as folder:
        env = {k: v for k, v in os.environ.items() if not is_setting(k)}
        env.update({"SCRATCHPAD_DB_PATH": str(Path(folder) / "first.db"), **(environ or {})})
        init = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "first-start", "version": "1"}}
        lines = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        ]
        sent = "".join(json.dumps(line) + "\n" for line in lines).encode()
        command = [sys.executable, "-c", SERVE]  # this interpreter, running this package's server
        done = subprocess.run(command, input=sent, env=env, capture_output=True, timeout=120, check=True)  # noqa: S603
    replies = {reply["id"]: reply for reply in map(json.loads, done.stdout.splitlines())}
    return replies[1]["result"], replies[2]["result"]


def generate() -> dict[str, Any]:
    """The content of first_replies.json, from the server's own replies in each revision it negotiates."""
    import importlib.metadata

    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    made_with = {name: importlib.metadata.version(name) for name in MADE_WITH}
    initialize, tools = {}, []
    for version in (*HANDSHAKE_PROTOCOL_VERSIONS, UNKNOWN):
        result, listed = server_replies(version)
        initialize[version] = result
        tools.append(listed)
    if any(listed != tools[0] for listed in tools):
        raise RuntimeError("tools/list differs by protocol revision; first_replies.json holds one listing")
    otherwise = initialize.pop(UNKNOWN)["protocolVersion"]
    made_with.update(python=PYTHON, sources=source_digest())
    return {"made_with": made_with, "otherwise": otherwise, "initialize": initialize, "tools/list": tools[0]}


def main(argv: list[str]) -> int:
    """--write: write first_replies.json from the server's own replies; --check: exit 1 if it differs from them."""
    if argv not in (["--write"], ["--check"]):
        sys.stderr.write("usage: python -m scratchpad_mcp.stdio.first_replies --write | --check\n")
        return 2
    made = generate()
    if argv == ["--write"]:
        PACKAGED.write_text(json.dumps(made, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        return 0
    same = PACKAGED.exists() and json.loads(PACKAGED.read_text(encoding="utf-8")) == made
    sys.stdout.write(f"{PACKAGED.name} {'matches the server' if same else 'is out of date: run with --write'}\n")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
