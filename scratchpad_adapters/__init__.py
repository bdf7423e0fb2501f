"""Adapters for scratchpad_core: SQL storage (SQLite, Postgres), the Anthropic summarizer, bounded regex."""

from .factory import Backend, default_database_path, open_backend, open_store, sqlite_url

__all__ = ["Backend", "default_database_path", "open_backend", "open_store", "sqlite_url"]
