"""MCP's own conformance suite (npm @modelcontextprotocol/conformance, pinned in package.json here) against our HTTP
server, for both revisions scratchpad speaks (issue 25).

`npm ci --prefix tests/conformance` installs it (with Node 22 from the npm package `node`; .ci/run does it); without
it this test is skipped, saying so. Each revision runs exactly the scenarios its requirement set scores
(`--requirements`), against a server on a fresh SQLite file with SCRATCHPAD_AUTH=none. A failed check passes only
when baseline.yml names its scenario (or the scenario:check), each entry saying why: the scenarios that need the
suite's own fixtures, and logging/setLevel. Any other failed check fails this test, and so does a baseline entry
that has started to pass. Warnings (the SHOULDs a stateless server does not meet) are printed, not failed; scenarios
the requirement set does not score (the tasks extension, pending ones) run and are printed too.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import Server, running

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
BIN = HERE / "node_modules" / ".bin"
REQUIREMENTS = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "requirements"
REVISIONS = ("2025-11-25", "2026-07-28")
RUN_TIMEOUT = 900  # seconds for one revision's run (about 30 s here)


def listed(path: Path, section: str) -> list[str]:
    """The `- item` lines of a top-level YAML section (the files read here are plain lists), comments dropped."""
    items: list[str] = []
    inside = False
    for line in path.read_text().splitlines():
        if re.match(r"^\S", line):
            inside = line.split("#")[0].strip() == f"{section}:"
            continue
        found = re.match(r"^\s+-\s+([^#\s][^#]*?)\s*(#.*)?$", line)
        if inside and found:
            items.append(found.group(1))
    return items


def baseline() -> dict[str, set[str] | None]:
    """Expected failures: scenario -> the check ids excused (None: the whole scenario)."""
    entries: dict[str, set[str] | None] = {}
    for entry in listed(HERE / "baseline.yml", "server"):
        scenario, _, check = entry.partition(":")
        if check:
            excused = entries.setdefault(scenario, set())
            assert excused is not None, f"{scenario} is in the baseline both whole and by check"
            excused.add(check)
        else:
            assert scenario not in entries, f"{scenario} is in the baseline twice"
            entries[scenario] = None
    return entries


def checks_by_scenario(output: Path) -> dict[str, list[dict[str, object]]]:
    """Each scenario's checks, from the runner's output folders (server-<scenario>-<timestamp>/checks.json)."""
    found: dict[str, list[dict[str, object]]] = {}
    for checks in output.glob("server-*/checks.json"):
        scenario = re.sub(r"-\d{4}-\d{2}-\d{2}T.*$", "", checks.parent.name.removeprefix("server-"))
        found.setdefault(scenario, []).extend(json.loads(checks.read_text()))
    return found


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    env = {"SCRATCHPAD_AUTH": "none", "SCRATCHPAD_DB_PATH": str(tmp_path / "conformance.db")}
    with running(tmp_path, {"conformance": env}) as servers:
        yield servers["conformance"]


@pytest.mark.parametrize("revision", REVISIONS)
def test_the_conformance_suite_finds_nothing_but_its_baseline(revision: str, server: Server, tmp_path: Path) -> None:
    if not (BIN / "conformance").exists() or not (BIN / "node").exists():
        pytest.skip("MCP's conformance suite is not installed: run `npm ci --prefix tests/conformance` (needs npm)")
    output = tmp_path / "results"
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}  # its Node 22, not the machine's
    command = [str(BIN / "conformance"), "server", "--url", server.mcp_url, "--requirements", revision]
    ran = subprocess.run(
        [*command, "-o", str(output)], env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False
    )
    summary = ran.stdout[ran.stdout.find("=== SUMMARY ===") :]
    checks = checks_by_scenario(output)
    scored = listed(REQUIREMENTS / f"{revision}.yaml", "server")
    excused = baseline()

    unexpected, warned = [], []
    for scenario in scored:
        if scenario not in checks:
            unexpected.append(f"{scenario}: did not run")
        for check in checks.get(scenario, []):
            if check["status"] == "WARNING":
                warned.append(f"{scenario}:{check['id']}: {check.get('errorMessage') or check.get('details')}")
            allowed = excused.get(scenario, set())
            if check["status"] == "FAILURE" and allowed is not None and check["id"] not in allowed:
                unexpected.append(f"{scenario}:{check['id']}: {check.get('errorMessage')}")
    stale = []
    for scenario, allowed in excused.items():
        if scenario not in scored or scenario not in checks:
            continue  # not this revision's (logging/setLevel is 2025-11-25's only)
        statuses = {str(check["id"]): check["status"] for check in checks[scenario]}
        if allowed is None and "FAILURE" not in statuses.values():
            stale.append(scenario)
        stale += [f"{scenario}:{c}" for c in sorted(allowed or ()) if statuses.get(c) == "SUCCESS"]

    print(f"\n{revision}: {summary}\nwarnings, not failures:\n  " + "\n  ".join(warned))
    assert checks, f"the suite produced no results (exit {ran.returncode}):\n{ran.stdout[-3000:]}\n{ran.stderr[-3000:]}"
    assert not unexpected, f"{revision}: failures not in baseline.yml:\n  " + "\n  ".join(unexpected)
    assert not stale, f"{revision}: baseline.yml entries that pass now (remove them):\n  " + "\n  ".join(stale)
    assert "Traceback" not in server.stderr(), server.stderr()[-3000:]
