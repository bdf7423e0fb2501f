"""rename_file, rename_prefix and delete_prefix: files move with their versions and summary; quotas unchanged."""

from __future__ import annotations

import pytest

from scratchpad_core.errors import InvalidInput, InvalidPath, NotFound, VersionConflict
from scratchpad_core.limits import Limits
from scratchpad_core.results import DeletePrefixResult, RenameResult
from scratchpad_core.service import Scratchpad
from tests.conftest import FakeSummarizer, StoreFactory
from tests.recount import Recounter

A = "agent-a"


def data(recount: Recounter) -> dict[str, list[tuple[object, ...]]]:
    """The agent's rows, without its counters (every call counts as an operation)."""
    return {table: rows for table, rows in recount.snapshot(A).items() if table != "agents"}


def history(store: Scratchpad, path: str) -> list[tuple[int, str]]:
    """(version, content) of every retained version."""
    listed = store.list_versions(A, path).versions
    return [(v.version, store.read_file(A, path, version=v.version).content or "") for v in listed]


def test_a_file_moves_with_its_versions_and_quotas_unchanged(store: Scratchpad, recount: Recounter) -> None:
    for text in ("one\n", "two\n", "three\n"):
        store.write_file(A, "notes/a.md", text)
    store.write_file(A, "keep.md", "k")
    before = recount.check(store, A)

    assert store.rename_file(A, "notes/a.md", "archive/a.md") == RenameResult("notes/a.md", "archive/a.md", 3)

    assert history(store, "archive/a.md") == [(1, "one\n"), (2, "two\n"), (3, "three\n")]
    with pytest.raises(NotFound):
        store.read_file(A, "notes/a.md")
    assert [f.path for f in store.list_files(A).files] == ["archive/a.md", "keep.md"]
    after = recount.check(store, A)
    assert (after.file_count, after.total_bytes) == (before.file_count, before.total_bytes) == (2, 15)
    assert recount.versions(A, "archive/a.md") == [1, 2, 3]


def test_the_old_path_remembers_its_number(store: Scratchpad) -> None:
    store.write_file(A, "a.md", "1")
    store.write_file(A, "a.md", "2")
    store.rename_file(A, "a.md", "b.md")
    assert store.write_file(A, "a.md", "new").version == 3  # a reader of a.md saw 1 and 2
    assert store.read_file(A, "b.md").content == "2"


def test_onto_a_deleted_path_the_numbers_follow_what_it_remembers(store: Scratchpad, recount: Recounter) -> None:
    for text in ("d1", "d2", "d3", "d4"):
        store.write_file(A, "dst.md", text)
    store.delete_file(A, "dst.md")  # a reader of dst.md saw versions 1..4
    store.write_file(A, "src.md", "s1")
    store.write_file(A, "src.md", "s2")

    assert store.rename_file(A, "src.md", "dst.md").version == 6
    assert history(store, "dst.md") == [(5, "s1"), (6, "s2")]
    with pytest.raises(VersionConflict):
        store.write_file(A, "dst.md", "stale", expected_version=4)
    assert store.read_file(A, "dst.md", since_version=5).diff
    assert recount.check(store, A).file_count == 1


def test_moved_versions_carry_on_from_what_the_destination_remembers(make_store: StoreFactory) -> None:
    """Retained versions 4..5 of a file moved onto a path that remembers 7 become 8..9: the next numbers there."""
    store = make_store(Limits(max_versions=2))
    for n in range(1, 8):
        store.write_file(A, "dest.md", f"d{n}\n")
    store.delete_file(A, "dest.md")  # remembers 7
    for n in range(1, 6):
        store.write_file(A, "src.md", f"s{n}\n")  # versions 4 and 5 retained

    assert store.rename_file(A, "src.md", "dest.md").version == 9
    assert [v.version for v in store.list_versions(A, "dest.md").versions] == [8, 9]
    assert store.read_file(A, "dest.md", version=8).content == "s4\n"


