"""A reply's text is compact JSON written by pydantic_core (replies.compact_json): it must be exactly what
json.dumps writes with the same options, the text every token figure was measured on, for anything a result
holds; what pydantic_core refuses (a lone surrogate) json's encoder writes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from scratchpad_mcp.server.replies import compact_json

# The values a result is made of once replies.plain has run: strings (any character, control ones included),
# integers of any size, booleans, None, lists and string-keyed dicts.
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=-(2**80), max_value=2**80) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=40,
)


def stdlib(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@given(JSON_VALUES)
def test_the_same_text_as_json_dumps(value: Any) -> None:
    assert compact_json(value) == stdlib(value)


def test_characters_json_escapes_or_keeps() -> None:
    every = "".join(chr(c) for c in [*range(0x00, 0x80), 0x2028, 0x2029, 0xFEFF, 0x1F600, 0x10FFFF])
    value = {"text": every, "a/b": 'quote " backslash \\', "n": [2**64, -(2**63), 0]}
    assert compact_json(value) == stdlib(value)


def test_a_lone_surrogate_is_written_as_json_dumps_writes_it() -> None:
    value = {"path": "x\ud800y"}
    assert compact_json(value) == stdlib(value) == '{"path":"x\ud800y"}'
