"""`scratchpad-mcp db check` run as a user runs it, for the tests that check a store from outside."""

from __future__ import annotations

import subprocess

from scratchpad_core.limits import Limits
from tests.mcp.helpers import START_TIMEOUT, console_script, server_env


def db_check(url: str, limits: Limits, *args: str) -> subprocess.CompletedProcess[str]:
    """`scratchpad-mcp --database URL db check ARGS...` with the store's version and deletion limits."""
    env = server_env(
        SCRATCHPAD_MAX_VERSIONS=str(limits.max_versions),
        SCRATCHPAD_REMEMBERED_DELETIONS=str(limits.remembered_deletions),
    )
    return subprocess.run(
        [console_script(), "--database", url, "db", "check", *args],
        env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=START_TIMEOUT, check=False,
    )  # fmt: skip
