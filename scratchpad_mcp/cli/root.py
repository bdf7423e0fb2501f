"""The command tree (click): the root group, its options, and where each module's commands join it.

Each group lives with its work: `db`, `export` and `import` in admin, `keys` in keys, the read-only
inspection commands in inspection, `web` in web. A command is made with `@<group>.command()` on a `Group` from
here (so its help reads like the rest), takes the run's Invocation with `@pass_invocation`, calls `invocation.begin()`
before any work and returns its exit code. Failures are raised, never printed: cli.main words them."""

from __future__ import annotations

import click

from ..server import package_version
from .invocation import Invocation


class HelpFormatter(click.HelpFormatter):
    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        super().write_usage(prog, args, "usage: " if prefix is None else prefix)


class Context(click.Context):
    formatter_class = HelpFormatter


class Command(click.Command):
    context_class = Context


class Group(click.Group):
    """A group whose commands and subgroups (made with .command() and .group()) share this help style."""

    context_class = Context
    command_class = Command
    group_class = type


class Root(Group):
    """The root group, whose help lists its commands by section (a command's `section` attribute)."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        width = formatter.width - 6 - max(map(len, names), default=0)
        sections: dict[str, list[tuple[str, str]]] = {"Commands": []}
        for name in names:
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                section = sections.setdefault(getattr(command, "section", "Commands"), [])
                section.append((name, command.get_short_help_str(width)))
        for title, rows in sections.items():
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


pass_invocation = click.make_pass_decorator(Invocation)
HELP = {"help_option_names": ["-h", "--help"], "max_content_width": 110}


@click.group(cls=Root, invoke_without_command=True, context_settings=HELP)
@click.version_option(package_version(), "--version", prog_name="scratchpad-mcp", message="%(prog)s %(version)s")
@click.option(
    "--database", metavar="URL", help="SQLAlchemy URL; overrides SCRATCHPAD_DATABASE_URL and SCRATCHPAD_DB_PATH."
)
@click.pass_context
def root(context: click.Context, database: str | None) -> int | None:
    """Versioned, token-efficient storage for AI agents over MCP.

    With no command: serve (stdio, or streamable HTTP with MCP_TRANSPORT=http). Settings come from SCRATCHPAD_*
    variables; --database goes before the command.
    """
    invocation = context.ensure_object(Invocation)
    invocation.option = database
    if context.invoked_subcommand is None:
        return invocation.serve()
    return None


@root.command()
@pass_invocation
def serve(invocation: Invocation) -> int:
    """Serve MCP (the default)."""
    return invocation.serve()
