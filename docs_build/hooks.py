"""MkDocs hooks (mkdocs.yml): markers in the pages replaced by text generated from the code at build time, and
the benchmark plots made from docs/figures.toml, so neither can drift from what they describe.

    <!-- generated: tools -->   every tool as the server defines it: annotations, description, arguments, reply
    <!-- generated: tools-summary -->  one row a tool: its arguments and reply fields, from the same schemas
    <!-- generated: cli -->     every command of scratchpad-mcp with its --help, from the click commands

No network: the server is built in process on a memory:// store; the plots are drawn by matplotlib (Agg, SVG).
"""

from __future__ import annotations

import io
import json
import tomllib
from pathlib import Path
from typing import Any

import click
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

FIGURES = Path(__file__).resolve().parents[1] / "docs" / "figures.toml"
PLOTS = {"per-call-ratios.svg": "ratios", "search-time-by-store-size.svg": "search_scale"}


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if "<!-- generated: tools-summary -->" in markdown:
        markdown = markdown.replace("<!-- generated: tools-summary -->", tools_summary())
    if "<!-- generated: tools -->" in markdown:
        markdown = markdown.replace("<!-- generated: tools -->", tools_reference())
    if "<!-- generated: cli -->" in markdown:
        markdown = markdown.replace("<!-- generated: cli -->", cli_reference())
    return markdown


def on_files(files: Files, config: MkDocsConfig) -> Files:
    figures = tomllib.loads(FIGURES.read_text(encoding="utf-8"))
    for name, key in PLOTS.items():
        files.append(File.generated(config, f"img/{name}", content=PLOT_MAKERS[key](figures[key])))
    return files


# ---- the tools, from the server's own definitions ----


def listed_tools() -> tuple[str, list[Any]]:
    """The server's instructions and its tools, as `tools/list` gives them (stdio, default settings)."""
    import anyio

    from scratchpad_adapters import open_store
    from scratchpad_mcp.server import build_server
    from scratchpad_mcp.server.calls import CallRunner, TrustedCaller

    with open_store("memory://") as store:
        server = build_server(store, CallRunner(TrustedCaller()))
        return server.instructions or "", anyio.run(server.list_tools)


def tools_summary() -> str:
    """A table: each tool, its arguments (`?` optional, `=` its default) and its reply's fields (`?` not always)."""
    rows = ["| tool | arguments | returns |", "|---|---|---|"]
    for tool in listed_tools()[1]:
        arguments = ", ".join(
            argument_word(name, field, tool.input_schema) for name, field in fields(tool.input_schema)
        )
        reply = tool.output_schema or {}
        returns = ", ".join(name + ("" if name in reply.get("required", []) else "?") for name, _ in fields(reply))
        rows.append(f"| [`{tool.name}`](#{tool.name}) | {cell(arguments)} | {cell(returns)} |")
    return "\n".join(rows) + "\n"


