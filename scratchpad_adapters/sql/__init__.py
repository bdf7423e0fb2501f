"""SQL storage (SQLite and PostgreSQL), in rooms that import only downwards (pyproject's import-linter contract):
the unit of work (unit_of_work.py), `db check` (integrity/) and export, import and scrub (transfer/) use the word
index (search/), which uses the repositories (repositories/), which use the schema (schema/) and the connections
(connection/). Outside the adapters, the command line reaches these rooms only through scratchpad_adapters.admin.
"""
