"""Every error scratchpad raises on purpose.

    ScratchpadError                 base; `str(err)` is safe to show an agent
    ├── InvalidInput                an argument broke a rule; nothing changed
    │   ├── InvalidAgentId
    │   ├── InvalidPath
    │   ├── EditMismatch            edit_file's old_str is missing or ambiguous
    │   └── RequestIdReused         a request_id came back with other arguments
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

Each error carries its refusal as data (`error.refusal`, scratchpad_core.refusals): the class's code, the
facts and whether a retry can help; `message` is that refusal in the library's words (the MCP tools' too).
The command line and the web view word the same refusal in theirs. CODES lists every code; a new one is one
line here (a subclass with its `code`).
"""

from __future__ import annotations

import math
from typing import Any, Self

from .refusals import LIBRARY, Refusal


class ScratchpadError(Exception):
    """Base of every deliberate error; the message is meant for the agent.

    `ScratchpadError("...")` says a plain sentence; `ScratchpadError.said(template, argument=..., **facts)` a
    sentence that names arguments or next steps, which each interface words its own way.
    """

    code = "error"
    retryable = False

    def __init__(self, message: str) -> None:
        self._refuse(Refusal.plain(self.code, message, self.retryable))

    @classmethod
    def said(cls, says: str, /, *, argument: str | None = None, **facts: Any) -> Self:
        """The error refusing with `says` (a refusals.Refusal template) about `argument`, stating `facts`."""
        error = cls.__new__(cls)
        error._refuse(Refusal(cls.code, says, facts, argument, cls.retryable))
        return error

    def _refuse(self, refusal: Refusal) -> None:
        self.refusal = refusal
        self.message = refusal.worded(LIBRARY)
        Exception.__init__(self, self.message)


class InvalidInput(ScratchpadError):
    code = "invalid_input"


class InvalidAgentId(InvalidInput):
    code = "invalid_agent_id"


class InvalidPath(InvalidInput):
    code = "invalid_path"


class EditMismatch(InvalidInput):
    code = "edit_mismatch"


class RequestIdReused(InvalidInput):
    code = "request_id_reused"


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
        state = "its current version is {current}" if current else "it does not exist"
        says = (
            f"Version conflict on {{path}}: {{arg.expected_version}} {{expected}}, but {state}. "
            "Nothing was changed; read the file again and retry with the current version."
        )
        self._refuse(Refusal(self.code, says, {"path": path, "expected": expected, "current": current}))
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
        says = "Rate limit exceeded for {whose}: nothing was changed. Retry in {retry_after:.2f} seconds."
        self._refuse(Refusal(self.code, says, {"whose": whose, "retry_after": wait}, retryable=True))
        self.retry_after = wait


class StorageError(ScratchpadError):
    code = "storage_error"


class StorageBusy(StorageError):
    code = "storage_busy"
    retryable = True


class StorageUnavailable(StorageError):
    code = "storage_unavailable"
    retryable = True


def _codes(kind: type[ScratchpadError]) -> dict[str, type[ScratchpadError]]:
    found = {kind.code: kind}
    for sub in kind.__subclasses__():
        found |= _codes(sub)
    return found


CODES: dict[str, type[ScratchpadError]] = _codes(ScratchpadError)  # every code, and the error that has it
