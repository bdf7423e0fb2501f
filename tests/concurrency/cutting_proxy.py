"""A TCP proxy in front of an HTTP server that cuts a random share of the calls through it at a random moment."""

from __future__ import annotations

import contextlib
import random
import socket
import threading
from collections import Counter

from tests.faults.tcp_proxy import TcpProxy

MOMENTS = ("request", "sent", "reply", "timer")
MAX_DELAY = 0.01  # seconds: a timed cut comes this long after the request went on, at most


class CuttingProxy(TcpProxy):
    """Passes requests and answers on, but drops the connection under `share` of the requests that hold `marker`,
    at one of four moments drawn at random: before the request reaches the server ("request": it never runs),
    as soon as it has gone on ("sent": it runs while the client reconnects), when the server's answer starts
    to come back ("reply": it ran; the client never hears), or 0 to MAX_DELAY seconds after the request went
    on ("timer": any of those, or after the answer, under the next request). `cuts` counts the cuts made."""

    def __init__(self, target_host: str, target_port: int, share: float, seed: str, marker: bytes = b"") -> None:
        super().__init__(target_host, target_port)
        self.share, self.marker = share, marker
        self.cuts: Counter[str] = Counter()
        self._rng = random.Random(seed)
        self._draws = threading.Lock()
        self._doomed: set[socket.socket] = set()  # clients whose next answer is dropped

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):  # (a socket may be closed already: cut under the other direction)
            answers = source.getpeername()[1] == self.target[1]
            client = sink if answers else source
            sink.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no 40 ms wait between a head and a body
            while data := source.recv(65536):
                if answers:
                    moment = "reply" if client in self._doomed else None
                else:
                    moment = self._draw() if self.marker in data else None
                    if moment == "reply":  # cut when the answer comes
                        self._doomed.add(client)
                        moment = None
                if moment in ("request", "reply"):
                    self._cut(source, sink, moment)
                    return
                sink.sendall(data)
                if moment == "sent":
                    self._cut(source, sink, moment)
                    return
                if moment == "timer":
                    with self._draws:
                        delay = self._rng.uniform(0, MAX_DELAY)
                    timer = threading.Timer(delay, self._cut, (source, sink, moment))
                    timer.daemon = True
                    timer.start()
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def _draw(self) -> str | None:
        with self._draws:
            if self._rng.random() >= self.share:
                return None
            return self._rng.choice(MOMENTS)

    def _cut(self, one: socket.socket, other: socket.socket, moment: str) -> None:
        with self._draws:
            self.cuts[moment] += 1
            self._doomed.difference_update((one, other))
        for end in (one, other):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()
