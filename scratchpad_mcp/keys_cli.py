"""`scratchpad-mcp keys ...`: create, list and revoke the API keys that bind HTTP callers to agents."""

from __future__ import annotations

import argparse
import datetime
import sys

from scratchpad_adapters.memory import is_memory_url
from scratchpad_core.keys import TOUCH_EVERY_MS, ApiKey

from .admin import in_memory, require_existing
from .app import open_configured
from .settings import Settings

FRESHNESS = (
    f"scratchpad-mcp: 'last used' is recorded at most once every {TOUCH_EVERY_MS // 1000} s per key, so a key "
    f"may have been used up to {TOUCH_EVERY_MS // 1000} s after the time shown."
)


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    keys = commands.add_parser("keys", help="API keys for the HTTP transport")
    actions = keys.add_subparsers(dest="keys_command", required=True)
    create = actions.add_parser("create", help="make a key for an agent; the secret is printed once")
    create.add_argument("--agent", required=True, help="the agent this key acts for")
    create.add_argument("--read-only", action="store_true", help="allow only the read-only tools")
    create.add_argument("--label", default="", help="a note to recognize the key by")
    actions.add_parser("list", help="show keys (never their secrets)")
    revoke = actions.add_parser("revoke", help="end a key at once, on every replica")
    revoke.add_argument("id")


def run(args: argparse.Namespace, settings: Settings) -> int:
    if is_memory_url(settings.database_url):  # a key made there would be gone before anyone could use it
        raise in_memory(settings.database_url, "keys work")
    if args.keys_command != "create":  # listing or revoking keys of a database that is not there is a typo
        require_existing(settings.database_url)
    backend = open_configured(settings)
    try:
        keys = backend.keys
        if args.keys_command == "create":
            key, secret = keys.create(args.agent, read_only=args.read_only, label=args.label)
            print(secret)
            mode = "read-only" if key.read_only else "read-write"
            note = f"key {key.id} for agent {key.agent_id} ({mode}); keep the secret above, it is not stored."
            print(note, file=sys.stderr)
        elif args.keys_command == "list":
            print(f"{'id':<14}{'agent':<24}{'access':<12}{'created':<22}{'last used':<22}{'revoked':<22}label")
            for key in keys.list():
                print(_row(key))
            print(FRESHNESS, file=sys.stderr)
        else:
            keys.revoke(args.id)
            print(f"revoked {args.id}")
        return 0
    finally:
        backend.close()


def _row(key: ApiKey) -> str:
    access = "read-only" if key.read_only else "read-write"
    return (
        f"{key.id:<14}{key.agent_id:<24}{access:<12}{_when(key.created_at):<22}{_when(key.last_used_at):<22}"
        f"{_when(key.revoked_at):<22}{key.label}"
    )


def _when(ms: int | None) -> str:
    if ms is None:
        return "-"
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%d %H:%M:%SZ")
