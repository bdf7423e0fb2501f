from __future__ import annotations

import inspect

import pytest

from scratchpad_core import errors
from scratchpad_core.errors import RateLimited, ScratchpadError, StorageBusy, StorageUnavailable, VersionConflict

ALL = [c for _, c in inspect.getmembers(errors, inspect.isclass) if issubclass(c, ScratchpadError)]
RETRYABLE = {RateLimited, StorageBusy, StorageUnavailable}


def test_version_conflict_states_both_versions() -> None:
    err = VersionConflict("notes/a.md", 3, 5)
    assert str(err).startswith("Version conflict on notes/a.md: expected_version 3, but its current version is 5.")
    assert "Nothing was changed" in str(err)
    assert err.current_version == 5
    assert err.code == "version_conflict"


def test_version_conflict_on_a_missing_file() -> None:
    err = VersionConflict("a.md", 1, 0)
    assert "expected_version 1, but it does not exist." in str(err)
    assert err.current_version == 0


def test_rate_limited_gives_the_wait() -> None:
    err = RateLimited(1.5)
    assert "Retry in 1.50 seconds." in str(err)
    assert err.retry_after == 1.5


def test_codes_are_distinct() -> None:
    assert len(ALL) == 17  # RequestIdReused lives here too, so that CODES lists every code
    codes = [c.code for c in ALL]
    assert len(set(codes)) == len(codes), codes
    assert {c.code: c for c in ALL} == errors.CODES


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_only_transient_errors_are_retryable(cls: type[ScratchpadError]) -> None:
    assert cls.retryable is (cls in RETRYABLE)


def test_message_attribute_matches_str() -> None:
    err = errors.NotFound("File not found: x.")
    assert err.message == str(err) == "File not found: x."
    assert isinstance(errors.EditMismatch("m"), errors.InvalidInput)
    assert isinstance(StorageBusy("m"), errors.StorageError)
