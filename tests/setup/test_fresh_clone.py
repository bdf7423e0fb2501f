"""A newcomer's first commands on a fresh copy of this checkout, with uv's package cache warm (as after any
`uv sync` on the machine): `uv run scratchpad-mcp` sets up in seconds without the linters, later starts do no
install or bytecode work, `uv run pytest` needs no flags, and the wheel installs and runs with its migrations."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.mcp.helpers import server_env

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
FIRST_START_S = 15.0  # the target for the first `uv run scratchpad-mcp` on a fresh clone, cache warm
UV_TIMEOUT = 300.0


def uv() -> str:
    found = shutil.which("uv")
    if found is None:
        pytest.skip("uv is not on PATH")
    return found


def fresh_copy(target: Path) -> Path:
    """The files a clone of this checkout would have, as they are in the working tree (changes included)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=False,
    )  # fmt: skip
    if listed.returncode != 0:
        pytest.skip("not a git checkout: no list of the files a clone has")
    for name in listed.stdout.decode().split("\0"):
        source = ROOT / name
        if name and source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def uv_env() -> dict[str, str]:
    """This environment without the test run's own virtualenv, so uv sets up the copy's as a newcomer's."""
    env = server_env()
    for name in ("VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT", "UV_RUN_RECURSION_DEPTH", "UV_NO_SYNC", "UV_FROZEN"):
        env.pop(name, None)
    env.pop("XDG_CACHE_HOME")  # server_env's folder for warm starts: uv keeps its own cache where it always does
    if "XDG_CACHE_HOME" in os.environ:
        env["XDG_CACHE_HOME"] = os.environ["XDG_CACHE_HOME"]
    return {**env, "UV_OFFLINE": "1"}  # the warm cache only: a miss fails here rather than downloading


def timed(*args: str, cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    began = time.monotonic()
    done = subprocess.run(
        args, cwd=cwd, env=uv_env(), capture_output=True, text=True, timeout=UV_TIMEOUT, check=False
    )  # fmt: skip
    return time.monotonic() - began, done


def site_packages(venv: Path) -> Path:
    (found,) = venv.glob("lib/python3*/site-packages") or venv.glob("Lib/site-packages")
    return found


def test_uv_run_on_a_fresh_clone_is_quick_installs_no_linters_and_compiles_nothing_later(tmp_path: Path) -> None:
    clone = fresh_copy(tmp_path / "clone")
    seconds, first = timed(uv(), "run", "scratchpad-mcp", "--help", cwd=clone)
    assert first.returncode == 0, first.stderr
    assert "usage: scratchpad-mcp" in first.stdout
    assert seconds <= FIRST_START_S, (seconds, first.stderr)
    assert "Bytecode compiled" not in first.stderr, first.stderr
    installed = site_packages(clone / ".venv")
    for linter in ("mypy", "ruff"):
        assert not (installed / linter).exists(), f"{linter} was installed by `uv run scratchpad-mcp`"
    assert (installed / "pytest").is_dir()  # the default group: `uv run pytest` needs no flags

    again_s, again = timed(uv(), "run", "scratchpad-mcp", "--help", cwd=clone)
    assert again.returncode == 0, again.stderr
    assert again.stderr == "", again.stderr  # no "Installed ...", no "Bytecode compiled ..."
    print(f"first uv run: {seconds:.1f} s; second: {again_s:.1f} s", file=sys.stderr)

    tests = timed(uv(), "run", "pytest", "--version", cwd=clone)[1]
    assert tests.returncode == 0 and tests.stdout.startswith("pytest "), tests.stderr
    linted = timed(uv(), "run", "--group", "dev", "ruff", "--version", cwd=clone)[1]
    assert linted.returncode == 0 and linted.stdout.startswith("ruff "), linted.stderr


def test_the_wheel_installs_and_runs_with_its_migrations(tmp_path: Path) -> None:
    """The project built as a wheel (not editable) in a virtualenv of its own, its dependencies from the lock,
    run from elsewhere: the command works and finds the migrations inside the package."""
    clone = fresh_copy(tmp_path / "clone")
    venv = tmp_path / "venv"
    env = {**uv_env(), "UV_PROJECT_ENVIRONMENT": str(venv)}
    installed = subprocess.run(
        [uv(), "sync", "--frozen", "--no-editable", "--no-default-groups"],
        cwd=clone, env=env, capture_output=True, text=True, timeout=UV_TIMEOUT, check=False,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    shutil.rmtree(clone)  # nothing of the source tree is left to lean on
    command = venv / ("Scripts" if os.name == "nt" else "bin") / "scratchpad-mcp"
    helped = subprocess.run([command, "--help"], capture_output=True, text=True, timeout=UV_TIMEOUT, check=False)
    assert helped.returncode == 0 and "usage: scratchpad-mcp" in helped.stdout, helped.stderr
    database = f"sqlite:///{tmp_path / 'wheel.db'}"
    upgraded = subprocess.run(
        [command, "--database", database, "db", "upgrade"],
        cwd=tmp_path, env=server_env(), capture_output=True, text=True, timeout=UV_TIMEOUT, check=False,
    )  # fmt: skip
    assert upgraded.returncode == 0 and "(at head)" in upgraded.stdout, upgraded.stderr
    assert (site_packages(venv) / "scratchpad_adapters" / "sql" / "schema" / "migrations" / "versions").is_dir()
    python = command.with_name("python.exe" if os.name == "nt" else "python")  # a first start's replies apply there
    shipped = "import sys; from scratchpad_mcp.stdio.first_start import FirstReplies as F; sys.exit(not F.load({}))"
    assert subprocess.run([python, "-c", shipped], cwd=tmp_path, timeout=UV_TIMEOUT, check=False).returncode == 0
    assert not (site_packages(venv) / "pytest").exists()  # a user's install carries no test tools
