"""What the inspection commands share: their options, how one runs (an Inspection) and the parsing of their
version and line arguments."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from scratchpad_core.bounds import MAX_LIST_LIMIT

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


def inspection_command(name: str) -> Callable[[Callable[..., int | None]], click.Command]:
    """A command that reads through an Inspection (passed first) and exits 0 once it has printed, or with the
    status it returns (search: 1 when nothing matched, as grep does)."""

    def decorate(function: Callable[..., int | None]) -> click.Command:
        def run(invocation: Invocation, /, **options: Any) -> int:
            with inspecting(invocation) as inspection:
                status = function(inspection, **options)
            return status or 0

        run.__doc__ = function.__doc__
        run.__click_params__ = function.__click_params__  # type: ignore[attr-defined]  # the options given to it
        command = click.command(name, cls=Command)(pass_invocation(run))
        command.section = SECTION  # type: ignore[attr-defined]  # where the root's help lists it
        return command

    return decorate


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
