"""Retention's rules: what a rule is, which rule covers a path, when a version or an entry has aged out, and
what a change of rules means. The use case is scratchpad_core.usecases.retention.
"""
