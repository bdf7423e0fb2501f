from __future__ import annotations

import hashlib

from scratchpad_core.model import Version, sha256_hex


def test_version_of_counts_bytes_lines_and_hash() -> None:
    version = Version.of(2, "é\nb", now=1234)
    assert (version.version, version.bytes, version.lines, version.created_at) == (2, 4, 2, 1234)
    assert version.sha256 == hashlib.sha256("é\nb".encode()).hexdigest() == sha256_hex("é\nb")
    assert Version.of(1, "", 0).lines == 0
