"""scratchpad's domain: versioned files and append-only logs per agent, bounded by quotas. Standard library only.

The library's API: `Scratchpad` (the use cases; open one with `scratchpad_adapters.open_store`), its
`Limits`, the results it returns, the errors it raises, and the diff formats with their appliers.
"""

from .diffing import Chunk, apply_chunks, apply_unified
from .errors import (
    AccessDenied,
    EditMismatch,
    InvalidAgentId,
    InvalidInput,
    InvalidPath,
    LimitExceeded,
    NotFound,
    QuotaExceeded,
    RateLimited,
    ScratchpadError,
    StorageBusy,
    StorageError,
    StorageUnavailable,
    SummaryUnavailable,
    VersionConflict,
)
from .hunks import Hunk, apply_hunks
from .limits import Limits
from .model import VersionInfo
from .results import (
    AppendResult,
    DeleteLogResult,
    DeleteResult,
    EditResult,
    FileInfo,
    FileListing,
    LogEntryOut,
    LogInfo,
    LogListing,
    LogPage,
    Quota,
    ReadResult,
    SearchMatch,
    SearchResult,
    SummaryResult,
    UsageStats,
    VersionList,
    WriteResult,
)
from .service import Scratchpad

__all__ = [
    "AccessDenied",
    "AppendResult",
    "Chunk",
    "DeleteLogResult",
    "DeleteResult",
    "EditMismatch",
    "EditResult",
    "FileInfo",
    "FileListing",
    "Hunk",
    "InvalidAgentId",
    "InvalidInput",
    "InvalidPath",
    "LimitExceeded",
    "Limits",
    "LogEntryOut",
    "LogInfo",
    "LogListing",
    "LogPage",
    "NotFound",
    "Quota",
    "QuotaExceeded",
    "RateLimited",
    "ReadResult",
    "Scratchpad",
    "ScratchpadError",
    "SearchMatch",
    "SearchResult",
    "StorageBusy",
    "StorageError",
    "StorageUnavailable",
    "SummaryResult",
    "SummaryUnavailable",
    "UsageStats",
    "VersionConflict",
    "VersionInfo",
    "VersionList",
    "WriteResult",
    "apply_chunks",
    "apply_hunks",
    "apply_unified",
]
