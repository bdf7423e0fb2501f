"""The reference backend's result texts, built from scratchpad's files instead of a folder's.

Each function mirrors a piece of anthropic.lib.tools' BetaLocalFilesystemMemoryTool line for line, so the
texts agree to the character; the reference is the authority when they differ.
"""

from __future__ import annotations

from collections.abc import Sequence

from anthropic.lib.tools import ToolError

from scratchpad_core.results import FileInfo

MAX_LINES = 999999
LINE_NUMBER_WIDTH = len(str(MAX_LINES))
DIRECTORY_SIZE = 4096  # what a small folder's st_size is on ext4 and most Linux file systems


def format_size(size: int) -> str:
    if size == 0:
        return "0B"
    i = min((size.bit_length() - 1) // 10, 3)
    scaled = size / (1024**i)
    unit = "BKMG"[i]
    return f"{int(scaled)}{unit}" if scaled == int(scaled) else f"{scaled:.1f}{unit}"


def listing(path: str, files: Sequence[FileInfo], prefix: str) -> str:
    """A folder two levels deep, hidden items (a name starting with '.') left out; files are those under `prefix`."""
    tree: dict[str, dict[str, int | None]] = {}  # name -> {child name -> size, None for a folder}
    sizes: dict[str, int | None] = {}
    for info in files:
        first, *rest = info.path[len(prefix) :].split("/")
        sizes[first] = None if rest else info.bytes
        if rest:
            tree.setdefault(first, {})[rest[0]] = None if rest[1:] else info.bytes
    lines = [f"{format_size(DIRECTORY_SIZE)}\t{path}"]
    for name in sorted(n for n in sizes if not n.startswith(".")):
        lines.append(_entry(path, name, sizes[name]))
        for child in sorted(c for c in tree.get(name, {}) if not c.startswith(".")):
            lines.append(_entry(path, f"{name}/{child}", tree[name][child]))
    header = f"Here're the files and directories up to 2 levels deep in {path}, excluding hidden items:"
    return f"{header}\n" + "\n".join(lines)


def _entry(path: str, relative: str, size: int | None) -> str:
    if size is None:
        return f"{format_size(DIRECTORY_SIZE)}\t{path}/{relative}/"
    return f"{format_size(size)}\t{path}/{relative}"


def file_view(path: str, content: str, view_range: Sequence[int] | None) -> str:
    lines = content.split("\n")
    if len(lines) > MAX_LINES:
        raise ToolError(f"File {path} exceeds maximum line limit of 999,999 lines.")
    display_lines = lines
    start_num = 1
    if view_range and len(view_range) == 2:
        start_line = max(1, view_range[0]) - 1
        end_line = len(lines) if view_range[1] == -1 else view_range[1]
        display_lines = lines[start_line:end_line]
        start_num = start_line + 1
    numbered = [f"{str(i + start_num).rjust(LINE_NUMBER_WIDTH)}\t{line}" for i, line in enumerate(display_lines)]
    return f"Here's the content of {path} with line numbers:\n" + "\n".join(numbered)


def replaced(path: str, content: str, old_str: str, new_str: str) -> tuple[str, str]:
    """(new content, result text) of a str_replace, or the reference's refusal."""
    count = content.count(old_str)
    if count == 0:
        raise ToolError(f"No replacement was performed, old_str `{old_str}` did not appear verbatim in {path}.")
    if count > 1:
        matching_lines: list[int] = []
        start = 0
        while (pos := content.find(old_str, start)) != -1:
            matching_lines.append(content[:pos].count("\n") + 1)
            start = pos + 1
        raise ToolError(
            f"No replacement was performed. Multiple occurrences of old_str `{old_str}` in lines: "
            f"{', '.join(map(str, matching_lines))}. Please ensure it is unique"
        )
    changed_line_index = content[: content.find(old_str)].count("\n")
    new_content = content.replace(old_str, new_str)
    new_lines = new_content.split("\n")
    context_start = max(0, changed_line_index - 2)
    context_end = min(len(new_lines), changed_line_index + 3)
    snippet = [
        f"{str(n).rjust(LINE_NUMBER_WIDTH)}\t{new_lines[n - 1]}" for n in range(context_start + 1, context_end + 1)
    ]
    text = "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
    return new_content, text + "\n".join(snippet)


def inserted(content: str, insert_line: int, insert_text: str) -> str:
    """The content with insert_text as a line before line insert_line + 1, or the reference's refusal."""
    lines = content.split("\n")
    if lines[-1] == "":
        lines.pop()
    if insert_line < 0 or insert_line > len(lines):
        raise ToolError(
            f"Invalid `insert_line` parameter: {insert_line}. It should be within the range [0, {len(lines)}]."
        )
    lines.insert(insert_line, insert_text.rstrip("\n"))
    new_content = "\n".join(lines)
    return new_content if new_content.endswith("\n") else new_content + "\n"
