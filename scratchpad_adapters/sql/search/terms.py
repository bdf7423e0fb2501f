"""How each database holds and finds the index's terms: what differs between SQLite FTS5 and PostgreSQL.

A term is scoped to its agent by the agent's key ("12_deploy"), so that a lookup reads one agent's postings
however many agents share the table (FTS5 filtering on an agent column would read every agent's). Terms are
built by our analyzer (scratchpad_core.search.words), never by the engine's tokenizer or query parser, and looked up
one at a time by value: no text of the user's reaches FTS5 MATCH or to_tsquery's parser.

- SQLite: search_rows.terms is the terms separated by spaces; the FTS5 table search_fts (external content:
  search_rows, kept by triggers; the `ascii` tokenizer with '_' a token character splits exactly on the
  spaces) indexes them, and its fts5vocab tables give each term's documents and counts.
- PostgreSQL: search_rows.terms is a tsvector built from the terms (a term's positions 1..tf, at most MAX_TF),
  under a GIN index; a lookup is `terms @@ 'term'::tsquery`, and unnest(terms) gives the count.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Insert, Update, bindparam, cast, func, insert, select, text, update
from sqlalchemy.dialects.postgresql import TSQUERY, TSVECTOR

from scratchpad_core.search.indexing import MAX_TF

from ..connection.execution import run
from ..schema.tables import search_rows

sr = search_rows.c
_LEXEME = re.compile(r"'([^']*)'(?::([0-9,]+))?")


class SqliteTerms:
    insert_rows: Insert = insert(search_rows)
    update_terms: Update = (  # a row's terms and length anew (FTS5 follows through the trigger on updates)
        update(search_rows)
        .where(sr.id == bindparam("row_id"))
        .values(terms=bindparam("terms"), length=bindparam("length"))
    )
    _MAX_ID = select(func.max(sr.id))  # a bare max(id): SQLite reads it from the primary key's end
    _POSTINGS = text(
        "SELECT v.doc, r.owner, r.entry, count(*), r.length FROM search_vocab AS v "
        "JOIN search_rows AS r ON r.id = v.doc WHERE v.term = :term GROUP BY v.doc"
    )
    _FREQUENCY = text("SELECT doc FROM search_vocab_rows WHERE term = :term")

    @staticmethod
    def scoped(key: int, term: str) -> str:
        return f"{key}_{term}"

    def encode(self, key: int, terms: Sequence[str]) -> str:
        return " ".join(f"{key}_{term}" for term in terms)

    def decode(self, stored: Any) -> list[str]:
        return [token.partition("_")[2] for token in str(stored).split()]

    def new_ids(self, connection: Connection, count: int) -> list[int]:
        # Writers take turns on a SQLite file (BEGIN IMMEDIATE): no one else adds a row before this commits.
        first = int(run(connection, self._MAX_ID, {}).scalar() or 0) + 1
        return list(range(first, first + count))

    def frequency(self, connection: Connection, term: str) -> int:
        return int(run(connection, self._FREQUENCY, {"term": term}).scalar() or 0)

    def postings(self, connection: Connection, term: str) -> Sequence[Any]:
        return run(connection, self._POSTINGS, {"term": term}).values


class PostgresTerms:
    insert_rows: Insert = insert(search_rows).values(terms=cast(bindparam("terms"), TSVECTOR))
    update_terms: Update = (
        update(search_rows)
        .where(sr.id == bindparam("row_id"))
        .values(terms=cast(bindparam("terms"), TSVECTOR), length=bindparam("length"))
    )
    _NEW_IDS = text("SELECT nextval('search_rows_id_seq') FROM generate_series(1, :count)")
    _QUERY = cast(bindparam("term"), TSQUERY)
    _POSTINGS = select(
        sr.id, sr.owner, sr.entry,
        text("(SELECT coalesce(array_length(u.positions, 1), 1) FROM unnest(search_rows.terms) AS u "
             "WHERE u.lexeme = :lexeme)"),
        sr.length,
    ).where(sr.terms.op("@@")(_QUERY))  # fmt: skip
    _FREQUENCY = select(text("count(*)")).select_from(search_rows).where(sr.terms.op("@@")(_QUERY))

    @staticmethod
    def scoped(key: int, term: str) -> str:
        return f"{key}_{term}"

    def encode(self, key: int, terms: Sequence[str]) -> str:
        counts = Counter(terms)
        return " ".join(
            f"'{key}_{term}':" + ",".join(map(str, range(1, min(n, MAX_TF) + 1))) for term, n in counts.items()
        )

    def decode(self, stored: Any) -> list[str]:
        """The terms, each as often as its positions say (at most MAX_TF), in the tsvector's order."""
        return [
            lexeme.partition("_")[2]
            for lexeme, positions in _LEXEME.findall(str(stored))
            for _ in range(positions.count(",") + 1 if positions else 1)
        ]

    def new_ids(self, connection: Connection, count: int) -> list[int]:
        return [int(i) for i in run(connection, self._NEW_IDS, {"count": count}).scalars()]

    def frequency(self, connection: Connection, term: str) -> int:
        return int(run(connection, self._FREQUENCY, {"term": f"'{term}'"}, planned=False).scalar() or 0)

    def postings(self, connection: Connection, term: str) -> Sequence[Any]:
        return run(connection, self._POSTINGS, {"term": f"'{term}'", "lexeme": term}, planned=False).values


