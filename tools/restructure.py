"""Move scratchpad's modules into rooms (issue 30), mechanically and idempotently.

Run from the repository's top: `python tools/restructure.py` (add `--dry-run` to only print the plan). It

1. creates each room (a subpackage) with an `__init__.py` saying what lives there;
2. `git mv`s each module to its room (a module already moved is left alone);
3. rewrites every import of a moved module in the repository's Python files (absolute, relative, `import a.b as c`,
   `from package import module`), re-rendering relative imports from a moved file's new place;
4. rewrites dotted names and file paths in text (mock targets, pyproject, docs, alembic's env);
5. marks private (a leading underscore) the module-level functions that only their own module uses;
6. sorts and formats the files it changed (ruff).

Running it again changes nothing; running it on a newer main moves what others added under the old names too.
Standard library only (it runs before the environment is synced).
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("scratchpad_core", "scratchpad_adapters", "scratchpad_mcp")

# ---------------------------------------------------------------------------------------------------------------
# The rooms: new package -> what its __init__ says.
ROOMS: dict[str, str] = {
    "scratchpad_adapters.sql.connection": (
        "Connections to SQLite and PostgreSQL: engines and their URLs, running statements, read-only opening,\n"
        "the held connection of `:memory:`, writer turns, the call watchdog and the translation of driver errors.\n"
        "Uses only the standard library, SQLAlchemy and scratchpad_adapters.timeouts."
    ),
    "scratchpad_adapters.sql.schema": (
        "The schema: its tables (SQLAlchemy Core) and bringing a database to the migrations' head (alembic)."
    ),
    "scratchpad_adapters.sql.repositories": (
        "The repositories the unit of work hands out (files, logs, requests, retention, summaries, usage, keys)\n"
        "and the queries and upserts they share. They use connection and schema."
    ),
    "scratchpad_adapters.sql.search": (
        "The word index in SQL: its terms, batched writes, reads, building it for a store and re-terming it.\n"
        "Uses connection, schema and the log repository."
    ),
    "scratchpad_adapters.sql.integrity": (
        "`db check`: the rules a consistent database keeps (counts, content, retention, search index), each a query\n"
        "that names what breaks it. Uses connection, schema and search."
    ),
    "scratchpad_adapters.sql.transfer": (
        "Moving data out and in: export to a file, import from one (with its record checks), and scrubbing a\n"
        "database file of deleted content. Uses connection, schema, repositories and search."
    ),
    "scratchpad_core.search": (
        "Search's rules: how text becomes words (the analyzer's port), index rows and statistics, and how a match is\n"
        "ranked. Standard library only; the use case that answers a search is in usecases/search/."
    ),
    "scratchpad_core.retention": (
        "Retention's rules: what a rule is, which rule covers a path, when a version or an entry has aged out, and\n"
        "what a change of rules means. The use case is scratchpad_core.usecases.retention."
    ),
    "scratchpad_core.redaction": (
        "Redaction's rules: what a secret may be, the marker that replaces it, and how it is found and removed in\n"
        "stored text (as written, and in the forms a request record stores). The use case is in usecases/redaction/."
    ),
    "scratchpad_core.access": (
        "Who may do what: API keys (made, hashed, checked) and the grants that give a key access to spaces."
    ),
    "scratchpad_core.usecases.search": (
        "The search use case: keeping the index in step with writes (indexer), the overlay of what is pending, the\n"
        "word search and its passages, and the regex scan. Uses the rules in scratchpad_core.search."
    ),
    "scratchpad_core.usecases.redaction": (
        "Redaction: removing a secret from every version and entry that holds it (the use case) and finding them\n"
        "(scan). The rules are in scratchpad_core.redaction."
    ),
}

# Modules whose room is not given by a prefix rule below: old -> new.
EXPLICIT: dict[str, str] = {
    # scratchpad_adapters.sql
    "scratchpad_adapters.sql.tables": "scratchpad_adapters.sql.schema.tables",
    "scratchpad_adapters.sql.migrate": "scratchpad_adapters.sql.schema.migrate",
    "scratchpad_adapters.sql.integrity": "scratchpad_adapters.sql.integrity.checking",
    "scratchpad_adapters.sql.exporter": "scratchpad_adapters.sql.transfer.exporter",
    "scratchpad_adapters.sql.importer": "scratchpad_adapters.sql.transfer.importer",
    "scratchpad_adapters.sql.import_records": "scratchpad_adapters.sql.transfer.import_records",
    "scratchpad_adapters.sql.scrub": "scratchpad_adapters.sql.transfer.scrub",
    "scratchpad_adapters.sql.keys": "scratchpad_adapters.sql.repositories.keys",
    "scratchpad_adapters.sql.queries": "scratchpad_adapters.sql.repositories.queries",
    "scratchpad_adapters.sql.upserts": "scratchpad_adapters.sql.repositories.upserts",
    "scratchpad_adapters.sql.agent_activity": "scratchpad_adapters.sql.repositories.agent_activity",
    "scratchpad_adapters.sql.engine": "scratchpad_adapters.sql.connection.engine",
    "scratchpad_adapters.sql.errors": "scratchpad_adapters.sql.connection.errors",
    "scratchpad_adapters.sql.execution": "scratchpad_adapters.sql.connection.execution",
    "scratchpad_adapters.sql.held": "scratchpad_adapters.sql.connection.held",
    "scratchpad_adapters.sql.read_only": "scratchpad_adapters.sql.connection.read_only",
    "scratchpad_adapters.sql.sqlite_files": "scratchpad_adapters.sql.connection.sqlite_files",
    "scratchpad_adapters.sql.turns": "scratchpad_adapters.sql.connection.turns",
    "scratchpad_adapters.sql.urls": "scratchpad_adapters.sql.connection.urls",
    "scratchpad_adapters.sql.watchdog": "scratchpad_adapters.sql.connection.watchdog",
    "scratchpad_adapters.sql.file_ages": "scratchpad_adapters.sql.repositories.file_ages",
    "scratchpad_adapters.sql.file_moves": "scratchpad_adapters.sql.repositories.file_moves",
    "scratchpad_adapters.sql.file_repository": "scratchpad_adapters.sql.repositories.file_repository",
    "scratchpad_adapters.sql.log_repository": "scratchpad_adapters.sql.repositories.log_repository",
    "scratchpad_adapters.sql.request_repository": "scratchpad_adapters.sql.repositories.request_repository",
    "scratchpad_adapters.sql.retention_repository": "scratchpad_adapters.sql.repositories.retention_repository",
    "scratchpad_adapters.sql.summary_repository": "scratchpad_adapters.sql.repositories.summary_repository",
    "scratchpad_adapters.sql.usage_repository": "scratchpad_adapters.sql.repositories.usage_repository",
    "scratchpad_adapters.sql.search_batch": "scratchpad_adapters.sql.search.batch",
    "scratchpad_adapters.sql.search_build": "scratchpad_adapters.sql.search.build",
    "scratchpad_adapters.sql.search_index": "scratchpad_adapters.sql.search.index",
    "scratchpad_adapters.sql.search_reads": "scratchpad_adapters.sql.search.reads",
    "scratchpad_adapters.sql.search_reterm": "scratchpad_adapters.sql.search.reterm",
    "scratchpad_adapters.sql.search_terms": "scratchpad_adapters.sql.search.terms",
    "scratchpad_adapters.sql.integrity_content": "scratchpad_adapters.sql.integrity.content",
    "scratchpad_adapters.sql.integrity_counts": "scratchpad_adapters.sql.integrity.counts",
    "scratchpad_adapters.sql.integrity_retention": "scratchpad_adapters.sql.integrity.retention",
    "scratchpad_adapters.sql.integrity_rules": "scratchpad_adapters.sql.integrity.rules",
    "scratchpad_adapters.sql.integrity_search": "scratchpad_adapters.sql.integrity.search",
    # scratchpad_core
    "scratchpad_core.words": "scratchpad_core.search.words",
    "scratchpad_core.indexing": "scratchpad_core.search.indexing",
    "scratchpad_core.ranking": "scratchpad_core.search.ranking",
    "scratchpad_core.retention": "scratchpad_core.retention.rules",
    "scratchpad_core.retention_change": "scratchpad_core.retention.change",
    "scratchpad_core.redaction": "scratchpad_core.redaction.rules",
    "scratchpad_core.grants": "scratchpad_core.access.grants",
    "scratchpad_core.keys": "scratchpad_core.access.keys",
    "scratchpad_core.usecases.search": "scratchpad_core.usecases.search.searching",
    "scratchpad_core.usecases.indexer": "scratchpad_core.usecases.search.indexer",
    "scratchpad_core.usecases.overlay": "scratchpad_core.usecases.search.overlay",
    "scratchpad_core.usecases.passages": "scratchpad_core.usecases.search.passages",
    "scratchpad_core.usecases.scanning": "scratchpad_core.usecases.search.scanning",
    "scratchpad_core.usecases.redaction": "scratchpad_core.usecases.redaction.redacting",
    "scratchpad_core.usecases.redaction_scan": "scratchpad_core.usecases.redaction.scan",
}

# Modules left where they are on purpose (the sql package's top: the unit of work composes every room).
STAYS = {"scratchpad_adapters.sql.unit_of_work"}

# Prefix rules for scratchpad_adapters.sql, for modules others add under these names meanwhile (every module moved
# is also listed above: a re-run must know the old names of what has moved already):
# (regex on the module's leaf name, room, how the leaf is renamed).
SQL = "scratchpad_adapters.sql"
PREFIX_RULES: list[tuple[str, str, str]] = [
    (r"^search_(\w+)$", "search", r"\1"),
    (r"^integrity_(\w+)$", "integrity", r"\1"),
    (r"^(\w+_repository)$", "repositories", r"\1"),
    (r"^(file_\w+)$", "repositories", r"\1"),
    (
        r"^(engine|execution|read_only|urls|held|turns|watchdog|errors|sqlite_files)$",
        "connection",
        r"\1",
    ),
]

# Text that names a moved file's place by path rather than by module (exact, idempotent replacements).
FIXUPS: list[tuple[str, str, str]] = [
    (
        "tests/setup/test_fresh_clone.py",
        '"scratchpad_adapters" / "sql" / "migrations"',
        '"scratchpad_adapters" / "sql" / "schema" / "migrations"',
    ),
    ("tests/unit/test_core_is_pure.py", '"usecases/search.py"}', '"usecases/search/searching.py"}'),
    ("pyproject.toml", '"scratchpad_adapters/sql/migrations"', '"scratchpad_adapters/sql/schema/migrations"'),
    (
        "scratchpad_adapters/sql/schema/migrate.py",
        'Path(__file__).resolve().parents[2] / "alembic"',
        'Path(__file__).resolve().parents[3] / "alembic"',
    ),
    (
        "scratchpad_adapters/sql/schema/migrate.py",
        "ship inside the wheel as scratchpad_adapters/sql/migrations",
        "ship inside the wheel as scratchpad_adapters/sql/schema/migrations",
    ),
]

TEXT_SUFFIXES = {".py", ".toml", ".md", ".ini", ".cfg", ".txt", ".yml", ".yaml", ".sh"}
SKIP_TEXT = {"tools/restructure.py", "README.md"}  # README: its owner updates it (the brief)


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout


def module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def path_of(module: str, package: bool = False) -> Path:
    base = ROOT.joinpath(*module.split("."))
    return base / "__init__.py" if package else base.with_suffix(".py")


def tracked_files() -> list[Path]:
    names = git("ls-files", "-co", "--exclude-standard").splitlines()
    return [ROOT / n for n in names if (ROOT / n).is_file()]


def plan() -> dict[str, str]:
    """old module -> new module, for every module to move (including those already moved)."""
    moves = dict(EXPLICIT)
    sql_dir = ROOT / "scratchpad_adapters" / "sql"
    for file in sorted(sql_dir.glob("*.py")):
        leaf = file.stem
        old = f"{SQL}.{leaf}"
        if leaf == "__init__" or old in moves or old in STAYS:
            continue
        for pattern, room, leaf_to in PREFIX_RULES:
            if re.match(pattern, leaf):
                moves[old] = f"{SQL}.{room}.{re.sub(pattern, leaf_to, leaf)}"
                break
        else:
            print(f"note: {old} matches no room; it stays in {SQL}", file=sys.stderr)
    return moves


# ---------------------------------------------------------------------------------------------------------------
# 1 and 2: rooms and moves


def make_rooms(dry: bool) -> None:
    for room, doc in ROOMS.items():
        init = path_of(room, package=True)
        if init.exists():
            continue
        print(f"room {room}")
        if not dry:
            init.parent.mkdir(parents=True, exist_ok=True)
            init.write_text(f'"""{doc}\n"""\n')
            git("add", str(init))


def move_files(moves: dict[str, str], dry: bool) -> dict[Path, str]:
    """Move what is still at its old place; return {new path: old module} for the files moved now."""
    moved: dict[Path, str] = {}
    for old, new in moves.items():
        src, dst = path_of(old), path_of(new)
        if not src.exists() or dst.exists():
            continue
        print(f"move {src.relative_to(ROOT)} -> {dst.relative_to(ROOT)}")
        if not dry:
            git("mv", str(src), str(dst))
        moved[dst] = old
    return moved


# ---------------------------------------------------------------------------------------------------------------
# 3: imports


class Imports:
    """Rewrites the import statements of one file."""

    def __init__(self, moves: dict[str, str], modules: set[str]) -> None:
        self.moves = moves
        self.modules = modules  # every module and package that exists after the moves
        self.old_modules = modules | set(moves)

    def map_module(self, name: str) -> str:
        """The new name of a module, or of an attribute path under one (longest moved prefix wins)."""
        if name in self.modules and name not in self.moves:
            return name
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            head = ".".join(parts[:i])
            if head in self.moves:
                rest = parts[i:]
                # An old module that is now a package: `old.sub` where sub is one of the package's own modules
                # has been rewritten already.
                if rest and f"{head}.{rest[0]}" in self.modules:
                    return name
                return ".".join([self.moves[head], *rest])
        return name

    @staticmethod
    def package_of(module: str, is_init: bool) -> str:
        return module if is_init else module.rpartition(".")[0]

    def absolute(self, node: ast.ImportFrom, source_module: str, is_init: bool) -> str:
        if not node.level:
            return node.module or ""
        package = self.package_of(source_module, is_init).split(".")
        base = package[: len(package) - (node.level - 1)]
        return ".".join(base + ([node.module] if node.module else []))

    @staticmethod
    def relative(target: str, current_module: str, is_init: bool) -> tuple[int, str]:
        package = Imports.package_of(current_module, is_init).split(".")
        parts = target.split(".")
        common = 0
        while common < min(len(package), len(parts)) and package[common] == parts[common]:
            common += 1
        return len(package) - common + 1, ".".join(parts[common:])

    def render_from(self, node: ast.ImportFrom, target: str, names: list[ast.alias], current: str, init: bool) -> str:
        same_top = target.split(".", maxsplit=1)[0] == current.split(".", maxsplit=1)[0]
        if node.level and same_top:
            level, rest = self.relative(target, current, init)
            head = "." * level + rest
        else:
            head = target
        aliases = ", ".join(a.name if not a.asname else f"{a.name} as {a.asname}" for a in names)
        return f"from {head} import {aliases}"

    def rewrite_from(self, node: ast.ImportFrom, source: str, current: str, init: bool, file_moved: bool) -> str | None:
        old_target = self.absolute(node, source, init)
        if not old_target.startswith(PACKAGES):
            return None
        groups: dict[str, list[ast.alias]] = {}
        changed = file_moved and bool(node.level)
        for alias in node.names:
            sub = f"{old_target}.{alias.name}"
            # An old module that is now a package of the same name is never imported as the package itself.
            new_sub = self.moves[sub] if sub in self.moves else self.map_module(sub)
            if sub in self.old_modules and new_sub != sub:
                parent, _, leaf = new_sub.rpartition(".")
                asname = alias.asname or alias.name
                groups.setdefault(parent, []).append(ast.alias(name=leaf, asname=asname if asname != leaf else None))
                changed = True
            else:
                # `from package import module` where package.module exists now: already rewritten.
                target = old_target if sub in self.modules else self.map_module(old_target)
                changed |= target != old_target
                groups.setdefault(target, []).append(alias)
        if not changed:
            return None
        return "\n".join(self.render_from(node, t, names, current, init) for t, names in groups.items())

    def rewrite_import(self, node: ast.Import) -> str | None:
        out, changed = [], False
        for alias in node.names:
            new = self.map_module(alias.name) if alias.name.startswith(PACKAGES) else alias.name
            changed |= new != alias.name
            out.append(new if not alias.asname else f"{new} as {alias.asname}")
        if not changed:
            return None
        return "\n".join(f"import {name}" for name in out)

    def rewrite(self, text: str, source: str, current: str, init: bool, file_moved: bool) -> str:
        tree = ast.parse(text)
        lines = text.splitlines(keepends=True)
        edits: list[tuple[int, int, int, int, str]] = []
        for node in ast.walk(tree):
            new: str | None = None
            if isinstance(node, ast.ImportFrom):
                new = self.rewrite_from(node, source, current, init, file_moved)
            elif isinstance(node, ast.Import):
                new = self.rewrite_import(node)
            if new is None:
                continue
            indent = " " * node.col_offset
            new = new.replace("\n", "\n" + indent)
            assert node.end_lineno is not None and node.end_col_offset is not None
            edits.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, new))
        for start, col, end, end_col, new in sorted(edits, reverse=True):
            first, last = lines[start - 1], lines[end - 1]
            lines[start - 1 : end] = [_encode_cut(first, col) + new + _encode_tail(last, end_col)]
        return "".join(lines)


def _encode_cut(line: str, col: int) -> str:
    return line.encode()[:col].decode()


def _encode_tail(line: str, col: int) -> str:
    return line.encode()[col:].decode()


# ---------------------------------------------------------------------------------------------------------------
# 4: dotted names and paths in text


def text_rewriter(moves: dict[str, str], modules: set[str], moved_now: set[str]):  # type: ignore[no-untyped-def]
    """Dotted names and paths in text. An old module that is now a package of the same name is rewritten only in
    the run that moves it: afterwards its name in text means the package."""
    rules: list[tuple[re.Pattern[str], str]] = []
    for old in sorted(moves, key=len, reverse=True):
        new = moves[old]
        if old in modules and old not in moved_now:
            old_path, new_path = old.replace(".", "/"), new.replace(".", "/")
            rules.append((re.compile(rf"(?<![\w/.]){re.escape(old_path)}\.py\b"), f"{new_path}.py"))
            continue
        # A following `.sub` where old.sub is now a module of the package `old` became: already rewritten.
        subs = sorted(m.rpartition(".")[2] for m in modules if m.rpartition(".")[0] == old)
        guard = f"(?!\\.(?:{'|'.join(map(re.escape, subs))})\\b)" if subs else ""
        rules.append((re.compile(rf"(?<![\w.]){re.escape(old)}(?!\w){guard}"), new))
        old_path, new_path = old.replace(".", "/"), new.replace(".", "/")
        rules.append((re.compile(rf"(?<![\w/.]){re.escape(old_path)}\.py\b"), f"{new_path}.py"))
        # A path from the module's folder, e.g. sql/engine.py -> sql/connection/engine.py.
        folder, leaf = old.split(".")[-2:]
        short_new = new.split(".", len(old.split(".")) - 2)[-1].replace(".", "/")
        rules.append((re.compile(rf"(?<![\w/.]){re.escape(folder)}/{re.escape(leaf)}\.py\b"), f"{short_new}.py"))

    def rewrite(text: str) -> str:
        for pattern, new in rules:
            text = pattern.sub(new, text)
        return text

    return rewrite


def in_strings_and_comments(text: str, rewrite) -> str:  # type: ignore[no-untyped-def]
    """Apply `rewrite` to a Python file's strings and comments only (its imports are the ast's business)."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    out, last = [], 0
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type not in (tokenize.STRING, tokenize.COMMENT):
            continue
        start = offsets[tok.start[0] - 1] + tok.start[1]
        end = offsets[tok.end[0] - 1] + tok.end[1]
        out += [text[last:start], rewrite(text[start:end])]
        last = end
    out.append(text[last:])
    return "".join(out)


