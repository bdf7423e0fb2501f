"""The real command in its own process: --follow prints new entries until interrupted, and diff is coloured
on a terminal (a pseudo-terminal here) but plain in a pipe."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import time

from scratchpad_core.service import Scratchpad
from tests.mcp.helpers import console_script, server_env

WAIT_S = 30.0


def read_until(fd: int, wanted: str, seen: bytearray) -> str:
    """Bytes from `fd` into `seen` until `wanted` shows up (or the wait runs out); all of them, decoded."""
    deadline = time.monotonic() + WAIT_S
    while wanted not in seen.decode(errors="replace") and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            seen += chunk
    return seen.decode(errors="replace")


def test_follow_prints_new_entries_until_interrupted(url: str, filled: Scratchpad) -> None:
    follow = subprocess.Popen(
        [console_script(), "--database", url, "log", "-a", "alice", "runs/today.log", "--tail", "1", "--follow",
         "--interval", "0.1"],
        env=server_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert follow.stdout is not None
        seen = bytearray()
        assert "  entry 5\n" in read_until(follow.stdout.fileno(), "  entry 5\n", seen)
        filled.append_log("alice", "runs/today.log", "entry 6")
        filled.append_log("alice", "runs/today.log", "entry 7")
        shown = read_until(follow.stdout.fileno(), "  entry 7\n", seen)
        assert [line.split("  ")[0] for line in shown.splitlines()] == ["#5", "#6", "#7"]
        assert follow.poll() is None  # still following
        follow.send_signal(signal.SIGINT)
        assert follow.wait(timeout=WAIT_S) == 130
        assert follow.stderr is not None and "Traceback" not in follow.stderr.read().decode()
    finally:
        follow.kill()
        follow.wait()


def test_diff_is_coloured_on_a_terminal_only(url: str, filled: Scratchpad) -> None:
    args = [console_script(), "--database", url, "diff", "-a", "alice", "plans/plan.md"]
    leader, follower = pty.openpty()
    try:
        shown = subprocess.run(args, env=server_env(), stdin=subprocess.DEVNULL, stdout=follower,
                               stderr=subprocess.PIPE, timeout=WAIT_S, check=False)  # fmt: skip
        assert shown.returncode == 0, shown.stderr
        coloured = read_until(leader, "step three", bytearray())
    finally:
        os.close(follower)
        os.close(leader)
    assert "\x1b[31m-step one\x1b[0m" in coloured and "\x1b[32m+step three\x1b[0m" in coloured
    assert "\x1b[36m@@ -1,3 +1,4 @@\x1b[0m" in coloured
    piped = subprocess.run(args, env=server_env(), capture_output=True, text=True, timeout=WAIT_S, check=False)
    assert piped.returncode == 0 and "\x1b[" not in piped.stdout and "-step one\n" in piped.stdout
