"""Stored text shown to a person, with nothing in it able to act on the page or the terminal.

An agent stores any text: escape sequences (ESC [ 2 J clears a terminal), BEL, carriage returns that let one
line overwrite another, bidirectional controls that reorder what is read. Where it is shown to a person, those
characters become visible symbols: C0 controls (but tab) their Unicode control pictures (U+2400..U+241F, ␛ ␇),
DEL ␡, C1 controls U+FFFD, the bidi controls and line separators ⟨U+202E⟩. One mapping for the web view
(scratchpad_mcp.web.highlight) and the command line (scratchpad_mcp.cli.inspect_output).
"""

from __future__ import annotations

PICTURES: dict[int, int | str] = {c: 0x2400 + c for c in range(32) if c != 9}
PICTURES |= {127: 0x2421} | {c: 0xFFFD for c in range(0x80, 0xA0)}
"""Control characters (but tab) as visible pictures; a line feed too (the web shows lines without endings)."""

INVISIBLE = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x2028, 0x2029)
"""Bidirectional controls (marks, embeddings, overrides, isolates) and the line and paragraph separators."""

_SCREEN_LINE: dict[int, int | str] = PICTURES | {c: f"\u27e8U+{c:04X}\u27e9" for c in INVISIBLE}
_SCREEN_TEXT: dict[int, int | str] = {c: shown for c, shown in _SCREEN_LINE.items() if c != 10}


def visible(text: str) -> str:
    """Control characters (but tabs) as their visible pictures and bidi controls as ⟨U+202E⟩: nothing stored can
    act on the page or reorder what it shows."""
    return text.translate(_SCREEN_LINE)


def screen_line(text: str) -> str:
    """One line for a terminal: every control character (but tab), line feeds included, and every bidi
    control visible, so it stays one line and reads in the order it is stored."""
    return text.translate(_SCREEN_LINE)


def screen_text(text: str) -> str:
    """Text for a terminal, its lines kept: as screen_line, but line feeds still end lines."""
    return text.translate(_SCREEN_TEXT)
