"""The repositories the unit of work hands out (files, logs, requests, retention, summaries, usage, keys)
and the queries and upserts they share. They use connection and schema.
"""
