"""The words of a text, as word search finds them: one rule for every backend, so that their rankings agree.

A text is folded (NFKD, combining marks dropped, casefolded: CAFÉ -> cafe, Αθήνα -> αθηνα) and split into words:
runs of Unicode letters and digits (`_` separates words: sk_live_4242 is sk, live and 4242; a query of the whole
token finds the lines holding all three, which rank first). Scripts written without spaces (Han, Hiragana,
Katakana) are split into overlapping character bigrams instead (a lone character stands for itself), so that a
query of two or more characters finds the texts holding them. English words are stemmed (deploy, deployed,
deploying and deployment are one term) by the Stemmer the composition root gives (scratchpad_adapters: Snowball
English); a word longer than MAX_TERM_CHARS keeps its first MAX_TERM_CHARS characters. The terms of a text, in
order, are what every backend indexes; a query is analysed the same way.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

MAX_TERM_CHARS = 64  # a longer word is indexed by its first 64 characters (PostgreSQL caps a lexeme at 2 KiB)

# Han (with its extensions and compatibility forms), Hiragana and Katakana: written without spaces.
_UNSPACED = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f"
_TOKENS = re.compile(rf"[{_UNSPACED}]+|[^\W_{_UNSPACED}]+")
_UNSPACED_RUN = re.compile(rf"[{_UNSPACED}]+")
_WORDS = re.compile(r"[^\W_]+")  # letters and digits: \w without '_'

# Frequent English words (as written; stemmed by the analyzer). They are indexed like every word; a query
# reads their documents only when its other words find too few (scratchpad_core.usecases.search.passages).
COMMON_WORDS = tuple(
    """a about above after again against all am an and any are as at be because been before being below between
    both but by can could did do does doing down during each few for from further had has have having he her
    here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
    now of off on once only or other our ours ourselves out over own same she should so some such than that the
    their theirs them themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves""".split()  # noqa: SIM905
)


class Stemmer(Protocol):
    def stem_words(self, words: Sequence[str]) -> list[str]:
        """Each word's stem, in order (English Snowball in scratchpad_adapters)."""


class NoStemming:
    """A Stemmer that leaves words as they are (a store opened with no stemmer of its own)."""

    def stem_words(self, words: Sequence[str]) -> list[str]:
        return list(words)


class _Marks(dict[int, int | None]):
    """str.translate's table: combining marks (Unicode category M) are dropped, every other character kept;
    each character is looked up once."""

    def __missing__(self, code: int) -> int | None:
        kept = None if unicodedata.category(chr(code)).startswith("M") else code
        self[code] = kept
        return kept


_MARKS = _Marks()


def fold(text: str) -> str:
    """Case and diacritics folded: NFKD, combining marks dropped, casefolded (and once more, for the few
    characters whose casefolding brings marks back)."""
    if text.isascii():
        return text.lower()
    folded = unicodedata.normalize("NFKD", text).translate(_MARKS).casefold()
    if folded.isascii():
        return folded
    return unicodedata.normalize("NFKD", folded).translate(_MARKS)


def _split(folded: str) -> Iterator[tuple[str, bool]]:
    """(word, stemmable) in order: words, and bigrams of runs of characters written without spaces."""
    for token in _TOKENS.findall(folded):
        if _UNSPACED_RUN.fullmatch(token):
            if len(token) == 1:
                yield token, False
            else:
                for i in range(len(token) - 1):
                    yield token[i : i + 2], False
        else:
            yield token[:MAX_TERM_CHARS], token.isascii()


@dataclass
class Analyzer:
    """Texts to terms, with a stemmer (English Snowball from the composition root; NoStemming otherwise)."""

    stemmer: Stemmer = field(default_factory=NoStemming)
    common: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        self.common = frozenset(self.stemmer.stem_words(list(COMMON_WORDS)))

    def terms(self, text: str) -> list[str]:
        """The text's terms, in order (repeats kept)."""
        if not text:
            return []
        folded = fold(text)
        if folded.isascii():  # the common case, at C speed: no script without spaces, every word stemmed
            words = _WORDS.findall(folded)
            if words and max(map(len, words)) > MAX_TERM_CHARS:
                words = [word[:MAX_TERM_CHARS] for word in words]
            return self.stemmer.stem_words(words) if words else []
        pieces = list(_split(folded))
        if not pieces:
            return []
        stems = self.stemmer.stem_words([word for word, stemmable in pieces if stemmable])
        out: list[str] = []
        at = 0
        for word, stemmable in pieces:
            if stemmable:
                out.append(stems[at])
                at += 1
            else:
                out.append(word)
        return out

    def first_match(self, text: str, terms: frozenset[str] | set[str]) -> int | None:
        """Where in `text` the first word whose term is among `terms` starts (None: none is)."""
        return next((start for start, _ in self.spans(text, terms)), None)

    def spans(self, text: str, terms: frozenset[str] | set[str]) -> Iterator[tuple[int, int]]:
        """(start, end) in `text` of each word whose term is among `terms`, in order (a run of Chinese or Japanese
        text: each run holding a pair of characters among them, whole)."""
        folded, starts = _folded_with_offsets(text)
        for match in _TOKENS.finditer(folded):
            token = match.group()
            if _UNSPACED_RUN.fullmatch(token):
                found = any(token[i : i + 2] in terms for i in range(max(1, len(token) - 1)))
            else:
                found = bool(set(self.terms(token)) & terms)
            if found:
                yield starts[match.start()], starts[match.end()]


def _folded_with_offsets(text: str) -> tuple[str, list[int]]:
    """The folded text, and for each of its characters the offset in `text` of the character it came from."""
    if text.isascii():
        return text.lower(), list(range(len(text) + 1))
    parts: list[str] = []
    starts: list[int] = []
    for offset, char in enumerate(text):
        piece = fold(char)
        parts.append(piece)
        starts.extend([offset] * len(piece))
    starts.append(len(text))
    return "".join(parts), starts
