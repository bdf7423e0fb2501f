"""Key labels are shown by `keys list` on a terminal: bounded, and without control characters."""

from __future__ import annotations

import pytest

from scratchpad_adapters import open_backend
from scratchpad_core.errors import InvalidInput


def test_labels_are_bounded_and_printable(database_url: str) -> None:
    backend = open_backend(database_url)
    try:
        key, _ = backend.keys.create("agent-a", label="CI runner — nightly ✓")
        assert key.label == "CI runner — nightly ✓"
        for bad, rule in (("x" * 201, "at most 200"), ("two\nlines", "control characters"), ("\x1b[31mred", "control")):
            with pytest.raises(InvalidInput, match=rule):
                backend.keys.create("agent-a", label=bad)
        assert [k.label for k in backend.keys.list()] == ["CI runner — nightly ✓"]
    finally:
        backend.close()
