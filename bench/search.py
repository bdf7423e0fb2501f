"""Finding (issue 22): word search on LoCoMo's conversations against bm25s, and the search it replaces.

    uv run --group bench python -m bench.search [FOLDER] [--backends sqlite,postgres,memory] [--postgres URL]

LoCoMo (snap-research/locomo, the 10 long conversations of locomo10_v2; FOLDER defaults to where they were
unpacked, /work/data/locomo/data/multimodal_dialog/locomo10_v2; nothing of it is committed here). Each
conversation is one agent: its sessions as files (files/session-NN.md, a line per turn, "Speaker: text") and as
logs (logs/session-NN, an entry per turn). Each question that has evidence is asked verbatim through the library's
search_files (the default word search), once with prefix files/ and once with prefix logs/; a hit is a returned
passage (or entry) that holds an evidence turn. Beside it, in the same run: bm25s (Snowball English stemming via
PyStemmer, English stopwords, its defaults otherwise) over the same lines, its top 10; and the search this issue
replaces, as an agent used it: the question as a literal string, and the question's rarest word (today's default
of 20 lines a reply). Bytes are UTF-8: our whole reply's compact JSON (as the MCP server sends it) against the
text of bm25s's 10 lines. Figures only, no asserts; they go to the docs (docs/).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import create_database, drop_database, markdown_table
from scratchpad_adapters import open_store
from scratchpad_core.results import SearchResult
from scratchpad_core.search.words import COMMON_WORDS
from scratchpad_core.service import Scratchpad

DEFAULT_FOLDER = Path("/work/data/locomo/data/multimodal_dialog/locomo10_v2")
DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
TODAY_DEFAULT = 20  # what today's search returned unless asked


@dataclass
class Conversation:
    agent: str
    lines: list[tuple[str, int, str, str]]  # (session path stem, turn number in session, dia_id, line)
    questions: list[tuple[str, set[str]]]  # (question, evidence dia_ids)

    def sessions(self) -> dict[str, list[tuple[str, str]]]:
        out: dict[str, list[tuple[str, str]]] = {}
        for stem, _, dia, line in self.lines:
            out.setdefault(stem, []).append((dia, line))
        return out


def load(folder: Path) -> list[Conversation]:
    conversations = []
    for file in sorted(folder.glob("*.json")):
        data = json.loads(file.read_text(encoding="utf-8"))
        sessions = sorted(
            (int(key.removeprefix("session_")), turns)
            for key, turns in data.items()
            if re.fullmatch(r"session_\d+", key) and isinstance(turns, list)
        )
        lines = [
            (f"session-{number:02d}", index, turn["dia_id"], f"{turn['speaker']}: {' '.join(turn['text'].split())}")
            for number, turns in sessions
            for index, turn in enumerate(turns, 1)
        ]
        questions = [(str(q["question"]), set(q["evidence"])) for q in data["qa"] if q.get("evidence")]
        conversations.append(Conversation(f"locomo-{file.stem}", lines, questions))
    return conversations


def plain(value: Any) -> Any:
    """A result as the MCP server's reply holds it: dataclasses as dicts, fields that are None left out."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)
                if getattr(value, f.name) is not None}  # fmt: skip
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def reply_bytes(result: SearchResult) -> int:
    return len(json.dumps(plain(result), ensure_ascii=False, separators=(",", ":")).encode())


@dataclass
class Tally:
    hits: Counter[str] = field(default_factory=Counter)  # "@5", "@10"
    questions: int = 0
    bytes: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def recall(self, at: str) -> str:
        return f"{self.hits[at] / self.questions:.3f}" if self.questions else "-"

    def per_reply(self, at: str) -> str:
        return f"{self.bytes[at] / self.questions:,.0f}" if self.questions else "-"


def fill(store: Scratchpad, conversation: Conversation) -> None:
    for stem, turns in conversation.sessions().items():
        store.write_file(conversation.agent, f"files/{stem}.md", "\n".join(line for _, line in turns) + "\n")
        for _, line in turns:
            store.append_log(conversation.agent, f"logs/{stem}", line)


def hit_of(conversation: Conversation) -> dict[tuple[str, int], str]:
    """(path, line or entry) -> dia_id, for files and logs alike."""
    out = {}
    for stem, index, dia, _ in conversation.lines:
        out[f"files/{stem}.md", index] = dia
        out[f"logs/{stem}", index] = dia
    return out


def found(result: SearchResult, where: dict[tuple[str, int], str], first: int) -> set[str]:
    dias: set[str] = set()
    for match in result.matches[:first]:
        if match.entry is not None:
            dias.add(where.get((match.path, match.entry), ""))
        elif match.line is not None:
            for line in range(match.line, (match.end_line or match.line) + 1):
                dias.add(where.get((match.path, line), ""))
    return dias


def ours(store: Scratchpad, conversations: list[Conversation], prefix: str) -> Tally:
    tally = Tally()
    for conversation in conversations:
        where = hit_of(conversation)
        for question, evidence in conversation.questions:
            started = time.perf_counter()
            ten = store.search_files(conversation.agent, question, prefix, max_results=10)
            five = store.search_files(conversation.agent, question, prefix, max_results=5)
            tally.seconds += time.perf_counter() - started
            tally.questions += 1
            tally.hits["@5"] += bool(found(ten, where, 5) & evidence)
            tally.hits["@10"] += bool(found(ten, where, 10) & evidence)
            tally.bytes["@5"] += reply_bytes(five)
            tally.bytes["@10"] += reply_bytes(ten)
    return tally


