"""The listeners of one change feed: subscribed and unsubscribed from any thread, each told of every change."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable

from scratchpad_core.changes import FileChange, Listener

log = logging.getLogger("scratchpad")


class Listeners:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: dict[object, Listener] = {}

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        token = object()
        with self._lock:
            self._listeners[token] = listener

        def unsubscribe() -> None:
            with self._lock:
                self._listeners.pop(token, None)

        return unsubscribe

    def tell(self, changes: Iterable[FileChange]) -> None:
        """Tell every listener of each change; one that raises is logged and the others still hear it."""
        with self._lock:
            listeners = list(self._listeners.values())
        for change in changes:
            for listener in listeners:
                try:
                    listener(change)
                except Exception:
                    log.exception("a change listener failed; the others were told")

    def clear(self) -> None:
        with self._lock:
            self._listeners.clear()
