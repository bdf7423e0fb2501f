"""What the inspection commands share: their options, how one runs (an Inspection, the library's messages in
the command line's terms) and the parsing of their version and line arguments."""

from __future__ import annotations

import contextlib
import re
import shlex
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import click

from scratchpad_core.bounds import MAX_LIST_LIMIT
from scratchpad_core.errors import ScratchpadError

from .inspect_store import inspecting
from .invocation import Invocation
from .root import Command, pass_invocation

F = TypeVar("F", bound=Callable[..., Any])
SECTION = "Inspection commands (read-only)"

agent_option = click.option("--agent", "-a", "agent_id", required=True, metavar="AGENT", help="The agent to look at.")
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON (for a script).")
path_argument = click.argument("path")
prefix_option = click.option("--prefix", metavar="PREFIX", help="Only paths that start with PREFIX.")


def paged(what: str) -> Callable[[F], F]:
    def decorate(command: F) -> F:
        command = click.option(
            "--cursor", metavar="CURSOR", help=f"Continue a listing of {what} where the last page's next_cursor says."
        )(command)
        return click.option(
            "--limit", metavar="N", type=click.IntRange(1, MAX_LIST_LIMIT), default=100, show_default=True,
            help=f"{what.capitalize()} on one page.",
        )(command)  # fmt: skip

    return decorate


def inspection_command(name: str) -> Callable[[Callable[..., None]], click.Command]:
    """A command that reads through an Inspection (passed first) and exits 0 once it has printed."""

    def decorate(function: Callable[..., None]) -> click.Command:
        def run(invocation: Invocation, /, **options: Any) -> int:
            with inspecting(invocation) as inspection, said_in_cli_terms(options):
                function(inspection, **options)
            return 0

        run.__doc__ = function.__doc__
        run.__click_params__ = function.__click_params__  # type: ignore[attr-defined]  # the options given to it
        command = click.command(name, cls=Command)(pass_invocation(run))
        command.section = SECTION  # type: ignore[attr-defined]  # where the root's help lists it
        return command

    return decorate


@contextlib.contextmanager
def said_in_cli_terms(options: dict[str, Any]) -> Iterator[None]:
    """A library refusal raised inside, reworded for this command line (in_cli_terms)."""
    try:
        yield
    except ScratchpadError as error:
        error.message = in_cli_terms(error.message, options)
        error.args = (error.message,)
        raise


def in_cli_terms(message: str, options: dict[str, Any]) -> str:
    """The library's message (worded for an MCP client: tools and their arguments) in this command line's terms:
    the command that lists what is there, the option that was wrong."""
    agent = shlex.quote(str(options.get("agent_id", "AGENT")))
    path = shlex.quote(str(options.get("path", "PATH")))
    words = {
        "Use list_files to see this agent's files.": f"`scratchpad-mcp files --agent {agent}` lists its files.",
        "Use list_logs to see this agent's logs.": f"`scratchpad-mcp logs --agent {agent}` lists its logs.",
        "Use list_versions to see which are.": f"`scratchpad-mcp versions --agent {agent} {path}` lists them.",
        "search literally with exact=true and regex=false.": "search literally with --exact instead of --regex.",
        "regex=true runs RE2": "--regex runs RE2",
        "use regex=false.": "drop --regex to search for the text as it is.",
        "use exact=true to find punctuation or symbols.": "pass --exact to find punctuation or symbols.",
        "Invalid cursor: pass the next_cursor of the previous page unchanged.": "Invalid --cursor: pass the cursor "
        "the previous page ended with, unchanged.",
        "Invalid since: pass the cursor a read_changes reply gave, unchanged (or omit it for a first sync).":
        "Invalid --since: pass the cursor the last `changes` printed, unchanged (or leave --since out).",
    }  # fmt: skip
    for said, meant in words.items():
        message = message.replace(said, meant)
    lines = re.fullmatch(r"Invalid start_line \d+: (.*) has (\d+) lines\.", message)
    if lines is not None:
        count = int(lines[2])
        message = f"Invalid --lines {options.get('span')}: {lines[1]} has {count} line{'' if count == 1 else 's'}."
    return message


class VersionNumber(click.ParamType[int]):
    """FROM or TO of a diff: a version number as `versions` lists them."""

    name = "version"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and value >= 1:
            return value
        text = str(value).strip()
        if not text.isdecimal() or int(text) < 1:
            what = param.human_readable_name.strip("[]") if param is not None else "a version"
            self.fail(
                f"{what} must be a version number (1, 2, ... as `versions` lists them), not {value!r}.", param, ctx
            )
        return int(text)


class VersionArgument(click.Argument):
    """An argument whose usage shows brackets (`[FROM [TO]]`) but whose errors name it plainly (FROM)."""

    @property
    def human_readable_name(self) -> str:
        return (self.metavar or self.name or "").strip("[]")

    def get_error_hint(self, ctx: click.Context | None) -> str:
        return f"'{self.human_readable_name}'"


def line_span(span: str | None) -> tuple[int, int | None]:
    """--lines FIRST:LAST as (first, last or None for the end)."""
    if span is None:
        return 1, None
    first, colon, last = span.partition(":")
    try:
        start, end = int(first or 1), (int(last) if last else None) if colon else int(first)
    except ValueError:
        start, end = 0, None
    if start < 1 or (end is not None and end < start):
        advice = "use FIRST:LAST with 1 <= FIRST <= LAST, e.g. 10:40, 10: or :40"
        raise click.BadParameter(f"{span!r}: {advice}.", param_hint="--lines")
    return start, end
