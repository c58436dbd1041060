"""A failure block whose header is longer than the terminal is wide: pytest pads its title
with a single underscore each side; each test keeps its own traceback (recorded log of a
real pytest 8.3.5 run: tests/diagnose/recorded/README.md)."""

from __future__ import annotations

from pathlib import Path

from truegreen.diagnose import diagnose_text
from truegreen.diagnose.pytest_parse import block_header

LOG = Path(__file__).parent / "recorded" / "pytest-8.3-long-names.log"
FILE = "tests/test_relativedelta_long.py"
CASE = f"{FILE}::RelativeDeltaWeeksPropertySetterTest::"


def test_each_long_named_failure_gets_its_own_traceback() -> None:
    doc = diagnose_text(LOG.read_text(encoding="utf-8")).document()
    got = {s["test"]: s["signature"].split("#")[0] for s in doc["signatures"]}
    assert got == {
        f"{CASE}test_minus_height_days_set_minus_one_week": (
            f"AssertionError@{FILE}:test_minus_height_days_set_minus_one_week"
        ),
        f"{CASE}test_minus_height_days_set_minus_two_weeks_then_add_seven": (
            f"AssertionError@{FILE}:test_minus_height_days_set_minus_two_weeks_then_add_seven"
        ),
        # its traceback's two entries (the test, then the helper that raised) are one block
        f"{CASE}test_plus_height_days_set_plus_one_week_and_keep_the_days": (
            f"ValueError@{FILE}:keep_days"
        ),
        f"{CASE}test_short": f"AssertionError@{FILE}:test_short",
        f"{FILE}::test_a_module_level_test_whose_name_alone_is_longer_than_the_terminal_is_wide_at_all": (
            f"KeyError@{FILE}:test_a_module_level_test_whose_name_alone_is_longer_than_the_terminal_is_wide_at_all"
        ),
    }
    assert doc["reasons"] == ["5 failing test(s) in the log"]
    assert len(doc["failing_tests"]) == 5


def test_a_header_has_at_least_one_underscore_each_side() -> None:
    assert block_header("_ Case.test_a_very_long_name _") == "Case.test_a_very_long_name"
    assert block_header("_ Case.test_a_very_long_name __") == "Case.test_a_very_long_name"
    assert block_header("____ test_x[a _ b] ____") == "test_x[a _ b]"
    # the separator between a long traceback's entries, and a bare rule, are no header
    assert block_header("_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _") is None
    assert block_header("_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _") is None
    assert block_header("________________________________________") is None
    assert block_header("__init__") is None
