"""English Snowball stemming for word search (scratchpad_core.search.words.Stemmer), with PyStemmer (C, ~1 µs a word).

A Stemmer object of PyStemmer is not safe to share between threads: each thread gets its own (each keeps a
cache of the words it has stemmed).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Sequence

import Stemmer

from scratchpad_core.search.words import Analyzer

CACHE_WORDS = 20_000  # stems each thread remembers


class SnowballStemmer:
    """English Snowball (the stemmer of Porter's second design: deploy, deployed, deploying, deployment meet)."""

    def __init__(self) -> None:
        self._local = threading.local()

    def stem_words(self, words: Sequence[str]) -> list[str]:
        stemmer = getattr(self._local, "stemmer", None)
        if stemmer is None:
            stemmer = self._local.stemmer = Stemmer.Stemmer("english", CACHE_WORDS)
        stems: list[str] = stemmer.stemWords(words)
        return stems


@functools.cache
def default_analyzer() -> Analyzer:
    """The analyzer every store of this process indexes and queries with."""
    return Analyzer(SnowballStemmer())