Terms = SqliteTerms | PostgresTerms


@functools.cache
def _for(dialect: str) -> Terms:
    return PostgresTerms() if dialect == "postgresql" else SqliteTerms()


def of(connection: Connection) -> Terms:
    return _for(connection.dialect.name)


SQLITE_SCHEMA = (
    "CREATE VIRTUAL TABLE search_fts USING fts5(terms, content='search_rows', content_rowid='id', columnsize=0, "
    "tokenize=\"ascii tokenchars '_'\")",
    "CREATE VIRTUAL TABLE search_vocab USING fts5vocab(search_fts, 'instance')",
    "CREATE VIRTUAL TABLE search_vocab_rows USING fts5vocab(search_fts, 'row')",
    "CREATE TRIGGER search_rows_added AFTER INSERT ON search_rows BEGIN "
    "INSERT INTO search_fts(rowid, terms) VALUES (new.id, new.terms); END",
    "CREATE TRIGGER search_rows_removed AFTER DELETE ON search_rows BEGIN "
    "INSERT INTO search_fts(search_fts, rowid, terms) VALUES ('delete', old.id, old.terms); END",
    "CREATE TRIGGER search_rows_changed AFTER UPDATE ON search_rows BEGIN "
    "INSERT INTO search_fts(search_fts, rowid, terms) VALUES ('delete', old.id, old.terms); "
    "INSERT INTO search_fts(rowid, terms) VALUES (new.id, new.terms); END",
)
SQLITE_DROP = (
    "DROP TRIGGER IF EXISTS search_rows_changed",
    "DROP TRIGGER IF EXISTS search_rows_removed",
    "DROP TRIGGER IF EXISTS search_rows_added",
    "DROP TABLE IF EXISTS search_vocab_rows",
    "DROP TABLE IF EXISTS search_vocab",
    "DROP TABLE IF EXISTS search_fts",
)
VOCAB = "search_vocab_rows"  # each term of FTS5's index: the rows that hold it, its occurrences
ENGINE_TABLES = ("search_fts", "search_vocab")  # SQLite's FTS5 tables (and their shadow tables) start so
GIN_INDEX = "ix_search_rows_terms"


def is_engine_table(name: str | None) -> bool:
    """A table the database's full-text engine made (FTS5's), which tables.py does not describe."""
    return name is not None and name.startswith(ENGINE_TABLES)


def is_engine_object(name: str | None, kind: str) -> bool:
    """A table or index of the full-text engine (FTS5's tables, the GIN index), which tables.py does not describe."""
    return (kind == "table" and is_engine_table(name)) or (kind == "index" and name == GIN_INDEX)


POSTGRES_SCHEMA = (f"CREATE INDEX {GIN_INDEX} ON search_rows USING gin (terms)",)
