"""The Scratchpad use cases in one object: the library's API and what every adapter drives."""

from __future__ import annotations

from types import TracebackType

from .usecases.catalog import Catalog
from .usecases.catchup import ChangeReading
from .usecases.logs import Logs
from .usecases.reads import FileReads
from .usecases.redaction.redacting import Redaction
from .usecases.renames import Renames
from .usecases.retention import Retention
from .usecases.search.searching import Search
from .usecases.summaries import Summaries
from .usecases.usage import UsageReport
from .usecases.writes import FileWrites


class Scratchpad(
    Redaction, FileWrites, Renames, FileReads, Logs, Search, Summaries, UsageReport, Catalog, Retention, ChangeReading
):
    """Versioned files and append-only logs in per-agent namespaces, bounded by quotas.

    Build one with `scratchpad_adapters.open_store(url)`, or from any UnitOfWork factory.
    Every method runs in one transaction and counts as one operation of the agent.
    """

    def __enter__(self) -> Scratchpad:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
