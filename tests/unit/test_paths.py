from __future__ import annotations

import pytest

from scratchpad_core.errors import InvalidAgentId, InvalidInput, InvalidPath
from scratchpad_core.paths import NO_PATH, check_agent_id, check_cursor, check_path, check_prefix

PATH_CHARS_RULE = "only the characters [a-zA-Z0-9/_.-] are allowed"


@pytest.mark.parametrize("path", ["a", "notes/plan.md", "A-b_c.9", "dir/sub/", ".hidden", "a/./b", "x" * 255])
def test_valid_paths_are_returned_unchanged(path: str) -> None:
    assert check_path(path) == path


@pytest.mark.parametrize(
    ("path", "rule"),
    [
        ("", "it must be a non-empty string."),
        (None, "it must be a non-empty string."),
        (7, "it must be a non-empty string."),
        ("x" * 256, "at most 255 characters are allowed (got 256)."),
        ("/etc/passwd", "a leading '/' is not allowed"),
        ("/", "a leading '/' is not allowed"),
        ("..", "'..' sequences are not allowed."),
        ("a/../b", "'..' sequences are not allowed."),
        ("a..b", "'..' sequences are not allowed."),
        ("my notes.md", PATH_CHARS_RULE),
        (" ", PATH_CHARS_RULE),
        ("café.md", PATH_CHARS_RULE),
        ("日本", PATH_CHARS_RULE),
        ("a\tb", PATH_CHARS_RULE),
        ("a\n", PATH_CHARS_RULE),
        ("a\\b", PATH_CHARS_RULE),
        ("a%", PATH_CHARS_RULE),
    ],
)
def test_invalid_paths_name_the_rule(path: object, rule: str) -> None:
    with pytest.raises(InvalidPath) as caught:
        check_path(path)
    assert str(caught.value).startswith("Invalid path: ")
    assert rule in str(caught.value)
    assert caught.value.code == "invalid_path"


def test_dotdot_message_is_exact() -> None:
    with pytest.raises(InvalidPath) as caught:
        check_path("notes/../secret")
    assert str(caught.value) == "Invalid path: '..' sequences are not allowed."


@pytest.mark.parametrize("agent_id", ["a", "agent-1_B", "x" * 128])
def test_valid_agent_ids(agent_id: str) -> None:
    assert check_agent_id(agent_id) == agent_id


@pytest.mark.parametrize(
    ("agent_id", "rule"),
    [
        ("", "it must be a non-empty string."),
        (None, "it must be a non-empty string."),
        ("x" * 129, "at most 128 characters are allowed (got 129)."),
        ("team/agent", "only the characters [a-zA-Z0-9_-] are allowed."),
        ("agent.1", "only the characters [a-zA-Z0-9_-] are allowed."),
        ("agent 1", "only the characters [a-zA-Z0-9_-] are allowed."),
        ("agént", "only the characters [a-zA-Z0-9_-] are allowed."),
    ],
)
def test_invalid_agent_ids_name_the_rule(agent_id: object, rule: str) -> None:
    with pytest.raises(InvalidAgentId) as caught:
        check_agent_id(agent_id)
    assert str(caught.value).startswith("Invalid agent_id: ")
    assert rule in str(caught.value)
    assert caught.value.code == "invalid_agent_id"


@pytest.mark.parametrize(("prefix", "expected"), [(None, ""), ("", ""), ("notes/", "notes/"), ("a.b-c_", "a.b-c_")])
def test_valid_prefixes(prefix: str | None, expected: str) -> None:
    assert check_prefix(prefix) == expected


@pytest.mark.parametrize("prefix", ["%", "notes%", "a_*", "a b", "é", "\x00", "\U0010ffff"])
def test_prefixes_with_characters_no_path_has_match_nothing(prefix: str) -> None:
    assert check_prefix(prefix) == NO_PATH
    with pytest.raises(InvalidPath):
        check_path(f"{NO_PATH}x")  # no path starts with NO_PATH


def test_a_too_long_prefix_is_refused() -> None:
    with pytest.raises(InvalidInput) as caught:
        check_prefix("x" * 256)
    assert str(caught.value) == "Invalid prefix: at most 255 characters are allowed (got 256)."


@pytest.mark.parametrize("cursor", ["%", "/etc", "a b", "x" * 256])
def test_cursors_must_be_paths(cursor: str) -> None:
    with pytest.raises(InvalidInput, match="Invalid cursor: pass the next_cursor of the previous page unchanged"):
        check_cursor(cursor)
    assert check_cursor(None) is None and check_cursor("") is None and check_cursor("a/b.md") == "a/b.md"
