"""Redaction: removing a secret from every version and entry that holds it (the use case) and finding them
(scan). The rules are in scratchpad_core.redaction.rules.
"""
