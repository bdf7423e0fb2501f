"""The examples of the README and docs/: every fenced `sh` and `python` block, found and run as a reader would run
it. A block is run whole (one bash script, `set -e`: every command must succeed) unless the line just before its
fence says otherwise, in an HTML comment the rendered page does not show:

    <!-- example: skip reason="what it needs that a test cannot have here" -->
    <!-- example: alternatives -->    each command on its own, on a fresh copy of the store (ways to do one thing)

Blocks in other languages (json, text, diagrams) are not run. A skip without a reason is refused.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN = {"sh": "sh", "bash": "sh", "shell": "sh", "python": "python", "py": "python"}
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<language>[\w-]*)[ \t]*$")
MARK = re.compile(r"^\s*<!--\s*example:\s*(?P<body>.*?)\s*-->\s*$")
SKIP = re.compile(r'^skip reason="(?P<reason>[^"]+)"$')


class ExampleMarkError(ValueError):
    """A marker the collector cannot read: the page must say what it means."""


@dataclass(frozen=True)
class Example:
    page: Path
    line: int  # of the opening fence, 1-based
    language: str  # "sh" or "python"
    code: str
    skip: str | None = None
    alternatives: bool = False

    @property
    def name(self) -> str:
        where = self.page.relative_to(ROOT) if self.page.is_relative_to(ROOT) else self.page.name
        return f"{where}:{self.line}"

    def commands(self) -> list[str]:
        """The block's commands, a line each (continuations joined; blank and comment lines left out)."""
        joined = self.code.replace("\\\n", " ")
        return [line for line in joined.splitlines() if line.strip() and not line.lstrip().startswith("#")]


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def collect(page: Path) -> list[Example]:
    """The page's sh and python blocks, each with what its marker says."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Example] = []
    number = 0
    while number < len(lines):
        opening = FENCE.match(lines[number])
        if opening is None:
            number += 1
            continue
        indent, language = opening["indent"], opening["language"]
        end = number + 1
        while end < len(lines) and lines[end].rstrip() != f"{indent}```":
            end += 1
        if end == len(lines):
            raise ExampleMarkError(f"{page.name}:{number + 1}: a code block that is never closed")
        if language in RUN:
            body = textwrap.dedent("\n".join(lines[number + 1 : end])) + "\n"
            skip, alternatives = marked(page, number, lines)
            found.append(Example(page, number + 1, RUN[language], body, skip, alternatives))
        number = end + 1
    return found


def marked(page: Path, fence: int, lines: list[str]) -> tuple[str | None, bool]:
    before = fence - 1
    while before >= 0 and not lines[before].strip():
        before -= 1
    mark = MARK.match(lines[before]) if before >= 0 else None
    if mark is None:
        return None, False
    body = mark["body"]
    if body == "alternatives":
        return None, True
    skip = SKIP.match(body)
    if skip is None:
        raise ExampleMarkError(
            f'{page.name}:{before + 1}: unreadable example marker {body!r}: write skip reason="why" or alternatives'
        )
    return skip["reason"], False


def environment(home: Path, extra: Mapping[str, str]) -> dict[str, str]:
    """This process's environment without the server's settings, uv pointed at this checkout (as if the commands
    ran in it), and HOME (so the default database) in the test's folder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SCRATCHPAD_", "MCP_", "ANTHROPIC_", "XDG_"))}
    env.update(
        HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), UV_PROJECT=str(ROOT), UV_FROZEN="1", UV_OFFLINE="1",
        UV_NO_SYNC="1",
    )  # fmt: skip
    env.update(extra)
    return env


def run(example: Example, workdir: Path, env: Mapping[str, str], fresh: Callable[[], object] = lambda: None) -> Ran:
    """Run the example in `workdir`; `fresh` puts a fresh copy of the store in place before each alternative."""
    if example.language == "python":
        source = workdir / "example.py"
        source.write_text(example.code, encoding="utf-8")
        return _ran([sys.executable, str(source)], workdir, env)
    scripts = [f"{command}\n" for command in example.commands()] if example.alternatives else [example.code]
    outs, errs = [], []
    for script in scripts:
        fresh()
        done = _ran(["bash", "-c", "set -eo pipefail\n" + script], workdir, env)
        outs.append(done.out)
        errs.append(done.err)
        if done.code != 0:
            return Ran(done.code, "".join(outs), f"{shlex.quote(script.strip())} failed:\n" + "".join(errs))
    return Ran(0, "".join(outs), "".join(errs))


def _ran(command: list[str], workdir: Path, env: Mapping[str, str]) -> Ran:
    done = subprocess.run(
        command,
        check=False,
        cwd=workdir,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def copy_store(seeded: Path, home: Path) -> Path:
    """The seeded SQLite file where the server looks by default (platformdirs' user data dir under HOME)."""
    target = home / ".local" / "share" / "scratchpad-mcp" / "scratchpad.db"
    target.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("-wal", "-shm", "-journal"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(seeded, target)
    return target