def test_a_file_moved_back_and_forth_grows_by_its_retained_versions_only(store: Scratchpad) -> None:
    """Each path remembers the other's last number; numbers must grow linearly, never past the 32-bit range."""
    store.write_file(A, "a.md", "one\n")
    store.write_file(A, "a.md", "two\n")
    paths = ("a.md", "b.md")
    for move in range(60):
        result = store.rename_file(A, paths[move % 2], paths[(move + 1) % 2])
    assert result.version <= 2 * 61  # two retained versions moved each time
    assert store.read_file(A, paths[0]).content == "two\n"
    store.edit_file(A, paths[0], "two", "three")  # and it can still be edited


def test_a_missing_source_is_not_found(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "gone.md", "x")
    store.delete_file(A, "gone.md")
    before = data(recount)
    with pytest.raises(NotFound, match=r"File not found: nope\.md"):
        store.rename_file(A, "nope.md", "b.md")
    with pytest.raises(NotFound):
        store.rename_file(A, "gone.md", "b.md")
    assert data(recount) == before  # no row left behind at b.md


def test_an_existing_destination_is_refused(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "a.md", "a")
    store.write_file(A, "b.md", "b")
    before = data(recount)
    with pytest.raises(InvalidInput, match=r"Cannot rename a\.md to b\.md: b\.md already exists \(version 1\)"):
        store.rename_file(A, "a.md", "b.md")
    with pytest.raises(InvalidInput, match="already exists"):
        store.rename_file(A, "a.md", "a.md")
    assert store.read_file(A, "b.md").content == "b"
    assert data(recount) == before


def test_expected_version_is_checked_against_the_source(store: Scratchpad) -> None:
    store.write_file(A, "a.md", "1")
    store.write_file(A, "a.md", "2")
    with pytest.raises(VersionConflict) as conflict:
        store.rename_file(A, "a.md", "b.md", expected_version=1)
    assert conflict.value.current_version == 2
    with pytest.raises(VersionConflict):
        store.rename_file(A, "missing.md", "b.md", expected_version=1)
    assert store.rename_file(A, "a.md", "b.md", expected_version=2).version == 2


def test_invalid_paths_are_refused(store: Scratchpad) -> None:
    store.write_file(A, "a.md", "1")
    with pytest.raises(InvalidPath):
        store.rename_file(A, "a.md", "has space.md")
    with pytest.raises(InvalidInput):
        store.rename_file(A, "a.md", "b.md", expected_version=-1)


def test_the_summary_moves_too(make_store: StoreFactory, recount: Recounter) -> None:
    fake = FakeSummarizer()
    store = make_store(summarizer=fake)
    store.write_file(A, "old.md", "x" * 9000)
    store.summarize_file(A, "old.md")
    store.rename_file(A, "old.md", "new.md")
    assert store.summarize_file(A, "new.md").cached is True
    assert fake.calls == ["old.md"]
    assert recount.summaries(A) == [("new.md", 1, "summary of old.md (9000 chars)")]


def test_the_summary_moves_onto_a_deleted_path_renumbered(make_store: StoreFactory, recount: Recounter) -> None:
    fake = FakeSummarizer()
    store = make_store(summarizer=fake)
    store.write_file(A, "new.md", "old")
    store.delete_file(A, "new.md")
    store.write_file(A, "old.md", "x" * 9000)
    store.summarize_file(A, "old.md")
    store.rename_file(A, "old.md", "new.md")
    assert store.summarize_file(A, "new.md").cached is True
    assert recount.summaries(A) == [("new.md", 2, "summary of old.md (9000 chars)")]


def test_a_prefix_moves_in_one_call(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "d/a.md", "a")
    store.write_file(A, "d/a.md", "aa")
    store.write_file(A, "d/sub/b.md", "b")
    store.write_file(A, "dx.md", "not under d/")
    before = recount.check(store, A)

    moved = store.rename_prefix(A, "d/", "e/f/")

    assert moved.files == [RenameResult("d/a.md", "e/f/a.md", 2), RenameResult("d/sub/b.md", "e/f/sub/b.md", 1)]
    assert [f.path for f in store.list_files(A).files] == ["dx.md", "e/f/a.md", "e/f/sub/b.md"]
    assert history(store, "e/f/a.md") == [(1, "a"), (2, "aa")]
    after = recount.check(store, A)
    assert (after.file_count, after.total_bytes) == (before.file_count, before.total_bytes)


