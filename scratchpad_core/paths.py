"""Path and agent_id rules. Each broken rule has its own message."""

from __future__ import annotations

import re

from .errors import InvalidAgentId, InvalidInput, InvalidPath

MAX_PATH_CHARS = 255
MAX_AGENT_ID_CHARS = 128

_PATH_CHARS = re.compile(r"[a-zA-Z0-9/_.-]+")
_PREFIX_CHARS = re.compile(r"[a-zA-Z0-9/_.-]*")
NO_PATH = "/"  # paths never start with '/', so no path has this prefix
_AGENT_CHARS = re.compile(r"[a-zA-Z0-9_-]+")


def check_agent_id(agent_id: object) -> str:
    if not isinstance(agent_id, str) or agent_id == "":
        raise InvalidAgentId.said("Invalid {argument}: it must be a non-empty string.", argument="agent_id")
    if len(agent_id) > MAX_AGENT_ID_CHARS:
        raise InvalidAgentId.said(
            "Invalid {argument}: at most {most} characters are allowed (got {got}).",
            argument="agent_id", most=MAX_AGENT_ID_CHARS, got=len(agent_id),
        )  # fmt: skip
    if not _AGENT_CHARS.fullmatch(agent_id):
        raise InvalidAgentId.said(
            "Invalid {argument}: only the characters [a-zA-Z0-9_-] are allowed.", argument="agent_id"
        )
    return agent_id


def check_path(path: object) -> str:
    if not isinstance(path, str) or path == "":
        raise InvalidPath("Invalid path: it must be a non-empty string.")
    if len(path) > MAX_PATH_CHARS:
        raise InvalidPath(f"Invalid path: at most {MAX_PATH_CHARS} characters are allowed (got {len(path)}).")
    if path.startswith("/"):
        raise InvalidPath("Invalid path: a leading '/' is not allowed; use a relative path such as 'notes/plan.md'.")
    if ".." in path:
        raise InvalidPath("Invalid path: '..' sequences are not allowed.")
    if not _PATH_CHARS.fullmatch(path):
        raise InvalidPath("Invalid path: only the characters [a-zA-Z0-9/_.-] are allowed (no spaces).")
    return path


def check_prefix(prefix: str | None) -> str:
    """A listing prefix: literal, case-sensitive, may be empty.

    A prefix with characters no path has ('%', '*', a space...) is still literal: it matches nothing, and
    becomes NO_PATH, the one prefix that the storage already knows matches nothing.
    """
    if prefix is None:
        return ""
    if len(prefix) > MAX_PATH_CHARS:
        raise InvalidInput.said(
            "Invalid {argument}: at most {most} characters are allowed (got {got}).",
            argument="prefix", most=MAX_PATH_CHARS, got=len(prefix),
        )  # fmt: skip
    return prefix if _PREFIX_CHARS.fullmatch(prefix) else NO_PATH


def check_cursor(cursor: str | None) -> str | None:
    """A listing cursor: the next_cursor of the previous page, which is a path."""
    if cursor is None or cursor == "":
        return None
    try:
        return check_path(cursor)
    except InvalidPath:
        raise InvalidInput.said("Invalid {argument}: {do.continue_listing}.", argument="cursor") from None
