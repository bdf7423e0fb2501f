"""The read-only web view (agents, files, logs, versions, diffs, search); uses settings, adapters and core."""
