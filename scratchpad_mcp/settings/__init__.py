"""Settings: every variable the server reads (name, type, default, bounds, meaning); uses core and adapters.

Each field with a variable name (its validation alias) is one variable; the limits and quotas are one
variable per field of scratchpad_core's Limits, SCRATCHPAD_ and the field's name in capitals. The docs'
table of settings (docs/operations.md) is generated from these definitions (settings/docs.py). What the bind
address, SCRATCHPAD_ALLOWED_HOSTS and SCRATCHPAD_PUBLIC_URL mean for a request's Host and Origin, and the ASGI
middleware that applies it to every HTTP route (the HTTP server's and the `web` command's), live in settings/hosts.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Annotated, Any, Literal, get_args

from pydantic import BeforeValidator, Field, SecretStr, ValidationInfo, create_model, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import NoDecode

from scratchpad_adapters.anthropic_summarizer import DEFAULT_MODEL
from scratchpad_adapters.factory import default_database_path, sqlite_url
from scratchpad_core.limits import Limits

from . import values
from .hosts import HostRule, is_loopback
from .source import SettingsError, Variables, read, variable, variable_name

__all__ = ["LimitVariables", "Settings", "SettingsError"]

Transport = Literal["stdio", "http"]
AuthMode = Literal["keys", "none"]
LogFormat = Literal["json", "text"]
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")
MAX_RATE_LIMIT = 1_000_000.0

LIMIT_MEANINGS = {
    "max_file_bytes": "largest file content",
    "max_log_entry_bytes": "largest log entry",
    "max_versions": "versions kept per file",
    "quota_files": "files per agent",
    "quota_log_entries": "log entries per agent",
    "quota_bytes": "bytes stored per agent (retained versions + log entries)",
    "remembered_deletions": "deleted file paths, and as many log paths, per agent whose numbering carries on",
    "request_id_retention": "seconds a writing call's `request_id` is remembered (86,400: 24 h); a repeat within "
    "it returns the first reply and changes nothing",
    "request_ids_kept": "`request_id`s remembered per agent (the newest, of every caller of a shared agent together)",
}

Count = Annotated[int, BeforeValidator(values.integer)]
_log_format_choice = values.choice(get_args(LogFormat))
_log_level_choice = values.choice(LOG_LEVELS)


def _log_level(raw: object) -> object:
    return str(_log_level_choice(raw)).upper()


def _limit(limit: dataclasses.Field[Any]) -> Any:
    return (Count, variable(f"SCRATCHPAD_{limit.name.upper()}", LIMIT_MEANINGS[limit.name], limit.default, ge=1))


LimitVariables = create_model(
    "LimitVariables", __base__=Variables, **{limit.name: _limit(limit) for limit in dataclasses.fields(Limits)}
)


def _log_format_for(transport: object) -> LogFormat:
    return "json" if transport == "http" else "text"


class Settings(Variables):
    """Settings.from_env(environ) reads them; Settings(NAME=value, ...) takes values by variable name (tests)."""

    db_path: str = variable(
        "SCRATCHPAD_DB_PATH", "SQLite file (as in the original)", shown="user data dir `/scratchpad.db`"
    )
    database_url: str = variable(
        "SCRATCHPAD_DATABASE_URL",
        "any SQLAlchemy URL, e.g. `postgresql+psycopg://user:pass@host/db`; wins over `SCRATCHPAD_DB_PATH`",
        validate_default=True,
    )
    limits: Limits = Field(default_factory=Limits)  # the variables of LimitVariables
    max_read_bytes: Count = variable(
        "SCRATCHPAD_MAX_READ_BYTES",
        "largest content a `read_file` to the end of a file returns; past it, the lines that fit, with "
        "`truncated: true`, `total_lines` and `next_start_line` (for clients that cap a tool result, see "
        "[Claude Code](getting-started.md#claude-code))",
        0,
        ge=0,
        shown="0 (off)",
        out_of_range="use 0 (off) or a number of bytes",
    )
    prune_every: Count = variable(
        "SCRATCHPAD_PRUNE_EVERY",
        "seconds between the server's background prunes (retention rules: entries past their age, expired "
        "files; one replica at a time on PostgreSQL); 0: never (`db prune` still does it)",
        3_600,
        ge=0,
        shown="3600 (1 h)",
        out_of_range="use 0 (never) or a number of seconds",
    )
    index_every: Annotated[float, BeforeValidator(values.number)] = variable(
        "SCRATCHPAD_INDEX_EVERY",
        "seconds between the server's background passes over the search index's backlog (what writes left for "
        "it; a search catches up whatever is left, so searches stay exact either way); 0: never",
        1.0,
        ge=0,
        le=86_400,
        shown="1",
        out_of_range="use 0 (never) or a number of seconds up to 86,400",
    )
    anthropic_api_key: SecretStr = variable("ANTHROPIC_API_KEY", "needed by `summarize_file` only", SecretStr(""))
    anthropic_base_url: str | None = variable(
        "ANTHROPIC_BASE_URL", "as in the anthropic SDK", None, shown="SDK default"
    )
    summary_model: str = variable("SCRATCHPAD_SUMMARY_MODEL", "model for summaries", DEFAULT_MODEL)
    transport: Annotated[Transport, BeforeValidator(values.choice(get_args(Transport)))] = variable(
        "MCP_TRANSPORT", "`http` serves streamable HTTP at `/mcp`", "stdio"
    )
    port: Count = variable("PORT", "HTTP port", 4321, ge=1, le=65535)
    web_port: Count = variable(
        "SCRATCHPAD_WEB_PORT", "port of the read-only web view (the `web` command)", 4322, ge=1, le=65535
    )
    web_session_secret: SecretStr = variable(
        "SCRATCHPAD_WEB_SESSION_SECRET",
        "signs web view sessions (`/ui`); give replicas the same one so a sign-in holds on each",
        SecretStr(""),
        shown="random per process",
    )
    host: Annotated[str, BeforeValidator(values.host)] = variable("SCRATCHPAD_HOST", "HTTP bind address", "127.0.0.1")
    auth: Annotated[AuthMode, BeforeValidator(values.choice(get_args(AuthMode)))] = variable(
        "SCRATCHPAD_AUTH", "HTTP only: `keys` requires an API key per request; `none` trusts `agent_id`", "keys"
    )
    allow_insecure: Annotated[bool, BeforeValidator(values.flag)] = variable(
        "SCRATCHPAD_ALLOW_INSECURE", "`1` allows `SCRATCHPAD_AUTH=none` on a non-loopback address", False
    )
    public_url: Annotated[str, BeforeValidator(values.public_url)] = variable(
        "SCRATCHPAD_PUBLIC_URL",
        "the URL clients use, behind a proxy (named in the start-up log); a POST whose Origin it is counts as "
        "this server's own",
    )
    allowed_hosts: Annotated[tuple[str, ...], NoDecode, BeforeValidator(values.host_list)] = variable(
        "SCRATCHPAD_ALLOWED_HOSTS",
        "`Host` values answered besides the loopback names (`localhost`, `127.x.x.x`, `[::1]`; any port or none), "
        "comma-separated: `name`, `name:port`, `name:*` (any port or none); any other Host gets 421 on every route "
        "and in `web` (DNS-rebinding protection). Required to serve on another address than loopback; `*` alone: "
        "any Host, behind a proxy that checks it",
        (),
    )
    rate_limit: Annotated[float, BeforeValidator(values.number)] = variable(
        "SCRATCHPAD_RATE_LIMIT",
        "calls per second per agent (with API keys: per key, wherever it acts), shared by replicas on one database",
        0.0,
        ge=0,
        le=MAX_RATE_LIMIT,
        shown="0 (off)",
        out_of_range=f"use 0 (off) or a number of calls per second up to {MAX_RATE_LIMIT:,.0f}",
    )
    rate_burst: int = variable(
        "SCRATCHPAD_RATE_BURST", "calls an agent may make at once", None, ge=0, shown="2 × rate", validate_default=True
    )
    log_level: Annotated[str, BeforeValidator(_log_level)] = variable(
        "SCRATCHPAD_LOG_LEVEL", "log level (logs go to stderr)", "INFO"
    )
    log_format: LogFormat = variable(
        "SCRATCHPAD_LOG_FORMAT",
        "`json`: one JSON line per tool call, start-up, migration and auth failure",
        None,
        shown="`text` on stdio, `json` on HTTP",
        validate_default=True,
    )

    @field_validator("database_url", mode="before")
    @classmethod
    def _database_url(cls, raw: str, info: ValidationInfo) -> str:
        return raw or sqlite_url(info.data.get("db_path") or default_database_path())

    @field_validator("rate_burst", mode="before")
    @classmethod
    def _rate_burst(cls, raw: object, info: ValidationInfo) -> object:
        rate = info.data.get("rate_limit", 0.0)
        if raw is None:
            return max(1, int(rate * 2)) if rate else 0
        burst = values.integer(raw)
        if rate and isinstance(burst, int) and burst < 1:  # a bucket of less than one call refuses every call
            raise values.refusal(f"is out of range: {values.integer_range(1)}.")
        return burst

    @field_validator("log_format", mode="before")
    @classmethod
    def _log_format(cls, raw: object, info: ValidationInfo) -> object:
        return _log_format_for(info.data.get("transport")) if raw is None else _log_format_choice(raw)

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Settings:
        """The settings in `environ` (os.environ, or a test's dict); an empty variable counts as unset."""
        limits = read(LimitVariables, environ)
        return read(cls, environ, limits=Limits(**limits.model_dump()))

    @classmethod
    def log_format_on_failure(cls, environ: Mapping[str, str]) -> LogFormat:
        """The format for saying that the settings failed: as asked, else the transport's default; text if in doubt."""
        fmt = values.normal(environ.get(variable_name(cls.model_fields["log_format"])) or "")
        if fmt:
            return "json" if fmt == "json" else "text"
        return _log_format_for(values.normal(environ.get(variable_name(cls.model_fields["transport"])) or ""))

    @classmethod
    def variables(cls) -> list[tuple[str, FieldInfo]]:
        """Every variable, by name, in the order of the definitions (the limits where `limits` stands)."""
        groups = {"limits": LimitVariables}
        return [
            (variable_name(field), field)
            for name, own in cls.model_fields.items()
            for field in (groups[name].model_fields.values() if name in groups else [own])
        ]

    @property
    def database_is_default(self) -> bool:
        return not self.db_path and "database_url" not in self.model_fields_set

    @property
    def listen_url(self) -> str:
        """Where this server listens, as a URL (an IPv6 address in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def host_rule(self) -> HostRule:
        """The Host and Origin rule (settings.hosts) of a server given these settings."""
        return HostRule.serving(self.allowed_hosts, self.public_url)

    def check_walls(self, bind: str) -> None:
        """A server on another address than loopback names the Hosts it answers (or says any, with *)."""
        if not is_loopback(bind) and not self.allowed_hosts:
            raise SettingsError(
                f"SCRATCHPAD_ALLOWED_HOSTS is not set and {bind} is not a loopback address, so any name pointed at "
                "it would be answered: set it to the names clients use (e.g. SCRATCHPAD_ALLOWED_HOSTS="
                "scratchpad.example.com,10.0.0.5:*), or to * behind a proxy that checks Host itself."
            )
