"""The walls in front of every HTTP route (the HTTP server's /mcp, /ui, /health, /ready, /metrics and any later
route, and the standalone `scratchpad-mcp web`): one Host rule and one Origin rule, applied by `Walls` around the
whole ASGI app, so a refused request reaches no handler and reads nothing. Standard library only: the HTTP server
and the web view both build on it (they may not import each other).

Host (DNS rebinding: a page that points its own name at 127.0.0.1 sends that name as Host): a request is answered
when its Host names a loopback address (`localhost`, `127.x.x.x`, `[::1]`; any port, or none) or matches an entry
of SCRATCHPAD_ALLOWED_HOSTS (`name`, `name:port`, or `name:*` for any port or none), compared in canonical form
(split_host: case, a trailing dot, an IPv6 address's spelling do not matter). Otherwise: the 421 `Invalid Host
header` of the MCP SDK. `SCRATCHPAD_ALLOWED_HOSTS=*` answers any Host: for a server behind a proxy that checks
Host itself. A server on another address than loopback without SCRATCHPAD_ALLOWED_HOSTS does not start
(Settings.check_walls).

Origin (CSRF, sign-in included): a request that may change something (any method but GET, HEAD and OPTIONS) that
a browser says came from elsewhere is refused with 403 and a one-line reason: a Sec-Fetch-Site other than
`same-origin`, an Origin that is not this server (the request's Host and port, its scheme when over https; or
SCRATCHPAD_PUBLIC_URL), or `Origin: null` without `Sec-Fetch-Site: same-origin`. With neither header (no current
browser sends a POST so), a Referer, if any, must be this server's; a request with none of them is not a
browser's form (curl, an MCP client) and goes on.
"""

from __future__ import annotations

import ipaddress
import logging
import urllib.parse
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("scratchpad.http")

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
DEFAULT_PORTS = {"http": 80, "https": 443}
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
INVALID_HOST = b"Invalid Host header"  # the MCP SDK's own answer on /mcp (status 421), now every route's


Port = int | str | None  # a port number (1..65535), '*' (any: an entry of the list only), or None (none given)
ANY_HOST = "*"  # SCRATCHPAD_ALLOWED_HOSTS=*: any Host, for a server behind a proxy that checks Host itself


def split_host(value: str) -> tuple[str, Port] | None:
    """A Host value (or an entry of SCRATCHPAD_ALLOWED_HOSTS) in canonical form: (name, port), the name in lower
    case without a trailing dot, an IP address as `ipaddress` writes it (IPv6 in brackets: `[0:0::1]` is
    `[::1]`); the port a number from 1 to 65535, '*', or None. None when it is neither `name`, `name:port` nor
    `[IPv6]` with an optional port, or its port is no port."""
    value = value.lower()
    if value.startswith("["):
        address, bracket, rest = value[1:].partition("]")
        canonical = _ip(address) if bracket else None
        if canonical is None or ":" not in canonical:
            return None
        name = f"[{canonical}]"
    else:
        name, colon, port = value.partition(":")
        rest = colon + port
        name = name[:-1] if name.endswith(".") and len(name) > 1 else name  # `localhost.`: the same name
        name = _ip(name) or name
    if not name or (rest and rest[0] != ":"):
        return None
    port = rest[1:]
    if not rest or port == "*":
        return name, port or None
    if not (port.isascii() and port.isdigit() and len(port) <= 5 and 1 <= int(port) <= 65535):
        return None
    return name, int(port)


def is_loopback(host: str) -> bool:
    """localhost, or a loopback address (127.x.x.x, ::1), with or without brackets."""
    name = host.strip("[]").lower()
    if name in LOOPBACK_NAMES:  # the usual ones, without parsing an address (a few microseconds a request)
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _ip(name: str) -> str | None:
    """An IP address (no zone) as `ipaddress` writes it; None when `name` is none."""
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return None
    return None if isinstance(address, ipaddress.IPv6Address) and address.scope_id else str(address)


def origin_of(url: str) -> tuple[str, str, int] | None:
    """(scheme, host name, port) of an http(s) URL; None for anything else (`null` included)."""
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.scheme, parts.hostname, port or DEFAULT_PORTS[parts.scheme]


