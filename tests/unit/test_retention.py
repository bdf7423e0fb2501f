"""The retention rule (scratchpad_core.retention.rules): durations, what a rule must hold, which rule governs a path,
and which entries a trim drops."""

from __future__ import annotations

import pytest

from scratchpad_core.errors import InvalidInput
from scratchpad_core.retention.rules import (
    DROP_BATCH,
    FILES,
    LOGS,
    MAX_KEEP_ENTRIES,
    RetentionRule,
    drop_below,
    format_duration,
    make_rule,
    parse_duration,
    rule_for,
)


@pytest.mark.parametrize(("text", "seconds"), [("90s", 90), ("15m", 900), ("12h", 43_200), ("30d", 2_592_000)])
def test_durations_read_and_write_back(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds
    assert parse_duration(format_duration(seconds)) == seconds
    assert format_duration(seconds) == text


@pytest.mark.parametrize("text", ["", "30", "d", "1.5h", "-5m", "5 weeks", "5w", "1e3s", "5M"])
def test_a_duration_without_a_known_unit_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(InvalidInput, match=r"^Invalid duration .*: write a whole number and a unit, e\.g\. 90s"):
        parse_duration(text)


@pytest.mark.parametrize("text", ["0s", "0d", "000m"])
def test_a_duration_must_be_positive(text: str) -> None:
    with pytest.raises(InvalidInput, match="must be positive"):
        parse_duration(text)


def test_a_rule_needs_keep_entries_or_max_age() -> None:
    with pytest.raises(InvalidInput) as refused:
        make_rule("a", logs="runs/")
    assert str(refused.value) == (
        "Invalid retention rule: give keep-entries N, max-age DURATION (90s, 15m, 12h or 30d) or both; nothing was set."
    )
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize("keep", [0, -1])
def test_keep_entries_must_be_positive(keep: int) -> None:
    with pytest.raises(InvalidInput, match=f"Invalid keep-entries {keep}: it must be positive"):
        make_rule("a", logs="runs/", keep_entries=keep)


def test_a_rule_names_exactly_one_target_and_a_valid_prefix() -> None:
    with pytest.raises(InvalidInput, match="exactly one of the two"):
        make_rule("a", keep_entries=3)
    with pytest.raises(InvalidInput, match="exactly one of the two"):
        make_rule("a", logs="x/", files="y/", keep_entries=3)
    with pytest.raises(InvalidInput, match=r"Invalid logs prefix 'run s/'"):
        make_rule("a", logs="run s/", keep_entries=3)
    with pytest.raises(InvalidInput, match="keep-entries is for logs"):
        make_rule("a", files="tmp/", keep_entries=3, max_age="7d")
    with pytest.raises(InvalidInput, match=r"Invalid logs prefix '/abs': no path starts so\. .*leading '/'"):
        make_rule("a", logs="/abs", max_age="1d")
    with pytest.raises(InvalidInput, match=r"Invalid files prefix '\.\./x': no path starts so\. .*'\.\.'"):
        make_rule("a", files="../x", max_age="1d")
    assert make_rule("a", logs="", max_age="1d").prefix == ""  # every log


def test_keep_entries_has_one_upper_bound_on_every_backend() -> None:
    assert make_rule("a", logs="runs/", keep_entries=MAX_KEEP_ENTRIES).keep_entries == MAX_KEEP_ENTRIES
    with pytest.raises(InvalidInput, match=r"Invalid keep-entries 2147483648: at most 2,147,483,647"):
        make_rule("a", logs="runs/", keep_entries=MAX_KEEP_ENTRIES + 1)


def test_a_rule_holds_what_it_was_given() -> None:
    rule = make_rule("a", logs="runs/", keep_entries=5, max_age="30d")
    assert rule == RetentionRule("a", LOGS, "runs/", 5, 2_592_000)
    assert make_rule("a", files="tmp/", max_age=60) == RetentionRule("a", FILES, "tmp/", None, 60)
    assert make_rule("a", logs="", max_age="1h").prefix == ""  # every log of the agent


def test_the_longest_prefix_governs() -> None:
    every, runs, one = (RetentionRule("a", LOGS, p, 1) for p in ("", "runs/", "runs/one.log"))
    rules = [runs, every, one]
    assert rule_for(rules, "runs/one.log") == one
    assert rule_for(rules, "runs/two.log") == runs
    assert rule_for(rules, "other.log") == every
    assert rule_for([runs], "other.log") is None


def test_drop_below_keeps_exactly_n_and_drops_a_bounded_batch() -> None:
    keep3 = RetentionRule("a", LOGS, "", keep_entries=3)
    assert drop_below(keep3, 1, 3, None) == 1  # at the limit: nothing goes
    assert drop_below(keep3, 1, 4, None) == 2  # one past: the oldest goes
    assert drop_below(keep3, 1, 10_000, None) == 1 + DROP_BATCH  # far past a new rule: one batch
    aged = RetentionRule("a", LOGS, "", max_age=60)
    assert drop_below(aged, 5, 9, 7) == 7  # 5 and 6 are old, 7 is the oldest young one
    assert drop_below(aged, 5, 9, None) == 10  # every one old (a prune decides what then)
    assert drop_below(aged, 5, 9, 5) == 5
    both = RetentionRule("a", LOGS, "", keep_entries=2, max_age=60)
    assert drop_below(both, 1, 5, 1) == 4  # the count decides
    assert drop_below(both, 1, 5, 5) == 5  # the age decides
