"""The real-bug benchmark's worst-case rank when several of a fix's lines tie."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

from bench_localize_real import first_faulty


def test_one_faulty_line_in_a_tie_is_at_the_groups_last_position():
    # ranks are each listed line's worst-case rank: a group of three tied at 2..4
    assert first_faulty([1, 4, 4, 4], [False, False, True, False]) == 4


def test_tied_faulty_lines_count_once_the_others_still_first():
    # two of the three tied lines are the fix's: the worst order shows the other first
    assert first_faulty([1, 4, 4, 4], [False, True, True, False]) == 3
    # every line of the top group is the fix's: the first line shown is faulty
    assert first_faulty([2, 2, 3], [True, True, False]) == 1


def test_no_faulty_line_listed_is_no_rank():
    assert first_faulty([1, 2], [False, False]) is None