def today(store: Scratchpad, conversations: list[Conversation]) -> tuple[Tally, Tally]:
    """The search this issue replaces (exact=True, today's 20 lines): the question, and its rarest word."""
    literal, rarest = Tally(), Tally()
    common = set(COMMON_WORDS)
    for conversation in conversations:
        where = hit_of(conversation)
        frequency = Counter(w for _, _, _, line in conversation.lines for w in set(re.findall(r"\w+", line.lower())))
        for question, evidence in conversation.questions:
            words = [w for w in re.findall(r"\w+", question.lower()) if w not in common and len(w) > 2]
            for tally, query in (
                (literal, question),
                (rarest, min(words, key=lambda w: frequency[w]) if words else ""),
            ):
                tally.questions += 1
                if not query:
                    continue
                result = store.search_files(conversation.agent, query, "files/", max_results=TODAY_DEFAULT, exact=True)
                tally.hits["@20"] += bool(found(result, where, TODAY_DEFAULT) & evidence)
                tally.bytes["@20"] += reply_bytes(result)
    return literal, rarest


def bm25s_lines(conversations: list[Conversation]) -> Tally | None:
    try:
        import bm25s
        import Stemmer
    except ImportError:
        print("bm25s is not installed: run with `uv run --group bench ...` for its column", file=sys.stderr)
        return None
    stemmer = Stemmer.Stemmer("english")
    tally = Tally()
    for conversation in conversations:
        texts = [line for _, _, _, line in conversation.lines]
        dias = [dia for _, _, dia, _ in conversation.lines]
        retriever = bm25s.BM25()
        retriever.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False),
                        show_progress=False)  # fmt: skip
        for question, evidence in conversation.questions:
            started = time.perf_counter()
            tokens = bm25s.tokenize([question], stopwords="en", stemmer=stemmer, show_progress=False)
            k = min(10, len(texts))
            docs, _ = retriever.retrieve(tokens, k=k, show_progress=False) if tokens.vocab else ([[]], None)
            tally.seconds += time.perf_counter() - started
            top = [int(d) for d in docs[0]]
            tally.questions += 1
            tally.hits["@5"] += bool({dias[d] for d in top[:5]} & evidence)
            tally.hits["@10"] += bool({dias[d] for d in top[:10]} & evidence)
            tally.bytes["@10"] += len("\n".join(texts[d] for d in top).encode())
    return tally


@contextmanager
def backend(name: str, postgres: str) -> Iterator[str]:
    if name == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            yield f"sqlite:///{folder}/bench.db"
    elif name == "memory":
        yield "memory://"
    else:
        url = create_database(postgres, "bench_search")
        try:
            yield url
        finally:
            drop_database(postgres, url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT_FOLDER)
    parser.add_argument("--backends", default="sqlite,postgres,memory")
    parser.add_argument("--postgres", default=os.environ.get("SCRATCHPAD_TEST_POSTGRES_URL", DEFAULT_POSTGRES))
    parser.add_argument("--conversations", type=int, default=None, help="only the first N")
    args = parser.parse_args()
    conversations = load(args.folder)[: args.conversations]
    questions = sum(len(c.questions) for c in conversations)
    print(f"LoCoMo: {len(conversations)} conversations, {sum(len(c.lines) for c in conversations):,} turns, "
          f"{questions:,} questions with evidence", file=sys.stderr)  # fmt: skip
    rows: list[list[str]] = []
    baseline: tuple[Tally, Tally] | None = None
    for name in args.backends.split(","):
        with backend(name, args.postgres) as url:
            store = open_store(url)
            try:
                started = time.perf_counter()
                for conversation in conversations:
                    fill(store, conversation)
                print(f"{name}: stored in {time.perf_counter() - started:.1f} s", file=sys.stderr)
                for kind in ("files", "logs"):
                    t = ours(store, conversations, f"{kind}/")
                    rows.append([f"ours, {name}", kind, t.recall("@5"), t.recall("@10"), t.per_reply("@5"),
                                 t.per_reply("@10"), f"{t.seconds / t.questions / 2 * 1000:.1f}"])  # fmt: skip
                if baseline is None:
                    baseline = today(store, conversations)
            finally:
                store.close()
    reference = bm25s_lines(conversations)
    if reference is not None:
        rows.append(["bm25s, lines", "lines", reference.recall("@5"), reference.recall("@10"), "-",
                     reference.per_reply("@10"), f"{reference.seconds / reference.questions * 1000:.1f}"])  # fmt: skip
    if baseline is not None:
        for label, t in zip(("today: the question, exact", "today: its rarest word, exact"), baseline, strict=True):
            rows.append([label, "files", "-", "-", "-", f"{t.per_reply('@20')} (20 lines)",
                         "-"])  # fmt: skip
            rows[-1][3] = f"{t.recall('@20')} (@20)"
    print(markdown_table(["search", "over", "recall@5", "recall@10", "B/reply top 5", "B/reply top 10", "ms/query"],
                         rows, right=[2, 3, 4, 5, 6]))  # fmt: skip


if __name__ == "__main__":
    main()
