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


# -- expectations rewritten in another shape (a flipped polarity, a container) ----------

GRAPH = "src/graphs/function.py"
GRAPH_CODE = """\
def is_weighted(edges, weight="weight"):
    return bool(edges) and all(weight in d for d in edges)


def degree_histogram(degrees):
    counts = [0] * (max(degrees) + 1)
    for d in degrees:
        counts[d] += 1
    return counts


def number_of_nodes(nodes):
    return len(nodes) - 1
"""
#: the real fix (number_of_nodes counted one node too few)
GRAPH_FIXED = GRAPH_CODE.replace("len(nodes) - 1", "len(set(nodes))")
GRAPH_TEST = "tests/test_function.py"
GRAPH_TESTS = """\
import unittest

import pytest

from graphs.function import degree_histogram, is_weighted, number_of_nodes


def test_is_weighted():
    assert is_weighted([{"weight": 1}, {"weight": 2}])
    assert not is_weighted([{"weight": 1}, {}])


def test_degree_histogram():
    assert degree_histogram([0, 1, 2, 3, 4]) == [1, 1, 1, 1, 1]


def test_number_of_nodes():
    assert number_of_nodes([1, 2]) == 2
    assert number_of_nodes([1, 1]) != 2
    assert number_of_nodes([3]) in (1, 2)


def test_histogram_needs_degrees():
    with pytest.raises(ValueError):
        degree_histogram([])


class TestUnweighted(unittest.TestCase):
    def test_empty(self):
        self.assertFalse(is_weighted([]))
        self.assertEqual(degree_histogram([1, 1]), [0, 2])
        self.assertIsNone(None)
"""


def graph_found(head_tests: str, head_code: str = GRAPH_FIXED) -> list[Reason]:
    return analyze(
        ChangeSnapshot(
            {GRAPH: GRAPH_CODE.encode(), GRAPH_TEST: GRAPH_TESTS.encode()},
            {GRAPH: head_code.encode(), GRAPH_TEST: head_tests.encode()},
        )
    )


def test_a_negated_assertion_rewritten_with_the_code_escalates() -> None:
    """networkx 3.2.1: the fix also turned is_weighted's all() into any() and its test's
    `assert not nx.is_weighted(G)` into `assert nx.is_weighted(G)`: approved before."""
    broken = GRAPH_FIXED.replace("all(weight", "any(weight")
    head = GRAPH_TESTS.replace(
        'assert not is_weighted([{"weight": 1}, {}])', 'assert is_weighted([{"weight": 1}, {}])'
    )
    reasons = graph_found(head, broken)
    assert codes(reasons) == [R.TAMPER_EXPECTATION_CHANGED]
    r = reasons[0]
    assert (r.file, r.line, r.severity) == (GRAPH_TEST, 10, "inconclusive")
    assert (
        "`assert not is_weighted([{'weight': 1}, {}])` -> `assert is_weighted([{'weight': 1}, {}])`"
        in r.detail
    )
    assert "graphs.function" in r.detail


def test_an_expected_list_of_another_length_escalates() -> None:
    """`[1, 1, 1, 1, 1]` -> `[1, 1, 1, 1]` in an `assert x == [...]`: a skeleton of its
    own before, so never paired."""
    broken = GRAPH_FIXED.replace("(max(degrees) + 1)", "max(degrees)")
    head = GRAPH_TESTS.replace("== [1, 1, 1, 1, 1]", "== [1, 1, 1, 1]")
    reasons = graph_found(head, broken)
    assert codes(reasons) == [R.TAMPER_EXPECTATION_CHANGED]
    assert "`== [1, 1, 1, 1, 1]` ->" not in reasons[0].detail  # both whole assertions
    assert "== [1, 1, 1, 1, 1]` -> `assert degree_histogram([0, 1, 2, 3, 4]) == [1, 1, 1, 1]`" in (
        reasons[0].detail
    )


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # polarity turned round
        (
            'assert is_weighted([{"weight": 1}, {"weight": 2}])',
            'assert not is_weighted([{"weight": 1}, {"weight": 2}])',
        ),
        (
            'assert is_weighted([{"weight": 1}, {"weight": 2}])',
            'assert is_weighted([{"weight": 1}, {"weight": 2}]) is False',
        ),
        (
            'assert not is_weighted([{"weight": 1}, {}])',
            'assert is_weighted([{"weight": 1}, {}]) is True',
        ),
        ("number_of_nodes([1, 2]) == 2", "number_of_nodes([1, 2]) != 2"),
        ("number_of_nodes([1, 1]) != 2", "number_of_nodes([1, 1]) == 2"),
        ("number_of_nodes([3]) in (1, 2)", "number_of_nodes([3]) not in (1, 2)"),
        ("self.assertFalse(is_weighted([]))", "self.assertTrue(is_weighted([]))"),
        ("self.assertIsNone(None)", "self.assertIsNotNone(None)"),
        # a container of expected values: elements added, removed or changed
        ("number_of_nodes([3]) in (1, 2)", "number_of_nodes([3]) in (1, 2, 0)"),
        ("degree_histogram([1, 1]), [0, 2])", "degree_histogram([1, 1]), [0, 2, 0])"),
        ("degree_histogram([1, 1]), [0, 2])", "degree_histogram([1, 1]), [0, 3])"),
        ("degree_histogram([1, 1]), [0, 2])", "degree_histogram([1, 1]), {0: 0, 1: 2})"),
        # a call that raised now returns the expected value, or the reverse
        (
            "    with pytest.raises(ValueError):\n        degree_histogram([])\n",
            "    assert degree_histogram([]) == []\n",
        ),
        (
            "    assert number_of_nodes([1, 2]) == 2\n",
            "    with pytest.raises(ValueError):\n        number_of_nodes([1, 2])\n",
        ),
        (
            "        self.assertEqual(degree_histogram([1, 1]), [0, 2])\n",
            "        self.assertRaises(IndexError, degree_histogram, [1, 1])\n",
        ),
    ],
)
def test_an_expectation_rewritten_in_another_shape_escalates(old: str, new: str) -> None:
    assert old in GRAPH_TESTS
    reasons = graph_found(GRAPH_TESTS.replace(old, new, 1))
    assert R.TAMPER_EXPECTATION_CHANGED in codes(reasons), old
    detail = next(r.detail for r in reasons if r.code == R.TAMPER_EXPECTATION_CHANGED)
    assert " -> " in detail


