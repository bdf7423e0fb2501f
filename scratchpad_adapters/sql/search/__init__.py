"""The word index in SQL: its terms, batched writes, reads, building it for a store and re-terming it.
Uses connection, schema and the log repository.
"""