def test_a_prefix_move_is_all_or_nothing(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "d/a.md", "a")
    store.write_file(A, "d/b.md", "b")
    store.write_file(A, "e/b.md", "taken")
    before = data(recount)
    with pytest.raises(InvalidInput, match=r"e/b\.md already exists"):
        store.rename_prefix(A, "d/", "e/")
    assert data(recount) == before
    with pytest.raises(NotFound):
        store.rename_prefix(A, "nothing/", "x/")


@pytest.mark.parametrize(("prefix", "new_prefix"), [("d/", "d/e/"), ("d/e/", "d/"), ("", "x/"), ("d/", "")])
def test_a_prefix_cannot_move_into_itself(store: Scratchpad, prefix: str, new_prefix: str) -> None:
    store.write_file(A, "d/e/a.md", "a")
    with pytest.raises(InvalidInput, match="cannot move into itself"):
        store.rename_prefix(A, prefix, new_prefix)


def test_a_prefix_move_checks_every_new_path(store: Scratchpad) -> None:
    store.write_file(A, "d/" + "x" * 250, "a")
    with pytest.raises(InvalidPath, match="at most 255 characters"):
        store.rename_prefix(A, "d/", "longer/")
    assert store.list_files(A).count == 1


def test_many_moves_keep_the_remembered_deletions_bounded(make_store: StoreFactory, recount: Recounter) -> None:
    store = make_store(limits=Limits(remembered_deletions=2))
    for name in ("a", "b", "c"):
        store.write_file(A, f"d/{name}.md", name)
        store.write_file(A, f"e/{name}.md", "old")
        store.delete_file(A, f"e/{name}.md")  # three deleted paths, two remembered: e/b.md and e/c.md
    store.rename_prefix(A, "d/", "e/")
    assert [(v.path, v.current_version) for v in store.list_files(A).files] == [
        ("e/a.md", 1), ("e/b.md", 2), ("e/c.md", 2),
    ]  # fmt: skip
    assert recount.check(store, A).file_count == 3


def test_delete_prefix_deletes_every_file_under_it(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "d/a.md", "a")
    store.write_file(A, "d/a.md", "aa")
    store.write_file(A, "d/s/b.md", "b")
    store.write_file(A, "dx.md", "x")
    assert store.delete_prefix(A, "d/") == DeletePrefixResult("d/", 2, 3)
    assert [f.path for f in store.list_files(A).files] == ["dx.md"]
    assert store.write_file(A, "d/a.md", "again").version == 3
    assert recount.check(store, A).total_bytes == 6
    assert store.delete_prefix(A, "") == DeletePrefixResult("", 2, 2)
    assert recount.check(store, A).file_count == 0
    assert store.delete_prefix(A, "nothing/") == DeletePrefixResult("nothing/", 0, 0)


def test_other_agents_are_untouched(store: Scratchpad) -> None:
    store.write_file(A, "d/a.md", "a")
    store.write_file("agent-b", "d/a.md", "b")
    store.rename_prefix(A, "d/", "e/")
    store.delete_prefix(A, "")
    assert store.read_file("agent-b", "d/a.md").content == "b"
    with pytest.raises(NotFound):
        store.rename_file(A, "d/a.md", "x.md")


def test_a_prefix_no_path_can_have_matches_nothing(store: Scratchpad) -> None:
    store.write_file(A, "a/b.md", "x")
    assert store.delete_prefix(A, "a b/") == DeletePrefixResult("a b/", 0, 0)
    with pytest.raises(NotFound, match="No file under a%/"):
        store.rename_prefix(A, "a%/", "c/")
    assert store.list_files(A).count == 1
