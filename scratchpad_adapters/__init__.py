"""Adapters for scratchpad_core: SQL storage (SQLite, Postgres), the Anthropic summarizer, bounded regex."""

from .factory import default_database_path, open_store, sqlite_url

__all__ = ["default_database_path", "open_store", "sqlite_url"]
