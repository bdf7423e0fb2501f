"""search_files by words (the default), on every backend: what is found, how it ranks, what a result holds."""

from __future__ import annotations

import pytest

from scratchpad_core.errors import InvalidInput
from scratchpad_core.results import SearchMatch, SearchResult
from scratchpad_core.search.indexing import PIECE_CHARS
from scratchpad_core.service import Scratchpad
from scratchpad_core.text import MATCH_CHARS
from scratchpad_core.usecases.search.passages import RARE_DOCUMENTS

A, B = "agent-a", "agent-b"


def where(result: SearchResult) -> list[tuple[str, int | None, int | None, int | None]]:
    return [(m.path, m.line, m.end_line, m.entry) for m in result.matches]


def paths(result: SearchResult) -> list[str]:
    return [m.path for m in result.matches]


def test_english_words_match_their_other_forms(store: Scratchpad) -> None:
    for n, word in enumerate(["deploy", "deployed", "deploying", "deployment", "deploys"]):
        store.write_file(A, f"f{n}.md", f"we {word} on friday\n")
    for query in ("deploy", "Deployed", "DEPLOYING", "deployments"):
        assert sorted(paths(store.search_files(A, query))) == [f"f{n}.md" for n in range(5)], query


def test_case_and_diacritics_are_folded_in_every_script(store: Scratchpad) -> None:
    store.write_file(A, "latin.md", "Un CAFÉ noir\n")
    store.write_file(A, "plain.md", "a cafe downtown\n")
    store.write_file(A, "greek.md", "Ταξίδι στην Αθήνα\n")
    store.write_file(A, "german.md", "Die Straße ist lang\n")
    assert sorted(paths(store.search_files(A, "café"))) == ["latin.md", "plain.md"]
    assert sorted(paths(store.search_files(A, "CAFE"))) == ["latin.md", "plain.md"]
    assert paths(store.search_files(A, "αθηνα")) == ["greek.md"]
    assert paths(store.search_files(A, "ΑΘΉΝΑ")) == ["greek.md"]
    assert paths(store.search_files(A, "strasse")) == ["german.md"]


def test_scripts_without_spaces_are_found_by_two_or_more_characters(store: Scratchpad) -> None:
    store.write_file(A, "zh.md", "我们明天去北京开会\n")
    store.write_file(A, "ja.md", "東京都に住んでいます\nカタカナの言葉\n")
    store.write_file(A, "ko.md", "서울에서 만나요\n")
    assert paths(store.search_files(A, "北京")) == ["zh.md"]
    assert paths(store.search_files(A, "去北京开会")) == ["zh.md"]
    assert paths(store.search_files(A, "東京")) == ["ja.md"]
    assert where(store.search_files(A, "カタカナ")) == [("ja.md", 1, 2, None)]
    assert paths(store.search_files(A, "서울에서")) == ["ko.md"]
    assert store.search_files(A, "大阪").matches == []


def test_underscore_separates_words_and_the_whole_token_ranks_first(store: Scratchpad) -> None:
    store.write_file(A, "env.md", "STRIPE_KEY=sk_live_4242\n")
    store.write_file(A, "apart.md", "we live here\n\n\nsk means nothing\n\n\n4242 is a number\n")
    store.write_file(A, "some.md", "sk and live but no number\n")
    store.write_file(A, "code.py", "def snake_case_name(my_arg):\n")
    store.append_log(A, "run.log", "rotated sk_live_4242 today")
    assert sorted(paths(store.search_files(A, "live"))) == ["apart.md", "env.md", "run.log", "some.md"]
    whole = store.search_files(A, "sk_live_4242")
    assert {m.path for m in whole.matches[:2]} == {"env.md", "run.log"}  # the two holding the whole token
    assert paths(store.search_files(A, "snake")) == ["code.py"]
    assert paths(store.search_files(A, "my arg")) == ["code.py"]
    assert paths(store.search_files(A, "stripe")) == ["env.md"]
    store.write_file(A, "wide.md", "full＿width low line\n")  # U+FF3F folds to '_': it separates too
    assert paths(store.search_files(A, "width")) == ["wide.md"]


