"""`scratchpad-mcp retention ...` (set, list, clear the rules of scratchpad_core.retention.rules) and `db prune`
(apply them: entries past their age, logs far past a new rule). A rule applies from the next call on every
replica: the servers read the rules in each append's transaction."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from typing import Any

import click

from scratchpad_core.errors import NotFound
from scratchpad_core.retention.change import rule_change
from scratchpad_core.retention.rules import FILES as FILES_KIND
from scratchpad_core.retention.rules import RetentionRule, format_duration
from scratchpad_core.service import Scratchpad

from ..settings import Settings
from .admin import db, opened_backend
from .invocation import Invocation
from .root import Group, pass_invocation

AGENT = click.option("--agent", metavar="AGENT", required=True, help="The agent whose logs (or files) it governs.")
LOGS = click.option("--logs", metavar="PREFIX", help="Logs whose path starts with PREFIX (a log's own path is one).")
FILES = click.option("--files", metavar="PREFIX", help="Files whose path starts with PREFIX.")


@click.group(cls=Group)
def retention() -> None:
    """Retention rules: how many log entries, or how old, an agent keeps."""


NONE = "none"  # a limit given as this is removed from the rule


class _Limit(click.ParamType[int | str]):
    """A limit of a rule (a whole number of entries, or a duration, checked by the core), or `none`: remove it."""

    def __init__(self, name: str, whole: bool) -> None:
        self.name, self._whole = name, whole

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int | str:
        text = str(value).strip()
        if text.lower() == NONE or not self._whole:
            return NONE if text.lower() == NONE else text
        try:
            return int(text)
        except ValueError:
            self.fail(f"{value!r} is not a whole number (or none, to remove the limit).", param, ctx)


@retention.command("set")
@AGENT
@LOGS
@FILES
@click.option(
    "--keep-entries",
    metavar="N|none",
    type=_Limit("N", whole=True),
    help="Keep the newest N entries of each log; none removes this limit from the rule.",
)
@click.option(
    "--max-age",
    metavar="DURATION|none",
    type=_Limit("DURATION", whole=False),
    help="Drop entries older than this (files: expire this long after their last write): 90s, 15m, 12h, 30d; "
    "none removes this limit from the rule.",
)
@pass_invocation
def set_rule(
    invocation: Invocation,
    agent: str,
    logs: str | None,
    files: str | None,
    keep_entries: int | str | None,
    max_age: str | None,
) -> int:
    """Set the rule on an agent's logs (or files) under a prefix, and print it; it applies from the next call.

    On a prefix that already has a rule, only the limits given change (the others stay); `none` removes one.
    A rule keeps at least one limit: to remove the whole rule, `retention clear`.
    """
    settings = invocation.begin()
    remove = [name for name, value in (("keep_entries", keep_entries), ("max_age", max_age)) if value == NONE]
    keep = keep_entries if isinstance(keep_entries, int) else None
    age = None if max_age == NONE else max_age
    rule_change(agent, logs=logs, files=files, keep_entries=keep, max_age=age, remove=remove)  # before any change
    with _store(settings, existing=False) as store:
        rule = store.change_retention(agent, logs=logs, files=files, keep_entries=keep, max_age=age, remove=remove)
    print(f"set: {rule.describe()}")
    if rule.kind == FILES_KIND:
        print("scratchpad-mcp: a file under it reads as deleted once expired; `db prune` (or the server's background "
              "prune) removes it for good.", file=sys.stderr)  # fmt: skip
    else:
        print("scratchpad-mcp: a log past it drops a batch at each append; `db prune` catches up at once.",
              file=sys.stderr)  # fmt: skip
    return 0


@retention.command("list")
@click.option("--agent", metavar="AGENT", help="Only this agent's rules.")
@click.option("--json", "as_json", is_flag=True, help="One JSON array (max_age in seconds).")
@pass_invocation
def list_rules(invocation: Invocation, agent: str | None, as_json: bool) -> int:
    """Show the retention rules."""
    with _store(invocation.begin()) as store:
        rules = store.list_retention(agent)
    if as_json:
        print(json.dumps([_plain(rule) for rule in rules], ensure_ascii=False))
        return 0
    print(f"{'agent':<24}{'kind':<7}{'prefix':<32}{'keep entries':<14}max age")
    for rule in rules:
        keep = "-" if rule.keep_entries is None else f"{rule.keep_entries:,}"
        age = "-" if rule.max_age is None else format_duration(rule.max_age)
        print(f"{rule.agent_id:<24}{rule.kind:<7}{rule.prefix or '(all)':<32}{keep:<14}{age}")
    return 0


@retention.command("clear")
@AGENT
@LOGS
@FILES
@pass_invocation
def clear_rule(invocation: Invocation, agent: str, logs: str | None, files: str | None) -> int:
    """Remove the rule on an agent's logs (or files) under a prefix; nothing is dropped from then on."""
    with _store(invocation.begin()) as store:
        cleared = store.clear_retention(agent, logs=logs, files=files)
    kind, prefix = ("logs", logs) if logs is not None else ("files", files)
    if not cleared:
        raise NotFound(f"No retention rule on {kind} {prefix!r} of agent {agent!r}; `retention list` shows the rules.")
    print(f"cleared: {agent} {kind} {prefix or '(all)'}")
    return 0


@db.command("prune")
@pass_invocation
def prune(invocation: Invocation) -> int:
    """Apply the retention rules now: entries past their age, logs far past a new rule, expired files; then every
    agent's search index catches up, so that what was dropped leaves it too."""
    with _store(invocation.begin()) as store:
        done = store.prune()
        store.catch_up_all_indexes()  # what it dropped leaves the search index now, not at the next search
    emptied = f"; {done.logs_emptied:,} emptied (every entry past its age)" if done.logs_emptied else ""
    dropped = f"{done.entries_dropped:,} entries ({done.bytes_freed:,} bytes)"
    files = f"; {done.files_expired:,} expired files deleted ({done.file_bytes_freed:,} bytes)" * bool(
        done.files_expired
    )
    print(f"pruned {dropped} of {done.logs_trimmed:,} logs{emptied}{files}")
    return 0


@contextlib.contextmanager
def _store(settings: Settings, *, existing: bool = True) -> Iterator[Scratchpad]:
    with opened_backend(settings, "retention rules work", existing=existing) as backend:
        yield backend.store


def _plain(rule: RetentionRule) -> dict[str, object]:
    return {
        "agent_id": rule.agent_id,
        "kind": rule.kind,
        "prefix": rule.prefix,
        "keep_entries": rule.keep_entries,
        "max_age": rule.max_age,
    }
