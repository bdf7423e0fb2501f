"""`db check`: the rules a consistent database keeps (counts, content, retention, search index), each a query
that names what breaks it. Uses connection, schema and search.
"""
