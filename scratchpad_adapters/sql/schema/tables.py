"""The schema as SQLAlchemy Core tables. Alembic migrations create it; this module describes it.

Paths sort and compare byte-wise on every backend (COLLATE "C" on Postgres; SQLite's
default is already binary), so listings, cursors and prefixes agree everywhere.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import TSVECTOR

from scratchpad_core.access.keys import MAX_LABEL_CHARS
from scratchpad_core.actors import MAX_ACTOR_CHARS, UNKNOWN
from scratchpad_core.paths import MAX_AGENT_ID_CHARS, MAX_PATH_CHARS
from scratchpad_core.retries import MAX_REQUEST_ID_CHARS

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING)

AgentId = String(MAX_AGENT_ID_CHARS)
Path = String(MAX_PATH_CHARS).with_variant(String(MAX_PATH_CHARS, collation="C"), "postgresql")
Id = BigInteger().with_variant(Integer(), "sqlite")  # SQLite auto-increments only INTEGER PRIMARY KEY
Millis = BigInteger
Actor = String(MAX_ACTOR_CHARS)
TOMBSTONE = text("current_version < 0")  # a deleted file's row (its path remembers its last number)
KeyId = String(32)
# A column that may hold what an agent stored (content, a reply, a summary, index terms): the tables where a removed
# text may stay in old row versions, which `db scrub` (scrub.py) names for PostgreSQL's VACUUM FULL.
CONTENT = {"content": True}
# What the search index has not caught up with: a partial index each, so that finding an agent's backlog costs
# the backlog, not the namespace (migration 0013).
FILES_PENDING = text("indexed_version <> CASE WHEN current_version > 0 THEN current_version ELSE 0 END")
LOGS_PENDING = text("(indexed_entries <> entries OR (entries > 0 AND indexed_last <> last_entry_id))")

agents = Table(
    "agents",
    metadata,
    Column("agent_id", AgentId, primary_key=True),
    Column("files", Integer, nullable=False),
    Column("logs", Integer, nullable=False),
    Column("log_entries", Integer, nullable=False),
    Column("bytes", BigInteger, nullable=False),
    Column("operations", BigInteger, nullable=False),
    Column("bytes_saved", BigInteger, nullable=False),
    # The agent's last change number (read_changes; migration 0014): a write bumps it first, under this row's lock
    Column("changes", BigInteger, nullable=False, server_default="0"),
)

files = Table(
    "files",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("agent_id", AgentId, nullable=False),
    Column("path", Path, nullable=False),
    Column("current_version", Integer, nullable=False),
    Column("bytes", Integer, nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("created_at", Millis, nullable=False),
    Column("updated_at", Millis, nullable=False),
    # The version the word-search index reflects (0: none): a write changes current_version only, so the file
    # is pending until a search or the background pass indexes it (scratchpad_core.usecases.search.indexer).
    Column("indexed_version", Integer, nullable=False, server_default="0"),
    # Change numbers (agents.changes; migration 0014): the last change, the one that began the path's current
    # life (a creation, or a move here from moved_from), and the last redaction.
    Column("changed", BigInteger, nullable=False, server_default="0"),
    Column("born", BigInteger, nullable=False, server_default="0"),
    Column("redacted", BigInteger, nullable=False, server_default="0"),
    Column("moved_from", Path, nullable=True),
    UniqueConstraint("agent_id", "path", name="uq_files_agent_id_path"),
    Index("ix_files_agent_id_changed", "agent_id", "changed"),
    Index("ix_files_agent_id_updated_at", "agent_id", "updated_at"),  # expired files (migration 0012)
    # Deleted paths (tombstones: minus the last version), for forgetting the oldest without a scan of the live files
    Index("ix_files_tombstones", "agent_id", "updated_at", sqlite_where=TOMBSTONE, postgresql_where=TOMBSTONE),
    Index("ix_files_unindexed", "agent_id", sqlite_where=FILES_PENDING, postgresql_where=FILES_PENDING),
)

file_versions = Table(
    "file_versions",
    metadata,
    Column("file_id", Id, ForeignKey("files.id", ondelete="CASCADE"), primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("content", Text, nullable=False, info=CONTENT),
    Column("bytes", Integer, nullable=False),
    Column("lines", Integer, nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("created_at", Millis, nullable=False),
    Column("actor", Actor, nullable=False, server_default=UNKNOWN),  # who made it (scratchpad_core.actors)
    Column("change", BigInteger, nullable=False, server_default="0"),  # the change that made it
)

logs = Table(
    "logs",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("agent_id", AgentId, nullable=False),
    Column("path", Path, nullable=False),
    Column("last_entry_id", Integer, nullable=False),
    Column("entries", Integer, nullable=False),
    Column("bytes", BigInteger, nullable=False),
    Column("created_at", Millis, nullable=False),
    Column("updated_at", Millis, nullable=False),
    # The last entry and the number of entries the index holds: pending while they are not the live ones.
    Column("indexed_last", Integer, nullable=False, server_default="0"),
    Column("indexed_entries", Integer, nullable=False, server_default="0"),
    # Change numbers: the last change, the one that began the log's current life, the newest retention dropped
    Column("changed", BigInteger, nullable=False, server_default="0"),
    Column("born", BigInteger, nullable=False, server_default="0"),
    Column("dropped", BigInteger, nullable=False, server_default="0"),
    UniqueConstraint("agent_id", "path", name="uq_logs_agent_id_path"),
    Index("ix_logs_agent_id_changed", "agent_id", "changed"),
    Index("ix_logs_unindexed", "agent_id", sqlite_where=LOGS_PENDING, postgresql_where=LOGS_PENDING),
)

log_entries = Table(
    "log_entries",
    metadata,
    Column("log_id", Id, ForeignKey("logs.id", ondelete="CASCADE"), primary_key=True),
    Column("entry_id", Integer, primary_key=True),
    Column("entry", Text, nullable=False, info=CONTENT),
    Column("bytes", Integer, nullable=False),
    Column("created_at", Millis, nullable=False),
    Column("actor", Actor, nullable=False, server_default=UNKNOWN),  # who appended it
    Column("change", BigInteger, nullable=False, server_default="0"),  # the change that appended (or redacted) it
)

summaries = Table(
    "summaries",
    metadata,
    Column("file_id", Id, ForeignKey("files.id", ondelete="CASCADE"), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("summary", Text, nullable=False, info=CONTENT),
    Column("model", String(100), nullable=False),
    Column("created_at", Millis, nullable=False),
)

# The processes that listen for change notices (PostgreSQL; scratchpad_adapters.changes.postgres), each seen
# within the last 90 s: the files trigger notifies only while one is (a NOTIFY serializes commits; migration 0005).
change_listeners = Table(
    "change_listeners",
    metadata,
    Column("listener_id", String(32), primary_key=True),
    Column("seen_at", Millis, nullable=False),
)

__all__ = [
    "agents",
    "api_keys",
    "change_listeners",
    "file_versions",
    "files",
    "key_grants",
    "log_entries",
    "logs",
    "metadata",
    "rate_limits",
    "request_ids",
    "retention_rules",
    "search_agents",
    "search_files",
    "search_logs",
    "search_rows",
    "summaries",
]

api_keys = Table(
    "api_keys",
    metadata,
    Column("id", KeyId, primary_key=True),
    Column("agent_id", AgentId, nullable=True),  # NULL: an admin key (the web view's, for every agent)
    Column("key_hash", String(64), nullable=False, unique=True),
    Column("label", String(MAX_LABEL_CHARS), nullable=False),
    Column("read_only", Boolean, nullable=False),
    Column("created_at", Millis, nullable=False),
    Column("last_used_at", Millis, nullable=True),
    Column("revoked_at", Millis, nullable=True),
)

# A key's grants on other agents' namespaces (scratchpad_core.access.grants; migration 0009): read or write.
key_grants = Table(
    "key_grants",
    metadata,
    Column("key_id", KeyId, ForeignKey("api_keys.id", ondelete="CASCADE"), primary_key=True),
    Column("agent_id", AgentId, primary_key=True),
    Column("access", String(8), nullable=False),
)

rate_limits = Table(
    "rate_limits",
    metadata,
    Column("agent_id", AgentId, primary_key=True),
    Column("tokens", Float, nullable=False),
    Column("updated_at", Millis, nullable=False),
)

# A writing call's request_id and its result (scratchpad_core.retries); seq numbers an agent's ids in the order
# they came (the newest's + 1; two concurrent calls may share one), so the oldest are found by the index.
request_ids = Table(
    "request_ids",
    metadata,
    Column("agent_id", AgentId, primary_key=True),
    Column("caller", KeyId, primary_key=True, server_default=""),  # the key that sent it; "": stdio, the library
    Column("request_id", String(MAX_REQUEST_ID_CHARS), primary_key=True),
    Column("seq", BigInteger, nullable=False),
    Column("operation", String(32), nullable=False),
    Column("fingerprint", String(64), nullable=False),
    Column("result", Text, nullable=False, info=CONTENT),
    Column("created_at", Millis, nullable=False),
    Index("ix_request_ids_agent_id_seq", "agent_id", "seq"),
)

# Word search (scratchpad_core.search.indexing; migration 0008). Each agent's index has a key (its id here) that
# scopes its terms ("<id>_<term>"), and its Statistics, changed with its rows. A file's index record says which
# version it reflects and lists its rows (slots: a blob of int64s); a log's, the entry ids indexed. A row is a
# document: its text, its terms (a tsvector on PostgreSQL, under a GIN index; on SQLite a space-separated
# string that the FTS5 table search_fts indexes, kept by triggers) and how many terms it has.
search_agents = Table(
    "search_agents",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("agent_id", AgentId, nullable=False, unique=True),
    Column("documents", BigInteger, nullable=False),
    Column("length", BigInteger, nullable=False),
    Column("common", Text, nullable=False),  # JSON: {term: documents} of the common words
)

search_files = Table(
    "search_files",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),  # the owner of the file's rows: stays on a rename
    Column("file_id", Id, nullable=False, unique=True),
    Column("agent_id", AgentId, nullable=False, index=True),
    Column("version", Integer, nullable=False),
    Column("slots", LargeBinary, nullable=False),
)

search_logs = Table(
    "search_logs",
    metadata,
    Column("log_id", Id, primary_key=True, autoincrement=False),
    Column("agent_id", AgentId, nullable=False, index=True),
    Column("first_entry", Integer, nullable=False),
    Column("last_entry", Integer, nullable=False),
)

search_rows = Table(
    "search_rows",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("owner", BigInteger, nullable=False),  # a search_files id, or minus a log's id
    Column("entry", Integer, nullable=False),  # the log entry's id; 0 for a file's line
    Column("text", Text, nullable=False, info=CONTENT),
    Column("terms", Text().with_variant(TSVECTOR(), "postgresql"), nullable=False, info=CONTENT),
    Column("length", Integer, nullable=False),
    Index("ix_search_rows_owner_entry", "owner", "entry"),
)

# Retention rules (scratchpad_core.retention.rules; migration 0010): an agent's logs or files under a prefix, kept by
# count (keep_entries) and/or age (max_age, seconds). Read on each append, so a change applies from the next call.
retention_rules = Table(
    "retention_rules",
    metadata,
    Column("agent_id", AgentId, primary_key=True),
    Column("kind", String(8), primary_key=True),
    Column("prefix", Path, primary_key=True),
    Column("keep_entries", Integer, nullable=True),
    Column("max_age", BigInteger, nullable=True),
    Column("updated_at", Millis, nullable=False),
)
