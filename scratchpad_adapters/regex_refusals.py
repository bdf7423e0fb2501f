"""RE2's refusals of a pattern, each said in one line that names the construct (or the limit) and what to do.

RE2 (scratchpad_adapters.regex_engine) accepts Perl-like syntax without what needs backtracking: it refuses
backreferences, lookahead and lookbehind, recursion and conditionals, atomic groups and possessive quantifiers,
counted repetitions over 1000 (nested counts multiplied), and a pattern whose compiled form passes its memory
bound. Its own message says which part of the pattern it stopped at (e.g. "invalid perl operator: (?=").
Each refusal is a scratchpad_core.refusals template: what RE2 stopped at is a fact, the search switches and
the literal search are named in the words of the interface that shows it.
"""

from __future__ import annotations

import re

import re2

from scratchpad_core.errors import InvalidInput

LITERALLY = "or {do.search_literally}."
FIX = f"Fix the pattern, {LITERALLY}"
UNSUPPORTED = "is not supported: {on.regex} runs RE2 (linear time: no backreferences, lookaround or recursion)."
REPEAT_LIMIT = 1000

# What RE2 stopped at (after "invalid perl operator: " and the like), by its start: the construct it is.
_OPERATORS = (
    ("(?=", "lookahead ((?=...) and (?!...))"),
    ("(?!", "lookahead ((?=...) and (?!...))"),
    ("(?<=", "lookbehind ((?<=...) and (?<!...))"),
    ("(?<!", "lookbehind ((?<=...) and (?<!...))"),
    ("(?(", "a conditional or recursion ((?(DEFINE)...), (?(1)...))"),
    ("(?>", "an atomic group ((?>...))"),
    ("(?&", "recursion ((?R), (?1), (?&name))"),
    ("(?R", "recursion ((?R), (?1), (?&name))"),
    ("(?+", "recursion ((?R), (?1), (?&name))"),
    ("(?|", "a branch reset group ((?|...))"),
    ("(?#", "a comment group ((?#...))"),
    ("(?C", "a callout ((?C...))"),
)
# Escapes of PCRE and Perl that RE2 does not have: what each means, and what to write instead ("" where nothing).
_ESCAPES = {
    "\\K": ("\\K (a reset of the match's start)", ""),
    "\\G": ("\\G (the end of the previous match)", " Write ^ for the start of the line,"),
    "\\R": ("\\R (any line break)", " A search matches within one line (no line break is in it): drop it,"),
    "\\X": ("\\X (an extended grapheme cluster)", " Write . or \\pL\\pM* for a character,"),
    "\\h": ("\\h (horizontal whitespace)", " Write [ \\t] instead,"),
    "\\H": ("\\H (not horizontal whitespace)", " Write [^ \\t] instead,"),
    "\\V": ("\\V (not vertical whitespace)", " Write . instead (a line holds none),"),
}
_VERB = re.compile(r"(?<!\\)\(\*[A-Za-z_]+(?::[^)]*)?\)?")  # (*SKIP), (*MARK:x), (*FAIL) ...
_RECURSION = re.compile(r"\(\?-?\d")
_FLAG = re.compile(r"\(\?[imsU-]*+([a-zA-Z])")  # the first flag after those RE2 has
_COUNT = re.compile(r"\{(\d*)(?:,(\d*))?\}")


