"""Document histories read from git: every revision of a text file, oldest first, renames followed."""

from __future__ import annotations

import re
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
_STORABLE = re.compile(r"[^a-zA-Z0-9/_.-]")


@dataclass
class Document:
    """One file's history: its path at HEAD, the texts of its revisions, and what was left out and why."""

    path: str
    texts: list[str]
    skipped: Counter[str] = field(default_factory=Counter)

    @property
    def note_path(self) -> str:
        """The path the agents store it under (characters scratchpad does not allow become '-')."""
        return _STORABLE.sub("-", self.path).strip("/") or "document"


def git(repo: Path, *args: str, data: bytes | None = None) -> bytes:
    """Run git in `repo` (a work tree or a bare git directory); its stdout, or RuntimeError with its stderr."""
    out = subprocess.run(["git", "-C", str(repo), *args], input=data, capture_output=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} in {repo}: {out.stderr.decode(errors='replace').strip()}")
    return out.stdout


def revisions(repo: Path, path: str) -> list[tuple[str, str]]:
    """(commit, path at that commit) for every commit that changed the file, oldest first, through renames."""
    log = git(repo, "log", "--follow", "--format=%x00%H", "--name-status", "--", path).decode(errors="replace")
    found: list[tuple[str, str]] = []
    for record in log.split("\x00")[1:]:
        commit, _, rest = record.partition("\n")
        status = next((line.split("\t") for line in rest.splitlines() if "\t" in line), None)
        if status is None or status[0].startswith("D"):  # a merge without a diff, or the file's deletion
            continue
        found.append((commit.strip(), status[-1]))
    found.reverse()
    return found


def blobs(repo: Path, specs: list[str]) -> list[bytes | None]:
    """The contents of COMMIT:PATH blobs in one `git cat-file --batch` (None for a missing one)."""
    out = git(repo, "cat-file", "--batch", data="".join(f"{spec}\n" for spec in specs).encode())
    contents: list[bytes | None] = []
    pos = 0
    for _ in specs:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) < 3 or header[1] != b"blob":
            contents.append(None)
            continue
        size = int(header[2])
        contents.append(out[pos : pos + size])
        pos += size + 1
    return contents


def load(repo: Path, path: str, max_bytes: int, max_revisions: int | None = None) -> Document:
    """The file's revisions as texts: binary, non-UTF-8 and oversized ones skipped (and counted), as are
    revisions that leave the text as it was (a rename, a mode change: no new version)."""
    document = Document(path, [])
    history = revisions(repo, path)
    for raw in blobs(repo, [f"{commit}:{old_path}" for commit, old_path in history]):
        if raw is None:
            document.skipped["not readable from git"] += 1
        elif b"\x00" in raw:
            document.skipped["binary"] += 1
        elif len(raw) > max_bytes:
            document.skipped[f"over the {max_bytes:,}-byte file limit"] += 1
        else:
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                document.skipped["not UTF-8"] += 1
                continue
            if document.texts and document.texts[-1] == text:
                document.skipped["same text as the revision before"] += 1
            elif max_revisions is None or len(document.texts) < max_revisions:
                document.texts.append(text)
            else:
                document.skipped[f"beyond --max-revisions {max_revisions}"] += 1
    return document


def most_revised(repo: Path, top: int, min_revisions: int, max_bytes: int, max_revisions: int | None) -> list[Document]:
    """The `top` text files at HEAD with the most revisions (at least min_revisions)."""
    at_head = set(git(repo, "ls-tree", "-r", "-z", "--name-only", "HEAD").decode(errors="replace").split("\x00"))
    names = git(repo, "log", "--format=", "--name-only", "HEAD").decode(errors="replace").splitlines()
    counts = Counter(name for name in names if name in at_head)
    documents: list[Document] = []
    for path, count in counts.most_common():
        if len(documents) == top or count < min_revisions:
            break
        head = blobs(repo, [f"HEAD:{path}"])[0]
        if head is None or b"\x00" in head or not is_utf8(head):
            continue
        document = load(repo, path, max_bytes, max_revisions)
        if len(document.texts) >= min_revisions:
            documents.append(document)
    return documents


def is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
