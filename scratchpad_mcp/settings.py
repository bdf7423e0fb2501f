"""Every setting the server reads from its environment, in one place."""

from __future__ import annotations

import ipaddress
import math
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from scratchpad_adapters.anthropic_summarizer import DEFAULT_MODEL
from scratchpad_adapters.factory import default_database_path, sqlite_url
from scratchpad_core.limits import Limits

Transport = Literal["stdio", "http"]
AuthMode = Literal["keys", "none"]
LogFormat = Literal["json", "text"]
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
MAX_RATE_LIMIT = 1_000_000.0

_LIMIT_VARIABLES = {
    "SCRATCHPAD_MAX_FILE_BYTES": "max_file_bytes",
    "SCRATCHPAD_MAX_LOG_ENTRY_BYTES": "max_log_entry_bytes",
    "SCRATCHPAD_MAX_VERSIONS": "max_versions",
    "SCRATCHPAD_QUOTA_FILES": "quota_files",
    "SCRATCHPAD_QUOTA_LOG_ENTRIES": "quota_log_entries",
    "SCRATCHPAD_QUOTA_BYTES": "quota_bytes",
}


class SettingsError(ValueError):
    """A setting has a value the server cannot use; the message names the variable."""


@dataclass(frozen=True)
class Settings:
    database_url: str
    database_is_default: bool = False
    limits: Limits = field(default_factory=Limits)
    summary_model: str = DEFAULT_MODEL
    transport: Transport = "stdio"
    host: str = "127.0.0.1"
    port: int = 4321
    auth: AuthMode = "keys"
    allow_insecure: bool = False
    allowed_hosts: tuple[str, ...] = ()
    public_url: str = ""
    rate_limit: float = 0.0
    rate_burst: int = 0
    log_level: str = "INFO"
    log_format: LogFormat = "text"

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> Settings:
        url = env.get("SCRATCHPAD_DATABASE_URL") or ""
        db_path = env.get("SCRATCHPAD_DB_PATH") or ""
        is_default = not url and not db_path
        if not url:
            url = sqlite_url(db_path or default_database_path())
        transport = _choice(env, "MCP_TRANSPORT", ("stdio", "http"), "stdio")
        limits = {name: _int(env, variable, low=1) for variable, name in _LIMIT_VARIABLES.items() if env.get(variable)}
        rate = _float(env, "SCRATCHPAD_RATE_LIMIT", 0.0)
        return cls(
            database_url=url,
            database_is_default=is_default,
            limits=Limits(**limits),
            summary_model=env.get("SCRATCHPAD_SUMMARY_MODEL") or DEFAULT_MODEL,
            transport=transport,  # type: ignore[arg-type]
            host=_host(env),
            port=_int(env, "PORT", 4321, low=1, high=65535),
            auth=_choice(env, "SCRATCHPAD_AUTH", ("keys", "none"), "keys"),  # type: ignore[arg-type]
            allow_insecure=env.get("SCRATCHPAD_ALLOW_INSECURE", "") in ("1", "true", "yes"),
            public_url=_public_url(env),
            allowed_hosts=tuple(h.strip() for h in env.get("SCRATCHPAD_ALLOWED_HOSTS", "").split(",") if h.strip()),
            rate_limit=rate,
            rate_burst=_int(env, "SCRATCHPAD_RATE_BURST", max(1, int(rate * 2)) if rate else 0, low=1 if rate else 0),
            log_level=_choice(env, "SCRATCHPAD_LOG_LEVEL", LOG_LEVELS, "info").upper(),
            log_format=_choice(  # type: ignore[arg-type]
                env, "SCRATCHPAD_LOG_FORMAT", ("json", "text"), "json" if transport == "http" else "text"
            ),
        )

    @property
    def listen_url(self) -> str:
        """Where this server listens, as a URL (an IPv6 address in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


def _int(
    env: Mapping[str, str], name: str, default: int | None = None, *, low: int = 0, high: int | None = None
) -> int:
    raw = env.get(name)
    if not raw:
        if default is None:
            raise SettingsError(f"{name} is required.")
        return default
    try:
        value = int(raw.replace("_", ""))
    except ValueError:
        raise SettingsError(f"{name}={raw!r} is not an integer.") from None
    if value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise SettingsError(f"{name}={raw!r} is out of range: use an integer {bound}.")
    return value


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SettingsError(f"{name}={raw!r} is not a number.") from None
    if not math.isfinite(value) or not 0 <= value <= MAX_RATE_LIMIT:
        raise SettingsError(
            f"{name}={raw!r} is out of range: use 0 (off) or a number of calls per second up to {MAX_RATE_LIMIT:,.0f}."
        )
    return value


_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"  # '_' too: Docker and Compose service names
_HOST_NAME = re.compile(rf"(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*")


def _host(env: Mapping[str, str]) -> str:
    raw = (env.get("SCRATCHPAD_HOST") or "127.0.0.1").strip()
    host = raw[1:-1] if raw.startswith("[") and raw.endswith("]") else raw  # [::] as in a URL
    try:
        address = ipaddress.ip_address(host)
        if not (isinstance(address, ipaddress.IPv6Address) and address.scope_id):  # fe80::1%eth0: not in URLs here
            return host
    except ValueError:
        name = host.removesuffix(".")
        if _HOST_NAME.fullmatch(name) and not name.replace(".", "").isdigit():  # 999.1.1.1: no address, nor a name
            return name
    raise SettingsError(
        f"SCRATCHPAD_HOST={raw!r} is not an IP address (without a zone) or a host name; e.g. 127.0.0.1 or 0.0.0.0."
    )


def _public_url(env: Mapping[str, str]) -> str:
    raw = (env.get("SCRATCHPAD_PUBLIC_URL") or "").strip().rstrip("/")
    if raw:
        parts = urllib.parse.urlsplit(raw)
        try:
            parts.port  # noqa: B018  (raises on a port that is not a number from 0 to 65535)
            valid = parts.scheme in ("http", "https") and bool(parts.hostname)
        except ValueError:
            valid = False
        if not valid:
            raise SettingsError(
                f"SCRATCHPAD_PUBLIC_URL={raw!r} is not an http(s) URL; use the address clients reach, "
                "e.g. https://scratchpad.example.com."
            )
    return raw


def _choice(env: Mapping[str, str], name: str, allowed: tuple[str, ...], default: str) -> str:
    value = (env.get(name) or default).strip().lower()
    if value not in allowed:
        raise SettingsError(f"{name}={value!r} is not one of: {', '.join(allowed)}.")
    return value
