"""A refusal as the TypeScript SDK's client reads it (the client most MCP hosts are built on), over stdio: the
error result with its one line and the refusal's data in _meta. That client checks structuredContent against the
tool's output schema even on an error result, which is why the data is not there (scratchpad_mcp.server.refusals).

The SDK comes with MCP's conformance suite (`npm ci --prefix tests/conformance`); without it this test is skipped."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from scratchpad_mcp.server.refusals import META_KEY
from tests.mcp.helpers import console_script, server_env

MODULES = Path(__file__).resolve().parents[1] / "conformance" / "node_modules"
SDK = MODULES / "@modelcontextprotocol" / "sdk" / "dist" / "esm" / "client"
SCRIPT = """
import { Client } from "%(sdk)s/index.js";
import { StdioClientTransport } from "%(sdk)s/stdio.js";
const transport = new StdioClientTransport({ command: %(command)s, args: [], env: %(env)s, stderr: "ignore" });
const client = new Client({ name: "refusal-check", version: "0" });
await client.connect(transport);
await client.listTools();  // the client keeps each tool's output schema, to check results against
const r = await client.callTool({ name: "read_file", arguments: { agent_id: "a", path: "gone.md" } });
console.log(JSON.stringify({ isError: r.isError, text: r.content[0].text, meta: r._meta ?? null,
                             structured: r.structuredContent ?? null }));
await client.close();
"""


def test_the_typescript_client_gets_the_refusal_and_its_data(tmp_path: Path) -> None:
    node = shutil.which("node") or str(MODULES / ".bin" / "node")
    if not SDK.exists() or not Path(node).exists():
        pytest.skip("the TypeScript SDK is not installed: run `npm ci --prefix tests/conformance` (needs npm)")
    env = server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "ts.db"))
    script = tmp_path / "check.mjs"
    script.write_text(SCRIPT % {"sdk": SDK, "command": json.dumps(console_script()), "env": json.dumps(env)})
    done = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout.strip().splitlines()[-1])
    assert reply == {
        "isError": True,
        "text": "File not found: gone.md. Use list_files to see this agent's files.",
        "meta": {META_KEY: {"code": "not_found", "retryable": False}},
        "structured": None,
    }
