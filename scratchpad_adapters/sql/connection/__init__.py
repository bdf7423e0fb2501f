"""Connections to SQLite and PostgreSQL: engines and their URLs, running statements, read-only opening,
the held connection of `:memory:`, writer turns, the call watchdog and the translation of driver errors.
Uses only the standard library, SQLAlchemy and scratchpad_adapters.timeouts.
"""
