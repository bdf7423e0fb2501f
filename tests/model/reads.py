"""The model's reading tools: what each reply holds, computed from the model's state (rules.py) alone.

Written for this test as the README states the reading tools, sharing no code with scratchpad. A reply is
given as the test compares it (view): timestamps, actors and operation counts are left out, fields that are
None are left out (as an MCP reply leaves them), and a compact diff is "applies" (the test checks that the
reply's hunks turn the model's old version into its current text) or [] when the texts are equal.

- read_file: the current content or a retained version (1..current; a pruned one is NotFound), or a slice:
  lines start_line (default 1) to start_line + max_lines - 1, with total_lines; a start past the last line
  is refused. since_version (1..current): unchanged at the current version, the whole content with
  version_too_old when that version is no longer retained, else the diff;
- list_files: live files by path with the prefix, `limit` a page, next_cursor the page's last path;
- read_log: the entries after since_entry (at most `limit`), has_more, last_entry_id the page's last id (or
  since_entry), total the entries after since_entry; an empty or deleted log is an empty page;
- list_logs: logs holding entries, by path; list_versions: each retained version's size, lines and sha256;
- get_usage_stats: the counters and quotas; search_files (exact): lines holding the query (case folded
  unless case_sensitive), in path then line order, then log entries with a line holding it, in path then entry
  order, at most max_results in all, has_more when there were more.
"""

from __future__ import annotations

import hashlib
from typing import Any

from scratchpad_core.errors import InvalidInput, NotFound
from scratchpad_core.limits import Limits

from .rules import Agent, File, Refused, Reply, size, split_lines

APPLIES = "applies"


def read(limits: Limits, a: Agent, tool: str, args: dict[str, Any]) -> Reply:
    """The view of a reading tool's reply, or Refused."""
    reply: Reply = globals()[tool](limits, a, **args)
    return reply


def _live(a: Agent, path: str) -> File:
    f = a.files.get(path)
    if f is None or not f.versions:
        raise Refused(NotFound)
    return f


def read_file(limits: Limits, a: Agent, path: str, since_version: int | None = None, format: str = "chunks",
              version: int | None = None, start_line: int | None = None,
              max_lines: int | None = None) -> Reply:  # fmt: skip
    if (start_line is not None and start_line < 1) or (max_lines is not None and max_lines < 1):
        raise Refused(InvalidInput)
    f = _live(a, path)
    current, content = f.current, f.content or ""
    if since_version is not None:
        assert format == "compact", "the model reads compact diffs"
        if not 1 <= since_version <= current:
            raise Refused(InvalidInput)
        if since_version == current:
            return {"current_version": current, "unchanged": True, "diff": []}
        if since_version not in f.versions:
            return {"current_version": current, "content": content, "version_too_old": True}
        return {"current_version": current, "diff": APPLIES if f.versions[since_version] != content else []}
    if version is not None:
        if not 1 <= version <= current:
            raise Refused(InvalidInput)
        if version not in f.versions:
            raise Refused(NotFound)
        content = f.versions[version]
    whole = {"path": path, "current_version": current, "content": content}
    if version is not None:
        whole["version"] = version
    if start_line is None and max_lines is None:
        return whole
    lines = split_lines(content)
    start = start_line or 1
    if start > max(len(lines), 1):
        raise Refused(InvalidInput)
    end = len(lines) if max_lines is None else min(len(lines), start + max_lines - 1)
    return {**whole, "content": "".join(lines[start - 1 : end]), "start_line": start, "end_line": end,
            "total_lines": len(lines)}  # fmt: skip


def list_files(limits: Limits, a: Agent, prefix: str | None = None, limit: int | None = None,
               cursor: str | None = None) -> Reply:  # fmt: skip
    live = sorted((p, f) for p, f in a.files.items() if f.versions and p.startswith(prefix or ""))
    after = [(p, f) for p, f in live if cursor is None or p > cursor]
    page = after if limit is None else after[:limit]
    files = [{"path": p, "current_version": f.current, "bytes": size(f.content or "")} for p, f in page]
    reply: Reply = {"files": files, "count": len(files)}
    if len(page) < len(after):
        reply["next_cursor"] = page[-1][0]
    return reply


def read_log(limits: Limits, a: Agent, path: str, since_entry: int | None = None, limit: int | None = None) -> Reply:
    log = a.logs.get(path)
    after = since_entry or 0
    entries = [(n, e) for n, e in (log.entries if log else []) if n > after]
    page = entries if limit is None else entries[:limit]
    return {"entries": [[n, e] for n, e in page], "total": len(entries),
            "last_entry_id": page[-1][0] if page else after, "has_more": len(page) < len(entries)}  # fmt: skip


def list_logs(limits: Limits, a: Agent, prefix: str | None = None) -> Reply:
    held = [(p, g) for p, g in sorted(a.logs.items()) if g.entries and p.startswith(prefix or "")]
    logs = [{"path": p, "entries": len(g.entries), "bytes": sum(size(e) for _, e in g.entries),
             "last_entry_id": g.last} for p, g in held]  # fmt: skip
    return {"logs": logs, "count": len(logs)}


def list_versions(limits: Limits, a: Agent, path: str) -> Reply:
    f = _live(a, path)
    versions = [{"version": n, "bytes": size(c), "lines": len(split_lines(c)), "sha256": sha256(c)}
                for n, c in sorted(f.versions.items())]  # fmt: skip
    return {"path": path, "current_version": f.current, "versions": versions}


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def get_usage_stats(limits: Limits, a: Agent) -> Reply:
    used = a.usage()
    return {"file_count": used["files"], "log_count": used["entries"], "logs": used["logs"],
            "total_bytes": used["bytes"],
            "quota": {"bytes": limits.quota_bytes, "files": limits.quota_files,
                      "log_entries": limits.quota_log_entries}}  # fmt: skip


def search_files(limits: Limits, a: Agent, query: str, prefix: str | None = None, max_results: int = 10,
                 case_sensitive: bool = False, exact: bool = True) -> Reply:  # fmt: skip
    def holds(line: str) -> bool:
        return query in line if case_sensitive else query.lower() in line.lower()

    found = [{"path": p, "line": n, "text": line.removesuffix("\n")}
             for p, f in sorted(a.files.items()) if f.versions and p.startswith(prefix or "")
             for n, line in enumerate(split_lines(f.content or ""), 1) if holds(line.removesuffix("\n"))]  # fmt: skip

    def entry_holds(entry: str) -> bool:  # a line of it does; an empty entry has no line
        return bool(entry) and any(holds(line.removesuffix("\r")) for line in entry.split("\n"))

    found += [{"path": p, "entry": n, "text": entry}  # then log entries holding such a line (short: shown whole)
              for p, g in sorted(a.logs.items()) if p.startswith(prefix or "")
              for n, entry in g.entries if entry_holds(entry)]  # fmt: skip
    matches = found[:max_results]
    reply: Reply = {"matches": matches, "count": len(matches), "has_more": len(found) > len(matches)}
    if not reply["has_more"]:  # how many files a search that stopped early went through is not the README's
        reply["files_searched"] = sum(1 for p, f in a.files.items() if f.versions and p.startswith(prefix or ""))
    return reply
