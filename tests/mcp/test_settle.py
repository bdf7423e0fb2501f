"""A serving process takes what start-up made out of the cyclic collector's sight (gc.freeze): a full collection,
which large replies set off now and then, then walks only what calls made since (~100 ms less at such a call)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

PROGRAM = """
import gc, os, sys
from scratchpad_mcp import app
from scratchpad_mcp.stdio import transport
from scratchpad_mcp.settings import Settings

def serve(server, max_bytes, direct, warm):  # stands in for the stdio loop: what does the collector see then?
    seen = {id(item) for item in gc.get_objects()}
    print(gc.get_freeze_count() > 10_000, id(server) in seen, id(server._tool_manager) in seen)

transport.serve = serve
app.serve(Settings.from_env(os.environ))
"""


def test_serving_freezes_what_start_up_made(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "SCRATCHPAD_DB_PATH": str(tmp_path / "x.db"), "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == ["True", "False", "False"], done.stderr[-2000:]
