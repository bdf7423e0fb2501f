from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scratchpad_core.errors import InvalidInput, LimitExceeded
from scratchpad_core.limits import (
    Limits,
    check_content_size,
    check_entry_size,
    estimated_tokens,
    payload_bytes,
    utf8_len,
)

MIB = 1_048_576


def test_defaults() -> None:
    limits = Limits()
    assert (limits.max_file_bytes, limits.max_log_entry_bytes, limits.max_versions) == (MIB, 65_536, 10)
    assert (limits.quota_files, limits.quota_log_entries, limits.quota_bytes) == (1000, 100_000, 100 * MIB)


def test_content_size_boundary_in_ascii() -> None:
    assert check_content_size("a" * MIB, Limits()) == MIB
    with pytest.raises(LimitExceeded) as caught:
        check_content_size("a" * (MIB + 1), Limits())
    assert "1,048,577 bytes (UTF-8) exceeds the 1,048,576-byte limit per file" in str(caught.value)


def test_payload_bytes_sums_the_utf8_size_of_each_text() -> None:
    assert payload_bytes() == 0
    assert payload_bytes("é") == 2
    assert payload_bytes("old €", "new") == 7 + 3
    assert payload_bytes("\ud800") == 3  # a lone surrogate still has a size (the write refuses it later)


def test_content_size_counts_utf8_bytes() -> None:
    assert utf8_len("é") == 2
    assert check_content_size("é" * (MIB // 2), Limits()) == MIB
    with pytest.raises(LimitExceeded):
        check_content_size("é" * (MIB // 2) + "a", Limits())
    with pytest.raises(LimitExceeded):
        check_content_size("😀" * (MIB // 4 + 1), Limits())  # 4 bytes each, far fewer characters than the limit


def test_entry_size_boundary() -> None:
    assert check_entry_size("a" * 65_536, Limits()) == 65_536
    with pytest.raises(LimitExceeded) as caught:
        check_entry_size("a" * 65_537, Limits())
    assert "Log entry too large: 65,537 bytes (UTF-8) exceeds the 65,536-byte limit" in str(caught.value)


def test_custom_limits_apply() -> None:
    limits = Limits(max_file_bytes=4, max_log_entry_bytes=2)
    assert check_content_size("日a", limits) == 4
    with pytest.raises(LimitExceeded):
        check_content_size("日ab", limits)
    with pytest.raises(LimitExceeded):
        check_entry_size("é!", limits)


@pytest.mark.parametrize("field", ["max_file_bytes", "max_log_entry_bytes", "max_versions", "quota_bytes"])
@pytest.mark.parametrize("value", [0, -1, 1.5, "10"])
def test_invalid_limits_are_refused(field: str, value: object) -> None:
    with pytest.raises(InvalidInput) as caught:
        Limits(**{field: value})  # type: ignore[arg-type]
    assert f"Invalid limit {field}={value!r}: it must be a positive integer." == str(caught.value)


def test_smallest_limits_are_accepted() -> None:
    assert Limits(1, 1, 1, 1, 1, 1).max_versions == 1


@pytest.mark.parametrize(("text", "tokens"), [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("é" * 8, 2)])
def test_estimated_tokens_examples(text: str, tokens: int) -> None:
    assert estimated_tokens(text) == tokens


@given(st.text())
def test_estimated_tokens_is_ceil_of_chars_over_four(text: str) -> None:
    assert estimated_tokens(text) == math.ceil(len(text) / 4)


@pytest.mark.parametrize("check", [check_content_size, check_entry_size])
def test_nul_and_lone_surrogates_are_refused(check: Callable[[str, Limits], int]) -> None:
    what = "content" if check is check_content_size else "entry"
    with pytest.raises(InvalidInput) as caught:
        check("a\x00b", Limits())
    assert str(caught.value).startswith(f"Invalid {what}: NUL characters (\\x00) cannot be stored")
    with pytest.raises(InvalidInput) as caught:
        check("a\ud800b", Limits())
    assert str(caught.value) == f"Invalid {what}: it is not valid Unicode (a lone surrogate); send UTF-8 text."


def test_utf8_len_never_fails() -> None:
    assert utf8_len("\ud800") == 3
    assert utf8_len("a\x00日😀") == 1 + 1 + 3 + 4