# ---------------------------------------------------------------------------------------------------------------
# 5: private helpers


def private_candidates(path: Path, corpus: dict[Path, str]) -> list[str]:
    """Module-level functions used only inside their own module, by plain name (never as an attribute, an argument
    or a keyword), and named by no other file."""
    text = corpus[path]
    tree = ast.parse(text)
    defined = [
        n.name
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and not n.name.startswith("_") and not n.decorator_list
    ]
    if not defined:
        return []
    exported: set[str] = set()
    for n in tree.body:
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in n.targets):
            exported |= {c.value for c in ast.walk(n.value) if isinstance(c, ast.Constant) and isinstance(c.value, str)}
    unsafe: set[str] = set(exported)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            unsafe.add(node.attr)
        elif isinstance(node, ast.arg) or (isinstance(node, ast.keyword) and node.arg):
            unsafe.add(node.arg)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            unsafe.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node not in tree.body:
            unsafe.add(node.name)
        elif isinstance(node, ast.alias):
            unsafe.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, ast.JoinedStr):
            unsafe |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            unsafe |= set(re.findall(r"\w+", node.value))
    names = set(re.findall(r"\w+", text))
    out = []
    for name in defined:
        if name in unsafe or f"_{name}" in names or name.startswith("test"):
            continue
        word = re.compile(rf"\b{re.escape(name)}\b")
        if any(other != path and word.search(body) for other, body in corpus.items()):
            continue
        out.append(name)
    return out