def test_more_and_rarer_words_rank_higher(store: Scratchpad) -> None:
    store.write_file(A, "filler.md", "".join(f"the project note number {n}\n\n" for n in range(30)))
    store.write_file(A, "both.md", "we moved the api to postgres last week\n")
    store.write_file(A, "api.md", "the api is documented elsewhere\n")
    store.write_file(A, "project.md", "the project plan\n")
    ranked = paths(store.search_files(A, "when did the project move the API to Postgres?"))
    assert ranked[:3] == ["both.md", "api.md", "project.md"]


def test_words_close_together_rank_higher(store: Scratchpad) -> None:
    spread = "alpha was seen\n" + "".join(f"unrelated line {n}\n" for n in range(8)) + "beta was seen\n"
    store.write_file(A, "apart.md", spread)
    store.write_file(A, "close.md", "intro\nalpha came first\nbeta came second\noutro\n")
    result = store.search_files(A, "alpha beta")
    assert where(result)[0] == ("close.md", 1, 4, None)
    assert result.matches[0].text == "intro\nalpha came first\nbeta came second\noutro"


def test_a_passage_is_the_match_with_a_line_around_it(store: Scratchpad) -> None:
    store.write_file(A, "notes.md", "".join(f"line {n}\n" for n in range(1, 11)).replace("line 5", "the answer"))
    (match,) = store.search_files(A, "answer").matches
    assert match == SearchMatch(path="notes.md", line=4, end_line=6, text="line 4\nthe answer\nline 6")
    store.write_file(A, "edge.md", "answer at the top\nsecond\nthird\n")
    assert where(store.search_files(A, "answer", prefix="edge")) == [("edge.md", 1, 2, None)]


def test_adjacent_matches_join_one_passage_of_at_most_five_lines(store: Scratchpad) -> None:
    lines = [f"filler {n}" for n in range(20)]
    for n in range(5, 13):
        lines[n] = f"needle {n}"
    store.write_file(A, "run.md", "\n".join(lines) + "\n")
    result = store.search_files(A, "needle", max_results=200)
    spans = [(m.line, m.end_line) for m in result.matches]
    assert all(m.end_line is not None and m.line is not None and m.end_line - m.line < 5 for m in result.matches)
    covered = [n for lo, hi in spans for n in range(lo or 0, (hi or 0) + 1)]
    assert len(covered) == len(set(covered)), "passages of one file never overlap"
    assert set(range(6, 14)) <= set(covered), "every matching line is in a passage"
    for m in result.matches:
        assert m.text == "\n".join(lines[(m.line or 0) - 1 : m.end_line])


def test_a_long_line_is_trimmed_around_its_match(store: Scratchpad) -> None:
    long = "word " * 600 + "needle " + "word " * 600
    store.write_file(A, "long.md", f"before\n{long}\nafter\n")
    (match,) = store.search_files(A, "needle").matches
    shown = match.text.split("\n")
    assert (match.line, match.end_line) == (1, 3)
    assert shown[0] == "before" and shown[2] == "after"
    assert "needle" in shown[1] and len(shown[1]) <= MATCH_CHARS + 2


