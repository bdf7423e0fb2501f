"""The 16 MCP tools: what a model reads about each (arguments, description, hints) and the use case it runs.

Each tool is a module-level function, readable and callable alone: files (files.py), logs (logs.py) and the
overview (overview.py) take the Calls they run with (arguments.py) and their arguments, and return the use case.
TOOLS lists them in the order tools/list gives, with their hints, payload and speed; register_tools puts each on
the server with the server's own agent_id (required over stdio, optional with API keys).
"""

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from mcp.types import ToolAnnotations

from scratchpad_core import results as r
from scratchpad_core.actors import STDIO
from scratchpad_core.bounds import LOG_PAGE_SIZE, MAX_LIST_LIMIT, MAX_SEARCH_RESULTS, SUMMARY_THRESHOLD_CHARS
from scratchpad_core.limits import Limits, byte_size
from scratchpad_core.service import Scratchpad

from ..calls import UseCase
from . import files, logs, overview
from .arguments import DESTROY, IDEMPOTENT, KEEP, READ, REMOTE_READ, Calls, agent_argument

Builder = TypeVar("Builder", bound=Callable[..., UseCase[Any]])


class ToolRegistry(Protocol):
    """Where register_tools puts the tools: the server's tool decorator (ScratchpadServer.tool)."""

    def tool(
        self, *, annotations: ToolAnnotations, payload: Sequence[str] = (), slow: bool = False
    ) -> Callable[[Builder], Builder]: ...


INSTRUCTIONS = """\
Private, versioned storage for your notes, plans and logs; it survives between sessions. Paths are relative, \
of [a-zA-Z0-9/_.-], e.g. notes/plan.md. Save tokens: once you have read a file, read it again with \
since_version=<the version you hold> and format=compact to get only the changes; change files with edit_file \
or insert_lines instead of rewriting them; read long files in slices (start_line, max_lines); find by words with \
search_files; summarize_file gives the gist of a long file. Logs: append_log, then read_log with \
since_entry=<last_entry_id> (or tail) to catch up."""


@dataclass(frozen=True)
class Tool:
    """A tool in the table: its function, its hints (read-only ones take a read grant's agent_id), the arguments
    whose size is its payload, and whether it is slow (never answered without the SDK's pipeline)."""

    function: Callable[..., UseCase[Any]]
    annotations: ToolAnnotations
    payload: tuple[str, ...] = ()
    slow: bool = False


TOOLS = (
    Tool(files.write_file, IDEMPOTENT, ("content",)),
    Tool(files.read_file, READ),
    Tool(files.edit_file, KEEP, ("old_str", "new_str")),
    Tool(files.insert_lines, KEEP, ("text",)),
    Tool(files.list_versions, READ),
    Tool(files.restore_version, KEEP),
    Tool(files.delete_file, DESTROY),
    Tool(files.list_files, READ),
    Tool(files.search_files, READ, slow=True),
    Tool(logs.append_log, KEEP, ("entry",)),
    Tool(logs.read_log, READ),
    Tool(logs.list_logs, READ),
    Tool(logs.delete_log, DESTROY),
    Tool(files.summarize_file, REMOTE_READ, slow=True),
    Tool(overview.read_changes, READ),
    Tool(overview.get_usage_stats, READ),
)


def register_tools(
    mcp: ToolRegistry,
    store: Scratchpad,
    *,
    agent_id_required: bool = True,
    max_read_bytes: int | None = None,
    actor: Callable[[], str] = lambda: STDIO,
    spaces: Callable[[], list[r.Space] | None] = lambda: None,
) -> None:
    """The tools of TOOLS, on `mcp`, each bound to the Calls it runs with (arguments.Calls says what they are).

    The server runs each (ScratchpadServer.tool): who calls, read-only or not (from the annotations), and the
    payload's size. Docstrings are the descriptions a model reads, with {bounds} filled in from the live limits.
    """
    calls = Calls(store, max_read_bytes, actor, spaces)
    for tool in TOOLS:
        agent = agent_argument(agent_id_required, writes=not tool.annotations.read_only_hint)
        mcp.tool(annotations=tool.annotations, payload=tool.payload, slow=tool.slow)(bound(tool.function, calls, agent))


def bound(function: Callable[..., UseCase[Any]], calls: Calls, agent: Any) -> Callable[..., UseCase[Any]]:
    """`function` with its Calls given: the tool's own name, docstring and arguments, agent_id typed `agent`."""
    signature = inspect.signature(function)
    _, *arguments = signature.parameters.values()
    arguments = [a.replace(annotation=agent) if a.name == "agent_id" else a for a in arguments]

    def build(**given: Any) -> UseCase[Any]:
        return function(calls, **given)

    built: Any = build
    built.__name__ = built.__qualname__ = function.__name__
    built.__doc__ = function.__doc__
    built.__signature__ = signature.replace(parameters=arguments)
    return build


def tool_bounds(limits: Limits) -> dict[str, str]:
    """The numbers the tool descriptions state, from the live limits and the fixed bounds."""
    return {
        "max_versions": f"{limits.max_versions:,}",
        "max_file_bytes": byte_size(limits.max_file_bytes),
        "max_entry_bytes": byte_size(limits.max_log_entry_bytes),
        "max_list": f"{MAX_LIST_LIMIT:,}",
        "max_results": f"{MAX_SEARCH_RESULTS:,}",
        "log_page": f"{LOG_PAGE_SIZE:,}",
        "summary_chars": f"{SUMMARY_THRESHOLD_CHARS:,}",
    }
