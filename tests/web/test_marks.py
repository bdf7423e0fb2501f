"""What a search result marks: the words the search matched, by the index's own rule (folded, stemmed), the literal
text case folded, or the pattern's matches; the page escapes each piece and makes its controls visible."""

from __future__ import annotations

from scratchpad_mcp.web.marks import marked_lines, pieces


def hits(text: str, query: str, **mode: bool) -> list[str]:
    found = marked_lines(text, query, exact=mode.get("exact", False), regex=mode.get("regex", False))
    return [part for line in found for part, hit in line if hit]


def test_words_are_marked_as_the_index_finds_them() -> None:
    assert hits("We deployed it.\nDeploying again; CAFÉ open", "deployment cafe") == ["deployed", "Deploying", "CAFÉ"]
    assert hits("key sk_live_4242 here", "live") == ["live"]  # _ separates words, as in the index
    assert hits("nothing here", "absent") == []


def test_exact_and_regex_marks() -> None:
    assert hits("The Service and the service", "the service", exact=True) == ["The Service", "the service"]
    assert hits("a+b a+b", "a+b", exact=True) == ["a+b", "a+b"]  # the query is text, not a pattern
    assert hits("step 1, step 22", r"step \d+", regex=True) == ["step 1", "step 22"]
    assert hits("abc", "x*", regex=True) == []  # empty matches mark nothing
    assert hits("abc", "(a", regex=True) == []  # a pattern the search refused marks nothing


def test_pieces_keep_every_character_in_order() -> None:
    line = "one two three"
    assert pieces(line, [(4, 7)]) == [("one ", False), ("two", True), (" three", False)]
    assert pieces(line, [(0, 3), (2, 5)]) == [("one", True), (" two three", False)]  # overlapping: the first
    assert pieces("", []) == [("", False)]
