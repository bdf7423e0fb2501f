"""`scratchpad-mcp changes --agent A [--since CURSOR] [--prefix P]`: read_changes on the command line (issue 31).

One line per item (what changed, where), every page of the round, then the cursor to pass as --since next time;
--json prints each item as a JSON line and ends with {"cursor": ...}.
"""

from __future__ import annotations

from typing import Any

import click

from scratchpad_core.visible_text import screen_line

from .inspect_options import agent_option, inspection_command, json_option, prefix_option
from .inspect_output import emit_json
from .inspect_store import Inspection


@inspection_command("changes")
@agent_option
@click.option("--since", metavar="CURSOR", help="The cursor the last `changes` printed; leave out: everything.")
@prefix_option
@json_option
def changes(inspection: Inspection, agent_id: str, since: str | None, prefix: str | None, as_json: bool) -> None:
    """Print what changed in files and logs since a cursor.

    Each line: created, changed (versions and lines added/removed), deleted, renamed, redacted or too old for a
    file; new entries of a log (each on its own line), or deleted. The last line is the cursor to pass as
    --since next time.
    """
    store, agent_id = inspection.store, inspection.agent(agent_id)
    cursor = since
    while True:
        page = store.read_changes(agent_id, cursor, prefix)
        for item in page.items:
            if as_json:
                emit_json(item)
            else:
                for line in describe(item):
                    click.echo(line)
        cursor = page.cursor
        if not page.has_more:
            break
    if as_json:
        emit_json({"cursor": cursor})
    else:
        click.echo(f"cursor: {cursor}")


def describe(item: dict[str, Any]) -> list[str]:
    """An item as lines a person reads (paths and entries screened of control characters)."""
    if "log" in item:
        path = screen_line(item["log"])
        if item.get("deleted"):
            return [f"deleted log  {path}"]
        head = f"log  {path}: {len(item['entries'])} new"
        if item.get("created"):
            head += " (begun again)"
        if item.get("too_old"):
            head += f" (older entries dropped; first kept #{item['first_entry_id']})"
        entries = (f"  #{e['id']}  {screen_line(e['by'] or '-')}  {screen_line(e['entry'])}" for e in item["entries"])
        return [head, *entries]
    path = screen_line(item["path"])
    if item.get("deleted"):
        return [f"{'expired' if item.get('expired') else 'deleted'}  {path}"]
    if "diff" in item:
        added = sum(len(h["add"]) for h in item["diff"])
        removed = sum(h["remove"] for h in item["diff"])
        return [f"changed  {path}  v{item['from_version']} -> v{item['to_version']}  +{added} -{removed} lines"]
    if "renamed_from" in item:
        return [f"renamed  {screen_line(item['renamed_from'])} -> {path}  v{item['version']}"]
    kind = "redacted" if item.get("redacted") else "too old, whole" if item.get("too_old") else "created"
    return [f"{kind}  {path}  v{item['version']}  {len(item['content'].encode()):,} B"]
