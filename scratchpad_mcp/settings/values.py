"""How the text of one variable becomes a setting's value, and what a refusal says.

A refusal is a pydantic error whose message is the tail of the SettingsError text: settings.py puts
"NAME='value' " before it. `shown` replaces the raw value there when the value was normalized first.
"""

from __future__ import annotations

import ipaddress
import re
import urllib.parse
from collections.abc import Callable

from pydantic_core import PydanticCustomError

from .hosts import ANY_HOST, split_host


def refusal(tail: str, shown: str | None = None) -> PydanticCustomError:
    return PydanticCustomError("setting", tail, None if shown is None else {"shown": shown})


def integer_range(low: int, high: int | None = None) -> str:
    """The hint of an integer refused for its size."""
    return f"use an integer from {low} to {high}" if high is not None else f"use an integer at least {low}"


def integer(raw: object) -> object:
    if not isinstance(raw, str):
        return raw
    try:
        return int(raw.replace("_", ""))
    except ValueError:
        raise refusal("is not an integer.") from None


def number(raw: object) -> object:
    if not isinstance(raw, str):
        return raw
    try:
        return float(raw)
    except ValueError:
        raise refusal("is not a number.") from None


def normal(raw: str) -> str:
    """A choice as it is compared: case and surrounding spaces do not matter."""
    return raw.strip().lower()


def choice(allowed: tuple[str, ...]) -> Callable[[object], object]:
    def parse(raw: object) -> object:
        if not isinstance(raw, str):
            return raw
        value = normal(raw)
        if value not in allowed:
            raise refusal(f"is not one of: {', '.join(allowed)}.", shown=value)
        return value

    return parse


def flag(raw: object) -> object:
    return raw in ("1", "true", "yes") if isinstance(raw, str) else raw


def comma_list(raw: object) -> object:
    return tuple(part.strip() for part in raw.split(",") if part.strip()) if isinstance(raw, str) else raw


_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"  # '_' too: Docker and Compose service names
_HOST_NAME = re.compile(rf"(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*")


def host_list(raw: object) -> object:
    """Host values (hosts.split_host): `name`, `name:port`, `name:*`, `[IPv6]` with those ports; or `*` alone."""
    entries = comma_list(raw)
    if not isinstance(entries, tuple):
        return entries
    if ANY_HOST in entries and len(entries) > 1:
        raise refusal("has * with other entries: * alone answers any Host (behind a proxy that checks it); "
                      "otherwise list the names.")  # fmt: skip
    for entry in entries:
        parts = split_host(entry) if entry != ANY_HOST else (ANY_HOST, None)
        if parts is None or not (parts[0] == ANY_HOST or parts[0].startswith("[") or _HOST_NAME.fullmatch(parts[0])):
            raise refusal(
                f"has {entry!r}, which no Host can match: list names as a browser sends them, a port from 1 to "
                "65535 or * for any, e.g. scratchpad.example.com,10.0.0.5:*,[fd00::5]:8443 (no scheme, no path); "
                "or * alone for any Host.",
            )
    return entries


def host(raw: object) -> object:
    if not isinstance(raw, str):
        return raw
    text = raw.strip()
    bare = text[1:-1] if text.startswith("[") and text.endswith("]") else text  # [::] as in a URL
    try:
        address = ipaddress.ip_address(bare)
        if not (isinstance(address, ipaddress.IPv6Address) and address.scope_id):  # fe80::1%eth0: not in URLs here
            return bare
    except ValueError:
        name = bare.removesuffix(".")
        if _HOST_NAME.fullmatch(name) and not name.replace(".", "").isdigit():  # 999.1.1.1: no address, nor a name
            return name
    raise refusal("is not an IP address (without a zone) or a host name; e.g. 127.0.0.1 or 0.0.0.0.", shown=text)


def public_url(raw: object) -> object:
    if not isinstance(raw, str):
        return raw
    url = raw.strip().rstrip("/")
    if url:
        parts = urllib.parse.urlsplit(url)
        try:
            parts.port  # noqa: B018  (raises on a port that is not a number from 0 to 65535)
            valid = parts.scheme in ("http", "https") and bool(parts.hostname)
        except ValueError:
            valid = False
        if not valid:
            raise refusal(
                "is not an http(s) URL; use the address clients reach, e.g. https://scratchpad.example.com.", shown=url
            )
    return url