@pytest.mark.parametrize(
    ("label", "old", "new", "code"),
    [
        # no code changed: a test edited alone is not "in the same change"
        (
            "test only",
            'assert not is_weighted([{"weight": 1}, {}])',
            'assert is_weighted([{"weight": 1}, {}])',
            GRAPH_CODE,
        ),
        ("test only, a list", "== [1, 1, 1, 1, 1]", "== [1, 1, 1, 1]", GRAPH_CODE),
        # stronger: made exact, narrowed, an assertion or a raises check added
        ("!= made exact", "number_of_nodes([1, 1]) != 2", "number_of_nodes([1, 1]) == 1", None),
        ("in narrowed", "number_of_nodes([3]) in (1, 2)", "number_of_nodes([3]) in (1,)", None),
        ("in made exact", "number_of_nodes([3]) in (1, 2)", "number_of_nodes([3]) == 1", None),
        (
            "truthy made exact",
            'assert is_weighted([{"weight": 1}, {"weight": 2}])',
            'assert is_weighted([{"weight": 1}, {"weight": 2}]) is True',
            None,
        ),
        (
            "assertion added",
            "== [1, 1, 1, 1, 1]\n",
            "== [1, 1, 1, 1, 1]\n    assert degree_histogram([2]) == [0, 0, 1]\n",
            None,
        ),
        (
            "raises added",
            "        degree_histogram([])\n",
            "        degree_histogram([])\n    with pytest.raises(TypeError):\n"
            "        degree_histogram(None)\n",
            None,
        ),
        ("a message added", "[0, 2])", "[0, 2], 'histogram')", None),
        # another check, not a rewritten one: an input changed
        ("an input changed", "degree_histogram([0, 1, 2, 3, 4])", "degree_histogram([0, 1])", None),
        ("reformatted", "[1, 1, 1, 1, 1]", "[\n        1, 1, 1, 1, 1,\n    ]", None),
    ],
)
def test_what_is_not_an_expectation_change_in_another_shape(
    label: str, old: str, new: str, code: str | None
) -> None:
    assert old in GRAPH_TESTS, label
    reasons = graph_found(GRAPH_TESTS.replace(old, new, 1), code or GRAPH_FIXED)
    assert R.TAMPER_EXPECTATION_CHANGED not in codes(reasons), (label, reasons)


def test_a_flipped_test_of_code_the_change_leaves_alone_is_not_held_to_it() -> None:
    """An unrelated test edit: its file imports no changed module."""
    other, other_code = "tests/test_other.py", "src/graphs/other.py"
    base_t = "from graphs.other import ok\n\n\ndef test_ok():\n    assert not ok()\n    assert ok() == [1, 1]\n"
    head_t = base_t.replace("assert not ok()", "assert ok()").replace("[1, 1]", "[1]")
    reasons = analyze(
        ChangeSnapshot(
            {
                GRAPH: GRAPH_CODE.encode(),
                other: base_t.encode(),
                other_code: b"def ok():\n    return []\n",
            },
            {
                GRAPH: GRAPH_FIXED.encode(),
                other: head_t.encode(),
                other_code: b"def ok():\n    return []\n",
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
