"""SQL statements a writing call runs on SQLite, for this release and earlier ones taken from git history (issue 29).

    uv run python -m bench.statements [--releases a42ecc5 1f37598]

Each release runs in its own process on a fresh SQLite file (sqlite3's trace callback counts every statement,
a trigger's included, BEGIN and COMMIT too): write_file of 1 KiB, append_log of 200 B, and a one-line edit_file
of a 20,000-line file, the mean of 10 calls each. a42ecc5 is the release before the search index, 1f37598 the
one that indexed in the writer's transaction. Figures only; they go to the docs (docs/).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from bench.common import ROOT, markdown_table, release_from_history

COUNTER = """
import json, sys, tempfile
import sqlalchemy.engine
from sqlalchemy import event
from scratchpad_adapters import open_store
count = [0]
@event.listens_for(sqlalchemy.engine.Engine, "connect")
def trace(dbapi, _record):
    dbapi.set_trace_callback(lambda _sql: count.__setitem__(0, count[0] + 1))
store = open_store(f"sqlite:///{tempfile.mkdtemp()}/count.db")
store.write_file("w", "big.md", "\\n".join(f"line {i} of a big file with some words" for i in range(20_000)))
store.write_file("w", "small.md", "x\\n")
store.append_log("w", "a.log", "first")
calls = {
    "write_file 1 KiB": lambda i: store.write_file("w", "small.md", f"# rev {i}\\n" + "body text " * 100),
    "append_log 200 B": lambda i: store.append_log("w", "a.log", f"entry {i} " + "y" * 190),
    "edit_file, 1 line of 20,000": lambda i: store.edit_file("w", "big.md", f"line {i} of", f"line {i} edited of"),
}
out = {}
for name, call in calls.items():
    before = count[0]
    for i in range(1, 11):
        call(i)
    out[name] = (count[0] - before) / 10
print(json.dumps(out))
store.close()
"""


def counted(code: Path) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(COUNTER)], cwd=code, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(code)}, capture_output=True)  # fmt: skip
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--releases", nargs="*", default=["a42ecc5", "1f37598"])
    args = parser.parse_args()
    figures: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for release in args.releases:
            code = release_from_history(release, Path(folder) / release)
            if code is None:
                print(f"{release} is not in git history: left out", file=sys.stderr)
                continue
            figures[release] = counted(code)
    figures["this"] = counted(ROOT)
    calls = list(figures["this"])
    rows = [[release, *(f"{counts[call]:.1f}" for call in calls)] for release, counts in figures.items()]
    print(markdown_table(["release", *calls], rows, right=list(range(1, len(calls) + 1))))


if __name__ == "__main__":
    main()
