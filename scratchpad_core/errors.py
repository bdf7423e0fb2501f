"""Every error scratchpad raises on purpose.

    ScratchpadError                 base; `str(err)` is safe to show an agent
    ├── InvalidInput                an argument broke a rule; nothing changed
    │   ├── InvalidAgentId
    │   ├── InvalidPath
    │   └── EditMismatch            edit_file's old_str is missing or ambiguous
    ├── NotFound                    no such file, log or version in this namespace
    │   └── NothingToRedact         a redaction found nothing to remove (`requests_forgotten` all the same)
    ├── VersionConflict             expected_version differs from the current version
    ├── LimitExceeded               one call is too large (content, log entry)
    ├── QuotaExceeded               the agent's stored files, entries or bytes would pass its quota
    ├── SummaryUnavailable          summarize_file cannot run (file too small, no API key, API failure)
    ├── AccessDenied                a key does not allow this call (wrong agent, read-only)
    ├── RateLimited                 too many calls; `retry_after` seconds to wait
    └── StorageError                the database failed; `retryable` says whether to try again
        ├── StorageBusy             lock contention outlasted the retries
        └── StorageUnavailable      the database is unreachable or dropped the connection

Messages name the rule that was broken and say what to do next. They never carry
tracebacks, SQL, file system paths or secrets.
"""

from __future__ import annotations

import math


class ScratchpadError(Exception):
    """Base of every deliberate error; the message is meant for the agent."""

    code = "error"
    retryable = False

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidInput(ScratchpadError):
    code = "invalid_input"


class InvalidAgentId(InvalidInput):
    code = "invalid_agent_id"


class InvalidPath(InvalidInput):
    code = "invalid_path"


class EditMismatch(InvalidInput):
    code = "edit_mismatch"


class NotFound(ScratchpadError):
    code = "not_found"


class NothingToRedact(NotFound):
    """No retained version or kept entry holds what a redaction was to remove: nothing of the content changed,
    but the kept request_ids that could confirm the text were forgotten all the same (`requests_forgotten`)."""

    code = "nothing_to_redact"

    def __init__(self, message: str, requests_forgotten: int = 0) -> None:
        super().__init__(message)
        self.requests_forgotten = requests_forgotten


class VersionConflict(ScratchpadError):
    code = "version_conflict"

    def __init__(self, path: str, expected: int, current: int) -> None:
        state = f"its current version is {current}" if current else "it does not exist"
        super().__init__(
            f"Version conflict on {path}: expected_version {expected}, but {state}. "
            "Nothing was changed; read the file again and retry with the current version."
        )
        self.current_version = current


class LimitExceeded(ScratchpadError):
    code = "limit_exceeded"


class QuotaExceeded(ScratchpadError):
    code = "quota_exceeded"


class SummaryUnavailable(ScratchpadError):
    code = "summary_unavailable"


class AccessDenied(ScratchpadError):
    code = "access_denied"


class RateLimited(ScratchpadError):
    code = "rate_limited"
    retryable = True

    def __init__(self, retry_after: float, whose: str = "this agent") -> None:
        wait = max(0.01, math.ceil(retry_after * 100) / 100)  # rounded up: waiting this long is always enough
        super().__init__(f"Rate limit exceeded for {whose}: nothing was changed. Retry in {wait:.2f} seconds.")
        self.retry_after = wait


class StorageError(ScratchpadError):
    code = "storage_error"


class StorageBusy(StorageError):
    code = "storage_busy"
    retryable = True


class StorageUnavailable(StorageError):
    code = "storage_unavailable"
    retryable = True
