from __future__ import annotations

import hashlib

from scratchpad_core.model import UsageDelta, Version, sha256_hex


def test_version_of_counts_bytes_lines_and_hash() -> None:
    version = Version.of(2, "é\nb", now=1234)
    assert (version.version, version.bytes, version.lines, version.created_at) == (2, 4, 2, 1234)
    assert version.sha256 == hashlib.sha256("é\nb".encode()).hexdigest() == sha256_hex("é\nb")
    assert Version.of(1, "", 0).lines == 0


def test_usage_delta_grows_only_with_more_stored() -> None:
    assert UsageDelta().operations == 1
    assert not UsageDelta().grows()
    assert not UsageDelta(files=-1, bytes=-10).grows()
    assert UsageDelta(bytes=1).grows()
    assert UsageDelta(files=1, bytes=-5).grows()
    assert UsageDelta(log_entries=1).grows()
