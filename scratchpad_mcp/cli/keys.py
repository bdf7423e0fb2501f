"""`scratchpad-mcp keys ...`: create, list and revoke the API keys that bind HTTP callers to agents, and grant
them other agents' namespaces (agent teams: scratchpad_core.access.grants)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

import click

from scratchpad_core.access.grants import Access, Grant, parse_grant
from scratchpad_core.access.keys import TOUCH_EVERY_MS, ApiKey, ApiKeys

from ..settings import Settings
from .admin import opened_backend
from .inspect_output import emit_json, when
from .invocation import Invocation
from .root import Group, pass_invocation

FRESHNESS = (
    f"scratchpad-mcp: 'last used' is recorded at most once every {TOUCH_EVERY_MS // 1000} s per key, so a key "
    f"may have been used up to {TOUCH_EVERY_MS // 1000} s after the time shown."
)


@click.group(cls=Group)
def keys() -> None:
    """API keys for the HTTP transport: create, list, grant, ungrant, revoke."""


@keys.command()
@click.option("--agent", metavar="AGENT", help="The agent this key acts for.")
@click.option("--admin", is_flag=True, help="A key for the web view (/ui) that sees every agent and calls no tools.")
@click.option("--read-only", is_flag=True, help="Allow only the read-only tools.")
@click.option("--label", default="", metavar="TEXT", help="A note to recognize the key by.")
@click.option(
    "--grant", "grants", multiple=True, metavar="AGENT:read|write",
    help="Also use another agent's namespace (write includes read); repeatable.",
)  # fmt: skip
@pass_invocation
def create(
    invocation: Invocation, agent: str | None, admin: bool, read_only: bool, label: str, grants: tuple[str, ...]
) -> int:
    """Make a key for an agent (or, with --admin, for the web view); the secret is printed once."""
    if (agent is None) == (not admin):
        raise click.UsageError("give --agent AGENT (a key that acts for one agent) or --admin (a web view key that "
                               "sees every agent), one of the two.")  # fmt: skip
    if admin and read_only:
        raise click.UsageError("--read-only is for an agent's key: an admin key calls no tools at all.")
    if admin and grants:
        raise click.UsageError("--grant is for an agent's key: an admin key already sees every agent.")
    held = [parse_grant(text) for text in grants]
    with _keys(invocation.begin(), existing=False) as store:
        key, secret = store.create(agent, read_only=read_only, label=label, grants=held)
    print(secret)
    mode = "read-only" if key.read_only else "read-write"
    made = f"admin key {key.id} (the web view, every agent; no tools)" if admin else (
        f"key {key.id} for agent {key.agent_id} ({mode}{_also(key)})"
    )  # fmt: skip
    print(f"{made}; keep the secret above, it is not stored.", file=sys.stderr)
    return 0


@keys.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (for a script): one key a line.")
@pass_invocation
def list_keys(invocation: Invocation, as_json: bool) -> int:
    """Show keys and their grants (never their secrets)."""
    with _keys(invocation.begin()) as store:
        listed = store.list()
    if as_json:
        for key in listed:
            emit_json(_record(key))
    else:
        width = max([len("grants"), *(len(_grants(key)) for key in listed)]) + 2
        print(
            f"{'id':<14}{'agent':<24}{'access':<12}{'created':<22}{'last used':<22}{'revoked':<22}"
            f"{'grants':<{width}}label"
        )
        for key in listed:
            print(_row(key, width))
    print(FRESHNESS, file=sys.stderr)
    return 0


@keys.command()
@click.argument("key_id", metavar="ID")
@click.argument("agent", metavar="AGENT")
@click.option("--read", "read", is_flag=True, help="Let the key read AGENT's files and logs.")
@click.option("--write", "write", is_flag=True, help="Let it read and change them too.")
@pass_invocation
def grant(invocation: Invocation, key_id: str, agent: str, read: bool, write: bool) -> int:
    """Let key ID use AGENT's namespace (in place of any grant it has there); at once, on every replica."""
    if read == write:
        raise click.UsageError("give exactly one of --read or --write: what key ID may do in AGENT's namespace.")
    access = (Access.WRITE if write else Access.READ).value
    with _keys(invocation.begin()) as store:
        key = store.grant(key_id, Grant(agent, Access(access)))
    print(f"key {key.id} may now {access} agent {agent}; its grants: {_grants(key)}")
    return 0


@keys.command()
@click.argument("key_id", metavar="ID")
@click.argument("agent", metavar="AGENT")
@pass_invocation
def ungrant(invocation: Invocation, key_id: str, agent: str) -> int:
    """Take key ID's grant on AGENT away; at once, on every replica (its open streams on AGENT end too)."""
    with _keys(invocation.begin()) as store:
        key = store.ungrant(key_id, agent)
    print(f"key {key.id} may no longer use agent {agent}; its grants: {_grants(key)}")
    return 0


@keys.command()
@click.argument("key_id", metavar="ID")
@pass_invocation
def revoke(invocation: Invocation, key_id: str) -> int:
    """End the key ID at once, on every replica."""
    with _keys(invocation.begin()) as store:
        store.revoke(key_id)
    print(f"revoked {key_id}")
    return 0


@contextlib.contextmanager
def _keys(settings: Settings, *, existing: bool = True) -> Iterator[ApiKeys]:
    """The key store of the settings' database; listing or revoking keys of a database that is not there is a
    typo (existing=True), so that refuses instead of creating it."""
    with opened_backend(settings, "keys work", existing=existing) as backend:
        yield backend.keys


def _row(key: ApiKey, width: int) -> str:
    access = "read-only" if key.read_only else "read-write"
    agent, access = ("(admin)", "web view") if key.agent_id is None else (key.agent_id, access)
    return (
        f"{key.id:<14}{agent:<24}{access:<12}{when(key.created_at):<22}{when(key.last_used_at):<22}"
        f"{when(key.revoked_at):<22}{_grants(key):<{width}}{key.label}"
    )


def _grants(key: ApiKey) -> str:
    """AGENT:access,... as `keys create --grant` takes them; '-' for none."""
    return ",".join(f"{g.agent_id}:{g.access.value}" for g in key.grants) or "-"


def _also(key: ApiKey) -> str:
    return f"; grants {_grants(key)}" if key.grants else ""


def _record(key: ApiKey) -> dict[str, object]:
    """A key for --json: every field but the secret's hash (never read), grants as {agent, access}."""
    return {
        "id": key.id, "agent": key.agent_id, "read_only": key.read_only, "label": key.label,
        "created_at": key.created_at, "last_used_at": key.last_used_at, "revoked_at": key.revoked_at,
        "grants": [{"agent": g.agent_id, "access": g.access.value} for g in key.grants],
    }  # fmt: skip