def rename_names(text: str, names: set[str]) -> str:
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    lines = text.splitlines(keepends=True)
    edits = []
    previous = None
    for tok in tokens:
        if tok.type == tokenize.NAME and tok.string in names and not (previous and previous.string == "."):
            edits.append(tok)
        if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            previous = tok
    for tok in reversed(edits):
        row, col = tok.start
        line = lines[row - 1]
        lines[row - 1] = line[:col] + "_" + line[col:]
    return "".join(lines)


# ---------------------------------------------------------------------------------------------------------------


def check_no_shadowing(moves: dict[str, str], modules: set[str]) -> None:
    """An old module that became a package must define no name its package's modules have: otherwise
    `from old import name` could mean either, and the rewrite would not be idempotent."""
    for old, new in moves.items():
        if old not in modules:
            continue
        subs = {m.rpartition(".")[2] for m in modules if m.rpartition(".")[0] == old}
        tree = ast.parse(path_of(new).read_text())
        names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
        names |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        if clash := names & subs:
            sys.exit(f"{new} defines {sorted(clash)}, also modules of {old}: pick other names for them")


def main() -> None:
    dry = "--dry-run" in sys.argv
    moves = plan()
    make_rooms(dry)
    moved_now = move_files(moves, dry)
    if dry:
        return
    files = tracked_files()
    pyfiles = [f for f in files if f.suffix == ".py" and ".venv" not in f.parts]
    package_files = [f for f in pyfiles if f.relative_to(ROOT).parts[0] in PACKAGES]
    modules = {module_of(f) for f in package_files}
    check_no_shadowing(moves, modules)
    imports = Imports(moves, modules)
    text_of = text_rewriter(moves, modules, set(moved_now.values()))
    changed: set[Path] = set()
    for file in files:
        rel = file.relative_to(ROOT).as_posix()
        if file.suffix not in TEXT_SUFFIXES or rel in SKIP_TEXT or ".venv" in file.parts:
            continue
        before = file.read_text()
        after = before
        if file.suffix == ".py":
            current = module_of(file)
            source = moved_now.get(file, current)
            init = file.name == "__init__.py"
            after = imports.rewrite(after, source, current, init, file in moved_now)
        after = in_strings_and_comments(after, text_of) if file.suffix == ".py" else text_of(after)
        if after != before:
            file.write_text(after)
            changed.add(file)
    for rel, old, new in FIXUPS:
        file = ROOT / rel
        if file.exists() and old in (text := file.read_text()):
            file.write_text(text.replace(old, new))
            changed.add(file)
    corpus = {f: f.read_text() for f in files if f.suffix in TEXT_SUFFIXES and f.exists() and ".venv" not in f.parts}
    for file in package_files:
        if file.name == "__init__.py" or file.relative_to(ROOT).parts[0] not in (
            "scratchpad_core",
            "scratchpad_adapters",
        ):
            continue
        names = private_candidates(file, corpus)
        if names:
            print(f"private in {file.relative_to(ROOT)}: {', '.join(names)}")
            corpus[file] = rename_names(corpus[file], set(names))
            file.write_text(corpus[file])
            changed.add(file)
    py = sorted(str(f) for f in changed if f.suffix == ".py")
    if py:
        subprocess.run(
            [sys.executable, "-m", "ruff", "check", "--select", "I", "--fix", "--quiet", *py], cwd=ROOT, check=False
        )
        subprocess.run([sys.executable, "-m", "ruff", "format", "--quiet", *py], cwd=ROOT, check=False)
    print(f"{len(moved_now)} files moved, {len(changed)} files rewritten")


if __name__ == "__main__":
    main()
