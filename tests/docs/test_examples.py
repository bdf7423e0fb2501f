"""Every shell command and Python example of the README and docs/ runs, as written, against a real store: a SQLite
file where the server looks by default (HOME is the test's), seeded with what the examples name (research-bot's plan
in nine versions, its notes with a secret, its log of 45 entries, a key whose id is $ID). Blocks that cannot run
here say why in their marker (tests/docs/examples.py); a broken example fails its test."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from scratchpad_adapters import open_store
from tests.docs.examples import ROOT, Example, ExampleMarkError, collect, copy_store, environment, pages, run

AGENT = "research-bot"
EXAMPLES = [example for page in pages() for example in collect(page)]


def plan(version: int) -> str:
    steps = [f"- step {number}: part {number} of the plan, revision {min(number, version)}" for number in range(1, 46)]
    steps[20] = "- move the API to Postgres (decided in version 2)" if version >= 2 else steps[20]
    return "# Plan\n" + "\n".join(steps) + "\nTODO: benchmarks\n"


@pytest.fixture(scope="session")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A store holding what the examples name, and the id of a key on it."""
    folder = tmp_path_factory.mktemp("seeded")
    database = folder / "scratchpad.db"
    with open_store(f"sqlite:///{database}") as store:
        for version in range(1, 10):
            store.write_file(AGENT, "plans/plan.md", plan(version))
        for content in ("notes\n", "key: sk-live-1234\n", "key: sk-live-1234, again sk-live-1234\n"):
            store.write_file(AGENT, "notes.md", content)
        for number in range(1, 46):
            store.append_log(AGENT, "runs/today.log", "leaked sk-live-1234" if number == 7 else f"run {number} done")
    command = [sys.executable, "-m", "scratchpad_mcp", "--database", f"sqlite:///{database}", "keys"]
    subprocess.run([*command, "create", "--agent", "team-lead"], check=True, capture_output=True)
    listed = subprocess.run([*command, "list", "--json"], check=True, capture_output=True, text=True).stdout
    return database, json.loads(listed.splitlines()[0])["id"]


@pytest.mark.parametrize("example", EXAMPLES, ids=[example.name for example in EXAMPLES])
def test_the_example_runs(example: Example, seeded: tuple[Path, str], tmp_path: Path) -> None:
    if example.skip:
        pytest.skip(f"{example.name}: {example.skip}")
    database, key_id = seeded
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    home.mkdir()
    done = run(example, work, environment(home, {"ID": key_id}), lambda: copy_store(database, home))
    assert done.code == 0, f"{example.name} failed (exit {done.code}):\n{example.code}\n{done.out}\n{done.err}"


def test_the_docs_hold_examples_of_both_kinds_and_each_skip_says_why() -> None:
    runs = [example for example in EXAMPLES if not example.skip]
    assert len(runs) >= 9 and {example.language for example in runs} == {"sh", "python"}
    assert all(len(example.skip) > 20 for example in EXAMPLES if example.skip)
    names = {example.page.name for example in EXAMPLES}
    assert {"README.md", "getting-started.md", "library.md", "cli.md", "operations.md"} <= names


BROKEN = """# A page

<!-- example: alternatives -->
```sh
uv run scratchpad-mcp --version
uv run scratchpad-mcp cat --agent research-bot plans/missing.md
```

```python
from scratchpad_adapters import open_store

with open_store("sqlite:///notes.db") as store:
    store.edit_file("me", "plan.md", "not there", "x")
```
"""


def test_a_broken_example_fails(tmp_path: Path, seeded: tuple[Path, str]) -> None:
    """The collector's own check: an example that fails makes its run fail, saying which command."""
    page = tmp_path / "page.md"
    page.write_text(BROKEN, encoding="utf-8")
    shell, python = collect(page)
    assert (shell.language, shell.alternatives, shell.line, python.language) == ("sh", True, 4, "python")
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    env = environment(home, {})
    failed = run(shell, work, env, lambda: copy_store(seeded[0], home))
    assert failed.code == 1 and "plans/missing.md" in failed.err
    assert "'uv run scratchpad-mcp cat --agent research-bot plans/missing.md' failed" in failed.err
    assert run(python, work, env).code == 1  # the library's refusal, uncaught


def test_a_skip_without_a_reason_is_refused(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("<!-- example: skip -->\n```sh\nfalse\n```\n", encoding="utf-8")
    with pytest.raises(ExampleMarkError, match='write skip reason="why" or alternatives'):
        collect(page)


def test_the_collector_reads_indented_blocks_and_leaves_other_languages() -> None:
    operations = collect(ROOT / "docs" / "operations.md")
    assert any(example.code.startswith("KEY=$(") for example in operations)  # inside a numbered list
    assert all(example.language in {"sh", "python"} for example in operations)


def test_the_readme_is_a_front_door_into_every_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    linked = set(re.findall(r"\]\(docs/([\w-]+\.md)", readme))
    assert linked == {page.name for page in (ROOT / "docs").glob("*.md")} - {"index.md"}
