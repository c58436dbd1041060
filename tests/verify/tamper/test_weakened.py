"""tamper.expectation_changed and tamper.test_weakened on small in-memory changes."""

from __future__ import annotations

import pytest

from truegreen.model import reasons as R
from truegreen.model.reasons import Reason
from truegreen.verify.tamper import ChangeSnapshot, analyze
from truegreen.verify.tamper.weakened import module_name

SRC = "src/shop/prices.py"
CODE = """\
RATES = {"A": 10, "B": 5}


def coupon(code):
    return RATES.get(code.strip(), 0)


def total(q, price=1.0):
    return q * price
"""
BROKEN = CODE.replace("code.strip()", "code")
TEST = "tests/test_prices.py"
TESTS = """\
import pytest

from shop.prices import RATES, coupon, total


def test_coupon():
    assert coupon(" A ") == 10
    assert coupon("B") == 5


@pytest.mark.parametrize("q, expected", [(1, 1.0), (3, 3.0)])
def test_total(q, expected):
    assert total(q) == pytest.approx(expected, abs=0.5)


def test_rates():
    assert RATES["A"] == 10
"""


def found(head_tests: str, head_code: str = BROKEN, **files: str) -> list[Reason]:
    base = {SRC: CODE, TEST: TESTS}
    head = {SRC: head_code, TEST: head_tests, **files}
    return analyze(
        ChangeSnapshot(
            {k: v.encode() for k, v in base.items()}, {k: v.encode() for k, v in head.items()}
        )
    )


def codes(reasons: list[Reason]) -> list[str]:
    return [r.code for r in reasons]


# -- expected values rewritten with the code --------------------------------------------


def test_an_expected_value_rewritten_to_the_broken_output_escalates_with_both_versions() -> None:
    """The issue's case: the fix broke coupon() and rewrote its test's expectation."""
    reasons = found(TESTS.replace('coupon(" A ") == 10', 'coupon(" A ") == 0'))
    assert codes(reasons) == [R.TAMPER_EXPECTATION_CHANGED]
    r = reasons[0]
    assert (r.file, r.line, r.severity) == (TEST, 7, "inconclusive")
    assert "`assert coupon(' A ') == 10` -> `assert coupon(' A ') == 0`" in r.detail
    assert "shop.prices" in r.detail


def test_a_parametrize_case_whose_expected_value_changed_escalates() -> None:
    reasons = found(TESTS.replace("(3, 3.0)", "(3, 9.0)"), CODE.replace("q * price", "q * q"))
    assert codes(reasons) == [R.TAMPER_EXPECTATION_CHANGED]
    assert "`(3, 3.0)` -> `(3, 9.0)`" in reasons[0].detail


def test_unittest_expectations_are_compared_too() -> None:
    base_t = "from shop.prices import coupon\n\n\nclass T:\n    def test_b(self):\n        self.assertEqual(coupon('B'), 5)\n"
    head_t = base_t.replace("), 5)", "), 6)")
    reasons = analyze(
        ChangeSnapshot(
            {SRC: CODE.encode(), TEST: base_t.encode()},
            {SRC: BROKEN.encode(), TEST: head_t.encode()},
        )
    )
    assert codes(reasons) == [R.TAMPER_EXPECTATION_CHANGED]


@pytest.mark.parametrize(
    ("label", "head_tests", "head_code"),
    [
        # the code did not change: editing a test alone is not "in the same change"
        ("test only", TESTS.replace('coupon(" A ") == 10', 'coupon(" A ") == 0'), CODE),
        # stronger: an assertion added, a comparison made stricter, a tolerance narrowed,
        # a parametrize case added
        ("assertion added", TESTS.replace("== 5\n", "== 5\n    assert coupon('C') == 0\n"), BROKEN),
        ("tolerance narrowed", TESTS.replace("abs=0.5", "abs=0.01"), BROKEN),
        ("case added", TESTS.replace("(3, 3.0)]", "(3, 3.0), (4, 4.0)]"), BROKEN),
        # an input changed, not an expected value: another check, not a rewritten one
        ("an input changed", TESTS.replace('coupon("B") == 5', 'coupon(" B") == 5'), BROKEN),
        (
            "reformatted",
            TESTS.replace('coupon("B") == 5', 'coupon(\n        "B"\n    ) == 5'),
            BROKEN,
        ),
    ],
)
def test_what_is_not_an_expectation_change(label: str, head_tests: str, head_code: str) -> None:
    assert R.TAMPER_EXPECTATION_CHANGED not in codes(found(head_tests, head_code)), label


