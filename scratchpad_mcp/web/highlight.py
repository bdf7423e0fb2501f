"""Server-side syntax colouring: a text's lines as runs of (CSS class, text), for the templates to escape.

Pygments' own HTML formatter is not used: its output would go into a page unescaped. Here the lexer only names
the token types; every run of text is escaped where the page is rendered, and control characters are made
visible (U+2400 pictures), so stored content is always shown as text.
"""

from __future__ import annotations

import functools
import html

from markupsafe import Markup, escape
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import TextLexer, get_lexer_for_filename
from pygments.token import STANDARD_TYPES, _TokenType
from pygments.util import ClassNotFound

# The one mapping of control characters, shared with the command line; re-exported: importable from here.
from scratchpad_core.visible_text import visible as visible  # noqa: PLC0414

MAX_COLOURED_LINE = 5_000  # characters; a window with a longer line is shown plain (a lexer's cost grows with it)
MAX_COLOURED_CHARS = 100_000  # characters of one window coloured at most; a larger window is shown plain
CSS_SCOPE = ".code"


@functools.lru_cache(maxsize=256)
def lexer_for(path: str) -> Lexer:
    try:
        found: Lexer = get_lexer_for_filename(path, stripnl=False, stripall=False, ensurenl=False)
        return found
    except ClassNotFound:
        plain: Lexer = TextLexer(stripnl=False, ensurenl=False)
        return plain


def _css_class(kind: _TokenType) -> str:
    found: _TokenType | None = kind
    while found is not None and found not in STANDARD_TYPES:
        found = found.parent
    return "" if found is None else STANDARD_TYPES[found]


def coloured_lines(path: str, lines: list[str]) -> list[Markup]:
    """Each line (without its ending) as escaped HTML with token classes; as many lines as given."""
    text = "".join(lines)
    if not lines or len(text) > MAX_COLOURED_CHARS or any(len(line) > MAX_COLOURED_LINE for line in lines):
        return [shown_line(line) for line in lines]
    out: list[Markup] = []
    current: list[str] = []
    for kind, value in lexer_for(path).get_tokens(text):
        css = _css_class(kind)
        for i, piece in enumerate(value.split("\n")):
            if i:
                out.append(Markup("".join(current)))  # noqa: S704 - every piece escaped by _run
                current = []
            if piece:
                current.append(_run(css, piece))
    if current:
        out.append(Markup("".join(current)))  # noqa: S704 - every piece escaped by _run
    out.extend([Markup("")] * (len(lines) - len(out)))  # trailing empty lines the lexer folded
    return out[: len(lines)]


def _run(css: str, piece: str) -> str:
    """One token's text, escaped (its CSS class is one of Pygments' own short names)."""
    shown = html.escape(visible(piece.removesuffix("\r")), quote=False)
    return f'<span class="{css}">{shown}</span>' if css else shown


def shown_line(line: str) -> Markup:
    """A line without its ending, escaped, control characters visible."""
    return escape(visible(line.rstrip("\n").removesuffix("\r")))


@functools.cache
def stylesheet() -> str:
    """The colours for the token classes, scoped to the code blocks."""
    formatter = HtmlFormatter(style="default")
    css: str = formatter.get_style_defs(CSS_SCOPE)  # type: ignore[no-untyped-call]
    return css