def test_a_line_longer_than_a_piece_is_found_by_every_word(store: Scratchpad) -> None:
    words = [f"w{n}" for n in range(3 * PIECE_CHARS // 5)]
    store.write_file(A, "wide.md", "start\n" + " ".join(words) + "\nend\n")
    for word in (words[0], words[len(words) // 2], words[-1]):
        assert where(store.search_files(A, word)) == [("wide.md", 1, 3, None)], word
    store.edit_file(A, "wide.md", words[-1], "tail")
    assert store.search_files(A, words[-1]).matches == []
    assert where(store.search_files(A, "tail")) == [("wide.md", 1, 3, None)]


def test_log_entries_are_results(store: Scratchpad) -> None:
    store.append_log(A, "run.log", "started the deploy")
    store.append_log(A, "run.log", "nothing here")
    store.append_log(A, "run.log", "the deploy failed: disk full " + "x" * 600)
    result = store.search_files(A, "deploy failed")
    assert where(result) == [("run.log", None, None, 3), ("run.log", None, None, 1)]
    assert result.matches[1].text == "started the deploy"
    assert result.matches[0].text.startswith("the deploy failed") and len(result.matches[0].text) <= 501


def test_prefix_applies_to_files_and_logs(store: Scratchpad) -> None:
    store.write_file(A, "a/notes.md", "alpha\n")
    store.write_file(A, "b/notes.md", "alpha\n")
    store.append_log(A, "a/log", "alpha")
    store.append_log(A, "b/log", "alpha")
    assert sorted(paths(store.search_files(A, "alpha", prefix="a/"))) == ["a/log", "a/notes.md"]
    assert sorted(paths(store.search_files(A, "alpha", prefix="b"))) == ["b/log", "b/notes.md"]
    assert store.search_files(A, "alpha", prefix="c/").matches == []


def test_raising_max_results_reaches_every_passage(store: Scratchpad) -> None:
    for n in range(12):
        store.write_file(A, f"f{n:02d}.md", f"intro\n{'rare ' if n == 7 else ''}topic {n}\noutro\n")
        store.append_log(A, "log", f"topic entry {n}")
    first = store.search_files(A, "rare topic")
    assert (first.count, first.has_more) == (10, True)
    assert first.matches[0].path == "f07.md"
    everything = store.search_files(A, "rare topic", max_results=200)
    assert (everything.count, everything.has_more) == (24, False)
    assert len({(m.path, m.line, m.entry) for m in everything.matches}) == 24
    exact = store.search_files(A, "rare topic", max_results=24)
    assert (exact.count, exact.has_more) == (24, False)
    assert store.search_files(A, "rare topic", max_results=23).has_more
    for bad in (0, 201):
        with pytest.raises(InvalidInput, match="max_results"):
            store.search_files(A, "topic", max_results=bad)


def test_a_line_holding_more_frequent_words_ranks_first(store: Scratchpad) -> None:
    """Words each in more than RARE_DOCUMENTS lines: the line holding both still comes first (the audit's case)."""
    lines = RARE_DOCUMENTS + 200
    store.write_file(A, "a.md", "".join(f"error in module {i}\n\n" for i in range(lines)))
    store.write_file(A, "b.md", "".join(f"timeout after {i} seconds\n\n" for i in range(lines)))
    store.write_file(A, "z.md", "payment error timeout at checkout\n")
    found = store.search_files(A, "error timeout", max_results=3)
    assert found.matches[0].path == "z.md" and found.has_more
    assert {m.path for m in found.matches[1:]} <= {"a.md", "b.md"}


def test_only_common_words_still_find(store: Scratchpad) -> None:
    store.write_file(A, "a.md", "what is it\n")
    store.write_file(A, "b.md", "nothing in common\n")
    assert paths(store.search_files(A, "what is")) == ["a.md"]


def test_only_current_versions_and_live_data_are_found(store: Scratchpad) -> None:
    store.write_file(A, "f.md", "needle\n")
    store.write_file(A, "f.md", "haystack\n")
    assert store.search_files(A, "needle").matches == []
    store.restore_version(A, "f.md", 1)
    assert paths(store.search_files(A, "needle")) == ["f.md"]
    store.edit_file(A, "f.md", "needle", "pin")
    assert store.search_files(A, "needle").matches == []
    store.insert_lines(A, "f.md", 0, "needle again")
    assert where(store.search_files(A, "needle")) == [("f.md", 1, 2, None)]
    store.rename_file(A, "f.md", "g.md")
    assert where(store.search_files(A, "needle")) == [("g.md", 1, 2, None)]
    store.rename_prefix(A, "g", "h")
    assert paths(store.search_files(A, "needle")) == ["h.md"]
    store.delete_file(A, "h.md")
    assert store.search_files(A, "needle").matches == []
    store.write_file(A, "d/x.md", "needle\n")
    store.delete_prefix(A, "d/")
    store.append_log(A, "log", "needle")
    store.delete_log(A, "log")
    assert store.search_files(A, "needle").matches == []
    store.append_log(A, "log", "needle back")
    assert where(store.search_files(A, "needle")) == [("log", None, None, 2)]


def test_a_refused_write_changes_no_index(make_store: object) -> None:
    from scratchpad_core.limits import Limits

    store = make_store(Limits(quota_bytes=40))  # type: ignore[operator]
    store.write_file(A, "f.md", "needle in the first version\n")
    with pytest.raises(Exception, match="quota"):
        store.write_file(A, "g.md", "another needle that does not fit\n")
    assert paths(store.search_files(A, "needle")) == ["f.md"]


def test_agents_do_not_find_each_others_text(store: Scratchpad) -> None:
    store.write_file(A, "secret.md", "the launch code is swordfish\n")
    store.append_log(A, "log", "swordfish")
    store.write_file(B, "other.md", "nothing to see\n")
    assert store.search_files(B, "swordfish").matches == []
    assert store.search_files(B, "launch code").matches == []
    assert len(store.search_files(A, "swordfish").matches) == 2


@pytest.mark.parametrize(
    "query",
    ['"unbalanced', "(a OR b", "NOT needle", "needle*", "-needle", "col:needle", "^needle", "NEAR(a b)",
     "needle AND", "a' OR '1'='1", "needle\\", "{needle}", "needle:*", "!needle", "needle & hay | x"],
)  # fmt: skip
def test_a_query_is_data_never_syntax(store: Scratchpad, query: str) -> None:
    store.write_file(A, "f.md", "a needle in the hay\nNOT here\n")
    result = store.search_files(A, query)
    assert "f.md" in paths(result) or result.matches == []
    assert paths(store.search_files(A, f"{query} needle")) == ["f.md"]


@pytest.mark.parametrize("query", ["?!", "...", "  ", "-- ** --", "😀", "()", "___", "_＿_"])
def test_a_query_with_no_word_is_refused(store: Scratchpad, query: str) -> None:
    store.write_file(A, "f.md", "text\n")
    with pytest.raises(InvalidInput, match="no word"):
        store.search_files(A, query)


def test_exact_keeps_the_literal_search(store: Scratchpad) -> None:
    store.write_file(A, "f.md", "price: 3.5 (x+y)\nthe deployment\n")
    assert [(m.line, m.text) for m in store.search_files(A, "(x+y)", exact=True).matches] == [(1, "price: 3.5 (x+y)")]
    assert store.search_files(A, "deploy", exact=True).matches[0].line == 2
    assert store.search_files(A, "deployed", exact=True).matches == []
    assert paths(store.search_files(A, "deployed")) == ["f.md"]


def test_a_tokens_words_side_by_side_rank_above_the_same_words_apart(store: Scratchpad) -> None:
    store.write_file(A, "env.md", "the key for payments is sk_live_4242 in production\n")
    store.write_file(A, "apart.md", "4242 live sk\n")  # shorter, the same three words: BM25 alone ranks it first
    store.write_file(A, "filler.md", "".join(f"note {n} of the plan\n\n" for n in range(20)))
    assert paths(store.search_files(A, "sk_live_4242"))[:2] == ["env.md", "apart.md"]
    assert paths(store.search_files(A, "sk live 4242"))[:2] == ["apart.md", "env.md"]  # three tokens: BM25 only