@dataclass(frozen=True)
class HostRule:
    """Which Host a request may name, and which Origin may send a request that changes something."""

    allowed: frozenset[tuple[str, Port]] = frozenset()  # SCRATCHPAD_ALLOWED_HOSTS, each entry split_host's
    any_host: bool = False  # SCRATCHPAD_ALLOWED_HOSTS=*: behind a proxy that checks Host
    public_url: str = ""  # SCRATCHPAD_PUBLIC_URL: its origin is this server's too

    @classmethod
    def serving(cls, allowed: tuple[str, ...], public_url: str) -> HostRule:
        """The rule of a server given SCRATCHPAD_ALLOWED_HOSTS (entries already checked: settings.values)."""
        entries = {split_host(entry) for entry in allowed if entry != ANY_HOST}
        return cls(frozenset(entry for entry in entries if entry is not None), ANY_HOST in allowed, public_url)

    def accepts(self, host: str | None) -> bool:
        if self.any_host:
            return True
        parts = None if host is None else split_host(host)
        if parts is None or parts[1] == "*":
            return False
        name = parts[0]
        if parts in self.allowed or (name, "*") in self.allowed:  # `name:*`: any port, or none
            return True
        return is_loopback(name)

    def cross_site(self, method: str, headers: Mapping[str, str], scheme: str) -> str | None:
        """Why a request that may change something comes from another site; None when it does not."""
        if method in SAFE_METHODS:
            return None
        host = headers.get("host", "")
        site, origin = headers.get("sec-fetch-site"), headers.get("origin")
        if site is not None and site != "same-origin":
            return f"the browser sent it from another site (Sec-Fetch-Site: {site})"
        if origin == "null":  # a page that hides where it is (a sandbox, a no-referrer policy)
            return None if site == "same-origin" else "its Origin is null, so it may come from any site"
        if origin is not None:
            return None if self.ours(origin, host, scheme) else f"its Origin, {origin}, is not this server ({host})"
        referer = headers.get("referer")
        if site is None and referer and not self.ours(referer, host, scheme):
            return f"its Referer is not this server ({host})"
        return None

    def ours(self, url: str, host: str, scheme: str) -> bool:
        """Whether `url` names this server: the request's own origin, or SCRATCHPAD_PUBLIC_URL's."""
        origin = origin_of(url)
        if origin is None:
            return False
        if self.public_url and origin == origin_of(self.public_url):
            return True
        parts = split_host(host)
        if parts is None or parts[1] == "*" or (scheme in ("https", "wss") and origin[0] != "https"):
            return False
        name, port = parts
        port_number = port if isinstance(port, int) else DEFAULT_PORTS[origin[0]]  # none: the scheme's default
        origin_name = split_host(f"[{origin[1]}]" if ":" in origin[1] else origin[1])
        return origin_name is not None and (origin_name[0], origin[2]) == (name, port_number)


class Walls:
    """ASGI middleware: the Host rule, then the Origin rule, before the app it wraps sees the request."""

    def __init__(self, app: App, rule: HostRule) -> None:
        self.app = app
        self.rule = rule

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers: dict[str, str] = {}
        hosts = 0
        for name, value in scope["headers"]:
            hosts += name == b"host"
            headers.setdefault(name.decode("latin-1"), value.decode("latin-1"))
        host = headers.get("host") if hosts == 1 else None
        if not self.rule.accepts(host):
            log.warning(
                "refused a request for Host %r: not a loopback name nor in SCRATCHPAD_ALLOWED_HOSTS (add it there "
                "to serve it)", host, extra={"event": "host_refused"},
            )  # fmt: skip
            await refuse(scope, send, 421, INVALID_HOST)
            return
        reason = self.rule.cross_site(scope.get("method", "WEBSOCKET"), headers, scope["scheme"])
        if reason is not None:
            log.warning("refused a cross-site request: %s", reason, extra={"event": "cross_site_refused"})
            text = f"Cross-site request refused: {reason}; send it from this server's own pages."
            await refuse(scope, send, 403, text.encode(), b"text/plain; charset=utf-8")
            return
        await self.app(scope, receive, send)


async def refuse(scope: Scope, send: Send, status: int, body: bytes, media_type: bytes | None = None) -> None:
    if scope["type"] == "websocket":  # closed before it is accepted: the server answers 403
        await send({"type": "websocket.close", "code": 1008})
        return
    headers = [(b"content-length", str(len(body)).encode())]
    headers += [(b"content-type", media_type), (b"x-content-type-options", b"nosniff")] if media_type else []
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
