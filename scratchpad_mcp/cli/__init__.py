"""The command line: serve, db, export, import, keys, web, inspection; uses server, settings, adapters, core."""
