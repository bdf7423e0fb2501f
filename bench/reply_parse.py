"""What a Python MCP client spends on one tool reply, without a server (issue 29: list_files and read_log).

    uv run python -m bench.reply_parse [--rows 1000] [--repeat 200]

A reply of `--rows` listed files as the server writes it, taken through what the mcp client does with a
tools/call response line (stdio._parse_line's JSON-RPC validation, the session's validate_server_result, which
validates and dumps the result, and CallToolResult's validation), then json.loads of the text as an agent's
harness would: with structuredContent beside the text (before), text only (now), and the original server's
indented text only. Milliseconds a reply, the mean of --repeat. Figures only; they go to the README.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from mcp import types
from mcp.types import CallToolResult
from mcp_types import methods


def line(text: str, structured: dict[str, Any] | None) -> str:
    result: dict[str, Any] = {"content": [{"text": text, "type": "text"}], "isError": False}
    if structured is not None:
        result["structuredContent"] = structured
    return json.dumps({"jsonrpc": "2.0", "id": 5, "result": result})


def client_ms(reply: str, repeat: int) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        message = types.jsonrpc_message_adapter.validate_json(reply, by_name=False)
        raw = message.result  # type: ignore[union-attr]
        methods.validate_server_result("tools/call", "2025-11-25", raw)
        result = CallToolResult.model_validate(raw, by_name=False)
        json.loads(result.content[0].text)  # type: ignore[union-attr]
    return (time.perf_counter() - started) / repeat * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    at = 1_796_433_689_510
    rows = [
        {"path": f"files/{n:04d}.md", "current_version": 1, "bytes": 7, "created_at": at + n, "updated_at": at + n}
        for n in range(args.rows)
    ]
    payload = {"files": rows, "count": args.rows}
    compact = json.dumps(payload, separators=(",", ":"))
    cases = {
        "text and structuredContent (before)": line(compact, payload),
        "text only (now)": line(compact, None),
        "the original's indented text": line(json.dumps(payload, indent=2), None),
    }
    print(f"| reply of {args.rows:,} files | bytes | client ms a reply |\n|---|--:|--:|")
    for name, reply in cases.items():
        print(f"| {name} | {len(reply):,} | {client_ms(reply, args.repeat):.2f} |")


if __name__ == "__main__":
    main()
