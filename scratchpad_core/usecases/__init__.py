"""The use cases, one module a group, each run in one unit of work through the ports: reads, writes, logs,
renames, summaries, usage, catalog and retention; expiry and aging (what a reader still sees); search/ and
redaction/ (a feature's several use cases). The rules they apply are in the core's modules and rule packages.
"""
