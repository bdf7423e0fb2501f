"""Moving data out and in: export to a file, import from one (with its record checks), and scrubbing a
database file of deleted content. Uses connection, schema, repositories and search.
"""