def refusal(pattern: str, error: re2.error, max_mem: int) -> InvalidInput:
    """The one-line refusal of `pattern`, from RE2's error (max_mem: the bytes RE2 was given)."""
    said = error.args[0].decode("utf-8", "replace") if error.args and isinstance(error.args[0], bytes) else str(error)
    kind, _, piece = said.partition(": ")
    construct = _construct(kind, piece, pattern)
    if construct is not None:
        return _refused(f"Invalid regex: {{construct}} {UNSUPPORTED} Rewrite the pattern without it, {LITERALLY}",
                        construct=construct)  # fmt: skip
    if kind == "invalid repetition size":
        return _repetition(piece)
    if kind.startswith("pattern too large"):
        return _refused(
            "Invalid regex: it compiles to more than RE2's memory bound of {mib} MiB (large counts of wide "
            "classes such as \\p{{L}}{{500}}, or many alternatives). Use smaller counts, + and *, or fewer "
            f"alternatives, {LITERALLY}",
            mib=max_mem >> 20,
        )
    if kind == "invalid escape sequence" and piece == "\\Z":
        return _refused(f"Invalid regex: \\Z {UNSUPPORTED} Write \\z or $ for the end of the line, {LITERALLY}")
    if kind == "invalid escape sequence" and piece in _ESCAPES:
        name, instead = _ESCAPES[piece]
        return _refused(
            f"Invalid regex: {{name}} {UNSUPPORTED}{{instead}} {LITERALLY}",
            name=name, instead=instead or " Rewrite the pattern without it,",
        )  # fmt: skip
    if kind in ("invalid perl operator", "invalid named capture group") and piece.startswith("(?P"):
        return _named_group(piece)
    where = f" in '{piece[:200]}'" if piece else ""
    return _refused(f"Invalid regex: {{kind}}{{where}}. {FIX}", kind=kind, where=where)


def _refused(says: str, **facts: object) -> InvalidInput:
    return InvalidInput.said(says, argument="query", **facts)


def _construct(kind: str, piece: str, pattern: str) -> str | None:
    """The construct RE2 does not run that the pattern used (None: another mistake)."""
    if kind in ("invalid perl operator", "invalid named capture group"):
        if piece.startswith("(?P") and "(?P=" in pattern:
            return "a named backreference ((?P=name))"
        if piece.startswith("(?P") and "(?P>" in pattern:
            return "recursion ((?R), (?1), (?&name))"
        for start, construct in _OPERATORS:
            if piece.startswith(start):
                return construct
        if _RECURSION.match(piece):
            return "recursion ((?R), (?1), (?&name))"
        flag = _FLAG.match(piece)
        if flag is not None and flag[1] not in "imsU" and not piece.startswith("(?P"):  # (?P: a named group
            return f"the flag {flag[1]} (RE2 has i, m, s and U)"
    if kind == "invalid escape sequence" and re.fullmatch(r"\\[1-9gk]", piece):
        return "a backreference (\\1, \\k<name>)"
    if kind == "bad repetition operator" and piece.endswith("+") and len(piece) > 1:
        return f"a possessive quantifier ({piece})"
    verb = _VERB.search(pattern) if kind == "no argument for repetition operator" else None
    if verb is not None:
        return f"the backtracking control verb {verb[0]}"
    if kind == "no argument for repetition operator" and pattern.startswith("(*"):
        return "a backtracking control verb ((*FAIL), (*SKIP), ...)"
    return None


def _named_group(piece: str) -> InvalidInput:
    """A named group RE2 would run, misspelt: (?P<> has no name, (?P is cut short, (?Px is no group."""
    write = "write (?P<name>...), a name of letters, digits and _"
    if piece.startswith("(?P<>"):
        return _refused(f"Invalid regex: the named group (?P<> has no name: {write}. {FIX}")
    if piece.startswith("(?P<"):
        return _refused(
            f"Invalid regex: the named group {{piece}} is not closed or its name is not allowed: {write}. {FIX}",
            piece=piece[:40],
        )
    return _refused(
        f"Invalid regex: {{piece}} is not a group RE2 knows: a named group is written (?P<name>...). {FIX}",
        piece=piece[:40],
    )


def _repetition(piece: str) -> InvalidInput:
    found = _COUNT.fullmatch(piece)
    if found is not None and found[2] and found[1] and int(found[1]) > int(found[2]):
        return _refused(f"Invalid regex: the repetition {{piece}} has a minimum above its maximum. {FIX}", piece=piece)
    return _refused(
        "Invalid regex: the repetition {piece} passes RE2's limit of {limit:,} (counts of nested "
        f"repetitions multiply: (x{{{{100}}}}){{{{100}}}} counts 10,000). Use smaller counts, or + and *, {LITERALLY}",
        piece=piece, limit=REPEAT_LIMIT,
    )  # fmt: skip
