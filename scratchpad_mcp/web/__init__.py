"""The read-only web view: agents, their files and logs, versions and diffs, search, in a browser."""