def fields(schema: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return list(schema.get("properties", {}).items())


def argument_word(name: str, field: dict[str, Any], schema: dict[str, Any]) -> str:
    if "default" in field and field["default"] is not None:
        return f"{name}={json.dumps(field['default'])}"
    return name if name in schema.get("required", []) else f"{name}?"


def tools_reference() -> str:
    instructions, tools = listed_tools()
    parts = ["The server's instructions, sent once at the start of a session:\n", quoted(instructions)]
    for tool in tools:
        parts.append(f"### `{tool.name}`\n")
        parts.append(hints(tool.annotations))
        parts.append(quoted(tool.description or ""))
        parts.append(schema_table("Arguments", tool.input_schema, required_column=True))
        if tool.output_schema:
            parts.append(schema_table("Reply (structured content)", tool.output_schema, required_column=False))
    return "\n".join(parts)


def quoted(text: str) -> str:
    return "".join(f"> {line}\n" if line else ">\n" for line in text.strip().splitlines()) + "\n"


def hints(annotations: Any) -> str:
    if annotations is None:
        return ""
    said = [
        word
        for word, on in (
            ("read-only", annotations.read_only_hint),
            ("destructive", annotations.destructive_hint),
            ("idempotent", annotations.idempotent_hint),
            ("open world", annotations.open_world_hint),
        )
        if on
    ]
    return f"*{', '.join(said)}*\n\n" if said else ""


def schema_table(title: str, schema: dict[str, Any], *, required_column: bool) -> str:
    required = set(schema.get("required", []))
    head = "| name | type | required | default | description |\n|---|---|---|---|---|\n"
    if not required_column:
        head = "| name | type | always | description |\n|---|---|---|---|\n"
    rows = []
    for name, field in schema.get("properties", {}).items():
        description = cell(field.get("description", ""))
        kind = cell(type_of(field, schema.get("$defs", {})))
        mark = "yes" if name in required else ""
        if required_column:
            default = f"`{json.dumps(field['default'])}`" if "default" in field else ""
            rows.append(f"| `{name}` | {kind} | {mark} | {default} | {description} |")
        else:
            rows.append(f"| `{name}` | {kind} | {mark} | {description} |")
    return f"**{title}**\n\n{head}" + "\n".join(rows) + "\n"


def type_of(field: dict[str, Any], defs: dict[str, Any]) -> str:
    if "$ref" in field:
        name = field["$ref"].rsplit("/", 1)[-1]
        fields = ", ".join(defs.get(name, {}).get("properties", {}))
        return f"{name} {{{fields}}}" if fields else name
    if "anyOf" in field:
        return " or ".join(type_of(option, defs) for option in field["anyOf"])
    if "enum" in field:
        return " \\| ".join(f'"{value}"' for value in field["enum"])
    kind = field.get("type", "any")
    if kind == "array" and "items" in field:
        return f"array of {type_of(field['items'], defs)}"
    return str(kind)


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


# ---- the command line, from its click commands ----


def cli_reference() -> str:
    from scratchpad_mcp.cli.main import command_line

    root = command_line()
    parts: list[str] = []
    walk(root, ["scratchpad-mcp"], None, parts)
    return "\n".join(parts)


def walk(command: click.Command, words: list[str], parent: click.Context | None, parts: list[str]) -> None:
    # the command's own context (its settings: `usage:`, -h/--help, 110 columns), as a wide terminal shows it
    # (click leaves 2 columns of a terminal's width unused, not of a width given)
    width = {"terminal_width": command.context_settings["max_content_width"] - 2} if parent is None else {}
    context = command.context_class(command, info_name=words[-1], parent=parent, **width, **command.context_settings)
    level = "#" * min(len(words) + 1, 4)
    parts.append(f"{level} `{' '.join(words)}`\n")
    parts.append("```text\n" + command.get_help(context).rstrip() + "\n```\n")
    if isinstance(command, click.Group):
        for name in command.list_commands(context):
            sub = command.get_command(context, name)
            if sub is not None and not sub.hidden:
                walk(sub, [*words, name], context, parts)


# ---- the benchmark plots, from docs/figures.toml ----


def ratios_plot(figures: dict[str, Any]) -> str:
    import matplotlib as mpl

    mpl.use("Agg")
    from matplotlib import pyplot as plt

    rows = figures["rows"]
    labels = [row["operation"] for row in rows]
    runs = len(rows[0]["runs"])
    height = 0.8 / runs
    figure, axes = plt.subplots(figsize=(8, 0.5 * len(rows) + 1.4))
    for run in range(runs):
        values = [row["runs"][run] for row in rows]
        offsets = [y + (run - (runs - 1) / 2) * height for y in range(len(rows))]
        axes.barh(
            offsets,
            values,
            height=height,
            label=f"run {run + 1}",
            color=["#2e7d32" if value >= 1 else "#c62828" for value in values],
            alpha=1 - 0.35 * run,
        )
        for y, value in zip(offsets, values, strict=True):
            axes.text(value, y, f" {value:g}×", va="center", fontsize=7)
    axes.set_xscale("log")
    ticks = [0.5, 1, 2, 5, 10, 20]
    axes.set_xticks(ticks, [f"{tick:g}×" for tick in ticks])
    axes.axvline(1.0, color="#333333", linewidth=1)
    axes.set_yticks(range(len(rows)), labels, fontsize=8)
    axes.invert_yaxis()
    axes.set_xlabel(figures["xlabel"])
    axes.set_title(figures["title"], fontsize=10)
    return svg(figure)


def search_scale_plot(figures: dict[str, Any]) -> str:
    import matplotlib as mpl

    mpl.use("Agg")
    from matplotlib import pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 4.2))
    sizes = figures["store_mib"]
    for series in figures["series"]:
        axes.plot(sizes, series["ms"], marker="o", label=series["label"])
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xticks(sizes, [f"{size:g} MiB" for size in sizes])
    axes.set_ylabel("median search, ms (log scale)")
    axes.set_xlabel("what the agent stores")
    axes.set_title(figures["title"], fontsize=10)
    axes.legend(fontsize=7)
    return svg(figure)


def svg(figure: Any) -> str:
    from matplotlib import pyplot as plt

    out = io.StringIO()
    figure.tight_layout()
    figure.savefig(out, format="svg", metadata={"Date": None})  # no date: the same figures, the same file
    plt.close(figure)
    return out.getvalue()


PLOT_MAKERS = {"ratios": ratios_plot, "search_scale": search_scale_plot}