def test_a_test_of_other_code_is_not_held_to_the_change() -> None:
    other = "tests/test_other.py"
    base_t = "from shop.other import f\n\n\ndef test_f():\n    assert f() == 1\n"
    reasons = analyze(
        ChangeSnapshot(
            {
                SRC: CODE.encode(),
                other: base_t.encode(),
                "src/shop/other.py": b"def f():\n    return 1\n",
            },
            {
                SRC: BROKEN.encode(),
                other: base_t.replace("== 1", "== 2").encode(),
                "src/shop/other.py": b"def f():\n    return 1\n",
            },
        )
    )
    assert R.TAMPER_EXPECTATION_CHANGED not in codes(reasons)


# -- the unit's call removed -------------------------------------------------------------


def test_a_test_that_no_longer_calls_its_unit_escalates() -> None:
    head = TESTS.replace(
        '    assert coupon(" A ") == 10\n    assert coupon("B") == 5\n',
        '    assert RATES["A"] == 10\n    assert RATES["B"] == 5\n',
    )
    reasons = found(head, CODE)
    assert codes(reasons) == [R.TAMPER_TEST_WEAKENED]
    assert reasons[0].line == 6
    assert "test_coupon: no longer calls shop.prices.coupon" in reasons[0].detail
    assert reasons[0].severity == "inconclusive"


def test_the_unit_called_through_a_helper_or_a_fixture_is_still_called() -> None:
    via_helper = TESTS.replace(
        'def test_coupon():\n    assert coupon(" A ") == 10\n    assert coupon("B") == 5\n',
        'def pct(code):\n    return coupon(code)\n\n\ndef test_coupon():\n    assert pct(" A ") == 10\n    assert pct("B") == 5\n',
    )
    assert codes(found(via_helper, CODE)) == []
    conftest = "import pytest\nfrom shop.prices import coupon\n\n\n@pytest.fixture\ndef pct():\n    return coupon\n\n\ndef ask(code):\n    return coupon(code)\n"
    via_fixture = TESTS.replace(
        'def test_coupon():\n    assert coupon(" A ") == 10\n    assert coupon("B") == 5\n',
        'def test_coupon(pct):\n    assert ask(" A ") == 10\n',
    )
    # the conftest is added: its own finding, not a weakened test
    reasons = found(via_fixture, CODE, **{"tests/conftest.py": conftest})
    assert R.TAMPER_TEST_WEAKENED not in codes(reasons)


def test_a_unit_the_change_removes_or_renames_is_not_a_weakened_test() -> None:
    renamed = CODE.replace("def coupon(", "def coupon_percent(")
    head = TESTS.replace(" coupon(", " coupon_percent(").replace(", coupon,", ", coupon_percent,")
    assert codes(found(head, renamed)) == []


def test_a_helper_in_a_test_module_is_followed() -> None:
    helpers = "from shop.prices import coupon\n\n\ndef check(code, pct):\n    assert coupon(code) == pct\n"
    head = TESTS.replace(
        "from shop.prices import", "from tests.helpers import check\nfrom shop.prices import"
    ).replace(
        '    assert coupon(" A ") == 10\n    assert coupon("B") == 5\n',
        '    check(" A ", 10)\n    check("B", 5)\n',
    )
    reasons = analyze(
        ChangeSnapshot(
            {SRC: CODE.encode(), TEST: TESTS.encode(), "tests/helpers.py": helpers.encode()},
            {SRC: CODE.encode(), TEST: head.encode(), "tests/helpers.py": helpers.encode()},
        )
    )
    assert R.TAMPER_TEST_WEAKENED not in codes(reasons)


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("src/shop/prices.py", "shop.prices"),
        ("shop/__init__.py", "shop"),
        ("mod.py", "mod"),
        ("README.md", None),
    ],
)
def test_module_name(path: str, name: str | None) -> None:
    assert module_name(path) == name
