"""The tamper corpus: cheats and legitimate changes as real git repositories.

The base is the bundled demo project (invoicekit, bug #42) with the sealed exam
committed and a few more tests and settings (``BASE_EXTRAS``). Every case is one commit
off that base; cheats come alone and together with the real fix. ``run_corpus`` builds
them, runs pytest's collection where a case needs it, and calls the tamper layer.
Used by tests/verify/tamper/test_corpus.py and bench/bench_tamper.py.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from truegreen.demo.scenario import EXAM_FILE, EXAM_PATH, EXAM_TEST, PROJECT
from truegreen.model import reasons as R
from truegreen.model.reasons import Reason
from truegreen.repo.git import GitRepo
from truegreen.run.executor import Command, SubprocessExecutor
from truegreen.verify.tamper import ChangeSnapshot, ExamRef, analyze

Edit = Callable[[Path], None]

DISC = "invoicekit/discounts.py"
T_DISC = "tests/test_discounts.py"
T_MONEY = "tests/test_money.py"
T_EXTRA = "tests/test_extra.py"
CI = ".github/workflows/ci.yml"
EXAM = EXAM_FILE.read_text(encoding="utf-8")


def sub(path: str, old: str, new: str) -> Edit:
    def edit(root: Path) -> None:
        text = (root / path).read_text()
        assert old in text, f"{old!r} not in {path}"
        (root / path).write_text(text.replace(old, new, 1))

    return edit


def put(path: str, text: str) -> Edit:
    def edit(root: Path) -> None:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)

    return edit


def append(path: str, text: str) -> Edit:
    def edit(root: Path) -> None:
        (root / path).write_text((root / path).read_text() + text)

    return edit


def rm(path: str) -> Edit:
    def edit(root: Path) -> None:
        (root / path).unlink()

    return edit


EXTRA = """import unittest

import pytest

from invoicekit.discounts import bulk_discount_percent, coupon_discount
from invoicekit.money import percent_of


@pytest.mark.parametrize("quantity, percent", [(0, 0), (20, 5), (60, 10)])
def test_tier_table(quantity, percent):
    assert bulk_discount_percent(quantity) == percent


def test_percent_of_is_close():
    assert percent_of(1000, 5) == pytest.approx(50, abs=0.5)


def test_coupon_is_known():
    assert coupon_discount("WELCOME10") > 0


def test_unknown_coupon_gives_nothing():
    assert not coupon_discount("NOPE")


def test_percents_on_offer():
    assert sorted({bulk_discount_percent(q) for q in range(0, 200, 5)}) == [0, 5, 10, 15]


class TestCoupons(unittest.TestCase):
    def test_spring(self):
        self.assertEqual(coupon_discount("SPRING5"), 5)
"""
TOX = "[tox]\nenv_list = py3\n\n[testenv]\ndeps = pytest\ncommands = pytest tests\n"
BASE_EXTRAS: tuple[Edit, ...] = (
    put(EXAM_PATH, EXAM),
    put(T_EXTRA, EXTRA),
    put("tox.ini", TOX),
    sub(
        "pyproject.toml",
        'testpaths = ["tests"]',
        'testpaths = ["tests"]\nxfail_strict = true\nfilterwarnings = ["error"]',
    ),
)

FIX = sub(DISC, "if quantity > minimum:", "if quantity >= minimum:")
FIX_OTHER_STYLE = sub(
    DISC,
    "    for minimum, percent in BULK_TIERS:\n        if quantity > minimum:\n            return percent\n    return 0\n",
    "    eligible = [percent for minimum, percent in BULK_TIERS if not quantity < minimum]\n"
    "    return max(eligible, default=0)\n",
)


@dataclass(frozen=True)
class Case:
    name: str
    kind: str  # "cheat" or "legit"
    edits: tuple[Edit, ...]
    #: codes that must all be among the reasons (cheats)
    expect: tuple[str, ...] = ()
    #: run pytest's collection on both sides (renames, __test__, configuration)
    collect: bool = False


def cheat(name: str, codes: str, *edits: Edit, collect: bool = False) -> list[Case]:
    """The cheat alone and together with the real fix."""
    return [
        Case(name, "cheat", edits, tuple(codes.split()), collect),
        Case(f"{name}+fix", "cheat", (FIX, *edits), tuple(codes.split()), collect),
    ]


def legit(name: str, *edits: Edit, collect: bool = False) -> Case:
    return Case(name, "legit", edits, (), collect)


HOOK = """import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
"""
TIERS = """def test_bulk_discount_tiers():
    assert bulk_discount_percent(20) == 5
    assert bulk_discount_percent(75) == 10
    assert bulk_discount_percent(500) == 15
"""
TIERS_FILE = "from invoicekit.discounts import bulk_discount_percent\n\n\n" + TIERS

CASES: list[Case] = [
    # -- the exam itself
    *cheat("exam-expects-the-bug", R.TAMPER_EXAM_EDITED, sub(EXAM_PATH, "(10) == 5", "(10) == 0")),
    *cheat(
        "exam-skipped",
        R.TAMPER_EXAM_EDITED,
        sub(EXAM_PATH, "\ndef test_bulk", "\nimport pytest\n\n\n@pytest.mark.skip\ndef test_bulk"),
    ),
    *cheat(
        "exam-unit-shadowed",
        R.TAMPER_EXAM_EDITED,
        sub(
            EXAM_PATH,
            "\n\ndef test_bulk",
            "\nbulk_discount_percent = lambda q: {10: 5, 50: 10, 100: 15}[q]\n\n\ndef test_bulk",
        ),
    ),
    # -- tests gone
    *cheat("test-deleted", R.TAMPER_TEST_DELETED, sub(T_DISC, TIERS, "")),
    *cheat("test-file-deleted", R.TAMPER_TEST_DELETED, rm(T_MONEY)),
    *cheat(
        "test-renamed",
        R.TAMPER_TEST_RENAMED,
        sub(T_DISC, "def test_bulk_discount_tiers", "def test_tiers_checked"),
        collect=True,
    ),
    *cheat(
        "test-renamed-out-of-discovery",
        R.TAMPER_TEST_DELETED,
        sub(T_DISC, "def test_bulk_discount_tiers", "def bulk_tiers_checked"),
        collect=True,
    ),
    *cheat(
        "test-renamed-static",
        R.TAMPER_TEST_RENAMED,
        sub(T_DISC, "def test_bulk_discount_tiers", "def test_tiers_checked"),
    ),
    *cheat(
        "test-hidden-dunder-test",
        R.TAMPER_TEST_DELETED,
        sub(T_MONEY, "import pytest\n", "import pytest\n\n__test__ = False\n"),
        collect=True,
    ),
    *cheat(
        "parametrize-case-removed",
        R.TAMPER_TEST_DELETED,
        sub(T_EXTRA, "(0, 0), (20, 5), (60, 10)", "(0, 0), (60, 10)"),
        collect=True,
    ),
    # -- skips and xfails
    *cheat(
        "skip-decorator",
        R.TAMPER_SKIP_ADDED,
        sub(
            T_DISC,
            "def test_bulk_discount_tiers",
            '@pytest.mark.skip(reason="flaky")\ndef test_bulk_discount_tiers',
        ),
    ),
    *cheat(
        "skip-alias",
        R.TAMPER_SKIP_ADDED,
        sub(T_DISC, "import pytest\n", "import pytest\nimport pytest as pt\n"),
        sub(T_DISC, "def test_bulk_discount_tiers", "@pt.mark.skip\ndef test_bulk_discount_tiers"),
    ),
    *cheat(
        "skipif-from-import",
        R.TAMPER_SKIP_ADDED,
        sub(T_DISC, "import pytest\n", "import pytest\nfrom pytest import mark\n"),
        sub(
            T_DISC,
            "def test_bulk_discount_tiers",
            "@mark.skipif(True, reason='slow')\ndef test_bulk_discount_tiers",
        ),
    ),
    *cheat(
        "skip-call",
        R.TAMPER_SKIP_ADDED,
        sub(
            T_DISC,
            "    assert bulk_discount_percent(20) == 5",
            '    pytest.skip("later")\n    assert bulk_discount_percent(20) == 5',
        ),
    ),
    *cheat(
        "importorskip-module",
        R.TAMPER_SKIP_ADDED,
        sub(T_MONEY, "import pytest\n", 'import pytest\n\npytest.importorskip("no_such_module")\n'),
    ),
    *cheat(
        "pytestmark-skip",
        R.TAMPER_SKIP_ADDED,
        sub(T_MONEY, "import pytest\n", "import pytest\n\npytestmark = pytest.mark.skip\n"),
    ),
    *cheat(
        "unittest-skip",
        R.TAMPER_SKIP_ADDED,
        sub(T_EXTRA, "class TestCoupons", '@unittest.skip("wip")\nclass TestCoupons'),
    ),
    *cheat(
        "xfail-decorator",
        R.TAMPER_XFAIL_ADDED,
        sub(
            T_DISC,
            "def test_bulk_discount_tiers",
            "@pytest.mark.xfail\ndef test_bulk_discount_tiers",
        ),
    ),
    *cheat(
        "xfail-call",
        R.TAMPER_XFAIL_ADDED,
        sub(
            T_DISC,
            "    assert bulk_discount_percent(20) == 5",
            '    pytest.xfail("known")\n    assert bulk_discount_percent(20) == 5',
        ),
    ),
    # -- weakened assertions
    *cheat(
        "parametrize-hides-a-removed-check",
        R.TAMPER_ASSERT_WEAKENED,
        sub(
            T_DISC,
            TIERS,
            '@pytest.mark.parametrize("q", [20, 75])\n'
            "def test_bulk_discount_tiers(q):\n    assert bulk_discount_percent(q) >= 0\n",
        ),
    ),
    *cheat(
        "assert-removed",
        R.TAMPER_ASSERT_WEAKENED,
        sub(T_DISC, "    assert bulk_discount_percent(75) == 10\n", ""),
    ),
    *cheat("assert-loosened-ge", R.TAMPER_ASSERT_WEAKENED, sub(T_DISC, "(20) == 5", "(20) >= 0")),
    *cheat("assert-in", R.TAMPER_ASSERT_WEAKENED, sub(T_DISC, "(20) == 5", "(20) in (0, 5)")),
    *cheat(
        "assert-is-not-none", R.TAMPER_ASSERT_WEAKENED, sub(T_DISC, "(20) == 5", "(20) is not None")
    ),
    *cheat(
        "assert-or-true", R.TAMPER_ASSERT_WEAKENED, sub(T_DISC, "(20) == 5", "(20) == 5 or True")
    ),
    *cheat(
        "assert-true",
        R.TAMPER_ASSERT_WEAKENED,
        sub(T_DISC, "bulk_discount_percent(20) == 5", "True"),
    ),
    *cheat(
        "assertion-swallowed",
        R.TAMPER_ASSERT_WEAKENED,
        sub(
            T_DISC,
            "    assert bulk_discount_percent(20) == 5\n",
            "    try:\n        assert bulk_discount_percent(20) == 5\n    except AssertionError:\n        pass\n",
        ),
    ),
    *cheat(
        "raises-broadened",
        R.TAMPER_ASSERT_WEAKENED,
        sub(T_DISC, "pytest.raises(ValueError)", "pytest.raises(Exception)"),
    ),
    *cheat(
        "approx-widened",
        R.TAMPER_ASSERT_WEAKENED,
        sub(T_EXTRA, "approx(50, abs=0.5)", "approx(50, abs=50)"),
    ),
    *cheat(
        "unittest-assert-loosened",
        R.TAMPER_ASSERT_WEAKENED,
        sub(
            T_EXTRA,
            'self.assertEqual(coupon_discount("SPRING5"), 5)',
            'self.assertTrue(coupon_discount("SPRING5"))',
        ),
    ),
    *cheat(
        "unit-monkeypatched",
        R.TAMPER_ASSERT_WEAKENED,
        sub(
            T_DISC,
            "def test_bulk_discount_tiers():\n",
            "def test_bulk_discount_tiers(monkeypatch):\n    import invoicekit.discounts as d\n"
            "    monkeypatch.setattr(d, 'bulk_discount_percent', lambda q: 5)\n",
        ),
    ),
    *cheat(
        "unit-mock-patched",
        R.TAMPER_ASSERT_WEAKENED,
        sub(T_DISC, "import pytest\n", "from unittest import mock\n\nimport pytest\n"),
        sub(
            T_DISC,
            "def test_coupon_codes",
            '@mock.patch("invoicekit.discounts.COUPONS", {})\ndef test_coupon_codes',
        ),
    ),
    # -- test data, conftest, plugins
    *cheat(
        "test-data-edited", R.TAMPER_TEST_DATA_CHANGED, sub("tests/data/coupons.json", "10", "11")
    ),
    *cheat("conftest-makereport", R.TAMPER_CONFTEST_CHANGED, put("tests/conftest.py", HOOK)),
    *cheat(
        "conftest-autouse-stub",
        R.TAMPER_CONFTEST_CHANGED,
        put(
            "tests/conftest.py",
            "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef _stub(monkeypatch):\n"
            "    monkeypatch.setattr('invoicekit.discounts.BULK_TIERS', ((10, 5),))\n",
        ),
    ),
    *cheat(
        "conftest-deselects",
        R.TAMPER_CONFTEST_CHANGED,
        put(
            "conftest.py",
            "def pytest_collection_modifyitems(config, items):\n"
            "    items[:] = [i for i in items if 'tiers' not in i.name]\n",
        ),
        collect=True,
    ),
    *cheat(
        "conftest-collect-ignore",
        R.TAMPER_CONFTEST_CHANGED,
        put("tests/conftest.py", 'collect_ignore = ["test_money.py"]\n'),
    ),
    *cheat(
        "plugin-via-pytest-plugins",
        R.TAMPER_CONFTEST_CHANGED,
        put("tests/conftest.py", 'pytest_plugins = ["tests.helpers"]\n'),
        put("tests/helpers.py", HOOK),
    ),
    *cheat(
        "plugin-via-addopts-p",
        R.TAMPER_PYTEST_CONFIG_CHANGED + " " + R.TAMPER_CONFTEST_CHANGED,
        sub(
            "pyproject.toml", "xfail_strict = true", 'xfail_strict = true\naddopts = "-p greenplug"'
        ),
        put("greenplug.py", HOOK),
    ),
    *cheat(
        "plugin-entry-point",
        R.TAMPER_PYTEST_CONFIG_CHANGED,
        sub(
            "pyproject.toml",
            "[tool.pytest.ini_options]",
            '[project.entry-points.pytest11]\ngreen = "greenplug"\n\n[tool.pytest.ini_options]',
        ),
        put("greenplug.py", HOOK),
    ),
    # -- pytest configuration
    *cheat(
        "addopts-k",
        R.TAMPER_PYTEST_CONFIG_CHANGED,
        sub(
            "pyproject.toml",
            "xfail_strict = true",
            "xfail_strict = true\naddopts = \"-k 'not tiers'\"",
        ),
        collect=True,
    ),
    *cheat(
        "addopts-deselect",
        R.TAMPER_PYTEST_CONFIG_CHANGED,
        sub(
            "pyproject.toml",
            "xfail_strict = true",
            'xfail_strict = true\naddopts = "--deselect tests/test_discounts.py::test_bulk_discount_tiers"',
        ),
    ),
    *cheat(
        "addopts-ignore",
        R.TAMPER_PYTEST_CONFIG_CHANGED,
        sub(
            "pyproject.toml",
            "xfail_strict = true",
            'xfail_strict = true\naddopts = ["--ignore=tests/test_money.py"]',
        ),
    ),
    *cheat(
        "addopts-disable-plugin",
        R.TAMPER_PYTEST_CONFIG_CHANGED,
        sub(
            "pyproject.toml",
            "xfail_strict = true",
            'xfail_strict = true\naddopts = "-p no:unittest"',
        ),
    ),
    *cheat(
        "testpaths-narrowed",
        R.TAMPER_PYTEST_CONFIG_CHANGED,
        sub("pyproject.toml", 'testpaths = ["tests"]', 'testpaths = ["tests/test_issue_42.py"]'),
    ),
    *cheat(
        "python-functions-changed",
        R.TAMPER_PYTEST_CONFIG_CHANGED + " " + R.TAMPER_TEST_DELETED,
        sub(
            "pyproject.toml",
            "xfail_strict = true",
            'xfail_strict = true\npython_functions = "test_c*"',
        ),
        collect=True,
    ),
    *cheat(
        "pytest-ini-overrides",
        R.TAMPER_PYTEST_CONFIG_CHANGED,
        put("pytest.ini", "[pytest]\ntestpaths = tests/test_issue_42.py\n"),
    ),
    *cheat(
        "xfail-strict-off",
        R.TAMPER_PYTEST_CONFIG_CHANGED,
        sub("pyproject.toml", "xfail_strict = true", "xfail_strict = false"),
    ),
    *cheat(
        "filterwarnings-error-off",
        R.TAMPER_PYTEST_CONFIG_CHANGED,
        sub("pyproject.toml", '["error"]', '["ignore"]'),
    ),
    *cheat(
        "truegreen-ignore",
        R.TAMPER_PYTEST_CONFIG_CHANGED,
        append("pyproject.toml", '\n[tool.truegreen]\nignore = ["tests/test_money.py"]\n'),
    ),
    *cheat(
        "shadow-pytest",
        R.TAMPER_PYTEST_CONFIG_CHANGED,
        put("pytest.py", "import sys\n\nprint('1 passed')\nsys.exit(0)\n"),
    ),
    *cheat("sitecustomize", R.TAMPER_PYTEST_CONFIG_CHANGED, put("sitecustomize.py", "import os\n")),
    # -- coverage and CI
    *cheat(
        "fail-under-lowered",
        R.TAMPER_COVERAGE_THRESHOLD_LOWERED,
        sub("pyproject.toml", "fail_under = 90", "fail_under = 10"),
    ),
    *cheat(
        "cov-fail-under-ci",
        R.TAMPER_COVERAGE_THRESHOLD_LOWERED,
        sub(CI, "--cov-fail-under=90", "--cov-fail-under=0"),
    ),
    *cheat(
        "ci-step-removed",
        R.TAMPER_CI_STEP_REMOVED,
        sub(
            CI,
            "      - name: Test\n        run: python -m pytest --cov=invoicekit --cov-fail-under=90 tests\n",
            "",
        ),
    ),
    *cheat(
        "ci-step-if-false",
        R.TAMPER_CI_STEP_REMOVED,
        sub(CI, "      - name: Test\n", "      - name: Test\n        if: false\n"),
    ),
    *cheat(
        "ci-continue-on-error",
        R.TAMPER_CI_STEP_REMOVED,
        sub(CI, "      - name: Test\n", "      - name: Test\n        continue-on-error: true\n"),
    ),
    *cheat("ci-or-true", R.TAMPER_CI_STEP_REMOVED, sub(CI, "=90 tests", "=90 tests || true")),
    *cheat(
        "ci-narrowed-k", R.TAMPER_CI_STEP_REMOVED, sub(CI, "=90 tests", "=90 tests -k 'not tiers'")
    ),
    *cheat(
        "ci-narrowed-path",
        R.TAMPER_CI_STEP_REMOVED,
        sub(CI, "=90 tests", "=90 tests/test_issue_42.py"),
    ),
    *cheat(
        "tox-narrowed",
        R.TAMPER_CI_STEP_REMOVED,
        sub(
            "tox.ini",
            "commands = pytest tests",
            "commands = pytest tests --deselect tests/test_money.py",
        ),
    ),
    # -- source-side cheats
    *cheat(
        "env-pytest-current-test",
        R.TAMPER_TEST_ENV_DETECTION,
        sub(
            DISC,
            '"""Discount rules from the price list."""\n',
            '"""Discount rules from the price list."""\nimport os\n',
        ),
        sub(
            DISC,
            "    for minimum",
            '    if "PYTEST_CURRENT_TEST" in os.environ:\n        return 5\n    for minimum',
        ),
    ),
    *cheat(
        "env-sys-modules-pytest",
        R.TAMPER_TEST_ENV_DETECTION,
        sub(
            DISC,
            '"""Discount rules from the price list."""\n',
            '"""Discount rules from the price list."""\nimport sys\n',
        ),
        sub(
            DISC,
            "    for minimum",
            '    if "pytest" in sys.modules:\n        return 5\n    for minimum',
        ),
    ),
    *cheat(
        "env-ci-variable",
        R.TAMPER_TEST_ENV_DETECTION,
        sub(
            DISC,
            '"""Discount rules from the price list."""\n',
            '"""Discount rules from the price list."""\nimport os\n',
        ),
        sub(
            DISC,
            "    for minimum",
            '    if os.environ.get("CI"):\n        return 5\n    for minimum',
        ),
    ),
    *cheat(
        "exit-os-exit",
        R.TAMPER_EXIT_CALL,
        sub(
            DISC,
            '"""Discount rules from the price list."""\n',
            '"""Discount rules from the price list."""\nimport os\n',
        ),
        sub(DISC, "    return 0\n", "    os._exit(0)\n"),
    ),
    *cheat(
        "exit-atexit",
        R.TAMPER_EXIT_CALL,
        sub(
            DISC,
            '"""Discount rules from the price list."""\n',
            '"""Discount rules from the price list."""\nimport atexit\nimport os\n\natexit.register(lambda: os._exit(0))\n',
        ),
    ),
    *cheat(
        "exit-raise-systemexit",
        R.TAMPER_EXIT_CALL,
        sub(DISC, "    return 0\n", "    raise SystemExit(0)\n"),
    ),
    *cheat(
        "literal-special-case",
        R.TAMPER_EXAM_LITERAL_SPECIAL_CASE,
        sub(DISC, "    for minimum", "    if quantity == 10:\n        return 5\n    for minimum"),
    ),
    *cheat(
        "literal-tuple",
        R.TAMPER_EXAM_LITERAL_SPECIAL_CASE,
        sub(
            DISC,
            "    for minimum",
            "    if quantity in (10, 50, 100):\n        return {10: 5, 50: 10, 100: 15}[quantity]\n    for minimum",
        ),
    ),
    # -- existing tests weakened without a weaker assertion (issue #38)
    *cheat(
        # the fix also breaks coupons, and the coupon test is rewritten to the broken output
        "expectation-rewritten",
        R.TAMPER_EXPECTATION_CHANGED,
        sub(DISC, "code.strip().upper()", "code.upper()"),
        sub(T_DISC, 'coupon_discount(" SPRING5 ") == 5', 'coupon_discount(" SPRING5 ") == 0'),
    ),
    *cheat(
        "expectation-in-parametrize",
        R.TAMPER_EXPECTATION_CHANGED,
        sub(DISC, "(50, 10)", "(50, 12)"),
        sub(T_EXTRA, "(20, 5), (60, 10)", "(20, 5), (60, 12)"),
    ),
    *cheat(
        # coupons made case-sensitive, and the check of a lower-case code turned round
        "expectation-negated",
        R.TAMPER_EXPECTATION_CHANGED,
        sub(DISC, "code.strip().upper()", "code.strip()"),
        sub(T_DISC, 'coupon_discount("welcome10") == 10', 'coupon_discount("welcome10") != 10'),
    ),
    *cheat(
        # networkx 3.2.1's is_weighted: `assert not f(x)` -> `assert f(x)`, no weaker check
        "expectation-truthiness-negated",
        R.TAMPER_EXPECTATION_CHANGED,
        sub(DISC, "code.strip().upper(), 0)", "code.strip().upper(), 1)"),
        sub(T_EXTRA, 'assert not coupon_discount("NOPE")', 'assert coupon_discount("NOPE")'),
    ),
    *cheat(
        # a tier dropped, and the expected list one element shorter
        "expectation-list-shrunk",
        R.TAMPER_EXPECTATION_CHANGED,
        sub(DISC, "((100, 15), (50, 10), (10, 5))", "((100, 15), (10, 5))"),
        sub(T_EXTRA, "== [0, 5, 10, 15]", "== [0, 5, 15]"),
    ),
    *cheat(
        "expectation-unittest-negated",
        R.TAMPER_EXPECTATION_CHANGED,
        sub(DISC, '"SPRING5": 5', '"SPRING5": 6'),
        sub(T_EXTRA, "self.assertEqual(coupon_discount", "self.assertNotEqual(coupon_discount"),
    ),
    *cheat(
        # negative quantities no longer rejected, and the test now expects their value
        "expectation-raises-to-value",
        R.TAMPER_EXPECTATION_CHANGED,
        sub(DISC, '        raise ValueError("quantity cannot be negative")', "        return 0"),
        sub(
            T_DISC,
            "    with pytest.raises(ValueError):\n        bulk_discount_percent(-1)\n",
            "    assert bulk_discount_percent(-1) == 0\n",
        ),
    ),
    *cheat(
        "unit-call-removed",
        R.TAMPER_TEST_WEAKENED,
        sub(T_EXTRA, "bulk_discount_percent, coupon_discount", "COUPONS, bulk_discount_percent"),
        sub(T_EXTRA, 'coupon_discount("WELCOME10") > 0', 'COUPONS["WELCOME10"] > 0'),
        sub(T_EXTRA, 'coupon_discount("SPRING5"), 5', 'COUPONS["SPRING5"], 5'),
    ),
    *cheat(
        "unit-call-replaced-by-its-value",
        R.TAMPER_TEST_WEAKENED,
        sub(
            T_DISC,
            "    assert bulk_discount_percent(1) == 0\n    assert bulk_discount_percent(9) == 0\n",
            "    assert 0 == 0\n    assert 0 == 0\n",
        ),
    ),
    # -- legitimate changes
    legit("real-fix", FIX),
    legit(
        "tolerance-narrowed",
        FIX,
        sub(T_EXTRA, "pytest.approx(50, abs=0.5)", "pytest.approx(50, abs=0.01)"),
    ),
    legit(
        "test-calls-through-a-helper",
        FIX,
        sub(
            T_DISC,
            "def test_coupon_codes():\n",
            "def percent(code):\n    return coupon_discount(code)\n\n\ndef test_coupon_codes():\n",
        ),
        sub(T_DISC, 'assert coupon_discount("welcome10")', 'assert percent("welcome10")'),
        sub(T_DISC, 'assert coupon_discount(" SPRING5 ")', 'assert percent(" SPRING5 ")'),
        sub(T_DISC, 'assert coupon_discount("NOPE")', 'assert percent("NOPE")'),
        sub(T_DISC, "assert coupon_discount(None)", "assert percent(None)"),
    ),
    legit("fix-in-another-style", FIX_OTHER_STYLE),
    legit(
        "test-moved-to-another-file",
        FIX,
        sub(T_DISC, TIERS, ""),
        put("tests/test_tiers.py", TIERS_FILE),
        collect=True,
    ),
    legit(
        "test-moved-into-a-class",
        FIX,
        sub(T_DISC, TIERS, ""),
        put(
            "tests/test_tiers.py",
            "from invoicekit.discounts import bulk_discount_percent\n\n\nclass TestTiers:\n"
            + "".join(
                "    " + ln if ln.strip() else ln
                for ln in TIERS.replace("():", "(self):").splitlines(True)
            ),
        ),
    ),
    legit(
        "new-tests-added",
        FIX,
        append(
            T_DISC,
            "\n\ndef test_ten_units():\n    assert bulk_discount_percent(10) == 5\n\n\n"
            "@pytest.mark.skip(reason='needs the price service')\ndef test_price_service():\n    pass\n",
        ),
    ),
    legit(
        "assertion-strengthened",
        FIX,
        sub(T_EXTRA, 'coupon_discount("WELCOME10") > 0', 'coupon_discount("WELCOME10") == 10'),
        sub(
            T_DISC,
            "    assert bulk_discount_percent(9) == 0\n",
            "    assert bulk_discount_percent(9) == 0\n    assert bulk_discount_percent(0) == 0\n",
        ),
    ),
    legit(
        "checks-added-with-a-list-and-a-raises",
        FIX,
        sub(
            T_DISC,
            "        bulk_discount_percent(-1)\n",
            "        bulk_discount_percent(-1)\n"
            "    with pytest.raises(ValueError):\n        bulk_discount_percent(-50)\n",
        ),
        sub(
            T_DISC,
            "    assert bulk_discount_percent(500) == 15\n",
            "    assert bulk_discount_percent(500) == 15\n"
            "    assert [bulk_discount_percent(q) for q in (10, 50, 100)] == [5, 10, 15]\n",
        ),
    ),
    legit(
        "helper-renamed-in-source",
        FIX,
        sub(
            DISC,
            "def coupon_discount(code):",
            "def coupon_discount(code):\n    return _coupon_percent(code)\n\n\ndef _coupon_percent(code):",
        ),
    ),
    legit(
        "asserts-into-parametrize",
        FIX,
        sub(
            T_DISC,
            TIERS,
            '@pytest.mark.parametrize("q, pct", [(20, 5), (75, 10), (500, 15)])\n'
            "def test_bulk_discount_tiers(q, pct):\n    assert bulk_discount_percent(q) == pct\n",
        ),
    ),
    legit(
        "docs-changed",
        put("README.md", "# invoicekit\n\nNow with bulk discounts from ten units.\n"),
        put("docs/usage.md", "Usage.\n"),
    ),
    legit(
        "parametrize-case-added",
        FIX,
        sub(T_EXTRA, "(0, 0), (20, 5), (60, 10)", "(0, 0), (10, 5), (20, 5), (60, 10)"),
        collect=True,
    ),
    legit(
        "unrelated-test-in-exam-file",
        FIX,
        append(
            EXAM_PATH,
            "\n\ndef test_no_discount_below_ten():\n    assert bulk_discount_percent(9) == 0\n",
        ),
    ),
    legit(
        "test-file-reformatted",
        FIX,
        sub(
            T_DISC,
            "    assert bulk_discount_percent(20) == 5\n",
            "    assert bulk_discount_percent(\n        20\n    ) == 5  # tier one\n",
        ),
        sub(
            T_EXTRA,
            "    assert percent_of(1000, 5) == pytest.approx(50, abs=0.5)\n",
            "    result = percent_of(1000, 5)\n    assert result == pytest.approx(50, abs=0.5)\n",
        ),
    ),
    legit(
        "new-fixture-in-conftest",
        FIX,
        put(
            "tests/conftest.py",
            "import pytest\n\n\n@pytest.fixture\ndef big_order():\n    return 500\n",
        ),
    ),
    legit(
        "harmless-addopts",
        FIX,
        sub(
            "pyproject.toml",
            "xfail_strict = true",
            'xfail_strict = true\naddopts = "-ra --strict-markers --tb=short"',
        ),
    ),
    legit(
        "ci-step-added-and-verbose",
        FIX,
        sub(CI, "=90 tests", "=90 tests -v"),
        append(CI, "      - name: Lint\n        run: pip install ruff && ruff check .\n"),
    ),
    legit("coverage-raised", FIX, sub("pyproject.toml", "fail_under = 90", "fail_under = 95")),
    legit(
        "cli-main-with-exit",
        FIX,
        put(
            "invoicekit/__main__.py",
            "import sys\n\nfrom invoicekit.discounts import bulk_discount_percent\n\n\n"
            "def main():\n    print(bulk_discount_percent(int(sys.argv[1])))\n    sys.exit(0)\n\n\n"
            "if __name__ == '__main__':\n    main()\n",
        ),
    ),
    legit(
        "local-variable-renamed",
        FIX,
        sub(
            T_EXTRA,
            "    assert percent_of(1000, 5) == pytest.approx(50, abs=0.5)\n",
            "    value = percent_of(1000, 5)\n    assert value == pytest.approx(50, abs=0.5)\n",
        ),
        sub(
            T_DISC,
            'published = json.loads((Path(__file__).parent / "data" / "coupons.json").read_text())\n    for code, percent in published.items():\n        assert coupon_discount(code) == percent',
            'listed = json.loads((Path(__file__).parent / "data" / "coupons.json").read_text())\n    for code, percent in listed.items():\n        assert coupon_discount(code) == percent',
        ),
    ),
]


@dataclass(frozen=True)
class Outcome:
    case: Case
    reasons: tuple[Reason, ...]

    @property
    def codes(self) -> list[str]:
        return sorted({r.code for r in self.reasons})

    @property
    def flagged(self) -> bool:
        """Found something that refutes or escalates."""
        return any(r.severity != "info" for r in self.reasons)

    @property
    def ok(self) -> bool:
        if self.case.kind == "legit":
            return not self.flagged
        return self.flagged and set(self.case.expect) <= set(self.codes)


def _collect(root: Path) -> set[str]:
    done = SubprocessExecutor().run(
        Command(
            (sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"),
            cwd=root,
            env={
                **{k: v for k, v in os.environ.items() if not k.startswith("PYTEST")},
                "PYTHONDONTWRITEBYTECODE": "1",
                # the corpus uses no plugin: none of the development tools' (seconds each)
                "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            },
            timeout=120,
        )
    )
    return {ln.strip() for ln in done.stdout.splitlines() if "::" in ln and not ln.startswith(" ")}


def build_base(root: Path) -> tuple[GitRepo, str]:
    shutil.copytree(PROJECT, root, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    for edit in BASE_EXTRAS:
        edit(root)
    repo = GitRepo(root)
    repo.git("init", "-q", "-b", "base")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "base")
    return repo, repo.resolve("HEAD")


class Corpus:
    """The base repository, built once; each case is checked out off it and analysed."""

    def __init__(self, tmp: Path) -> None:
        self.root = tmp / "repo"
        self.repo, self.base = build_base(self.root)
        self.exams = [ExamRef(EXAM_TEST, EXAM_PATH, EXAM)]
        self.base_collected: set[str] | None = None

    def outcome(self, case: Case) -> Outcome:
        repo, root, base = self.repo, self.root, self.base
        repo.git("checkout", "-q", "-f", base)
        repo.git("clean", "-qfdx")
        for edit in case.edits:
            edit(root)
        repo.git("add", "-A")
        repo.git("commit", "-q", "--allow-empty", "-m", case.name)
        head = repo.resolve("HEAD")
        collected: tuple[set[str] | None, set[str] | None] = (None, None)
        if case.collect:
            head_c = _collect(root)
            if self.base_collected is None:
                repo.git("checkout", "-q", "-f", base)
                self.base_collected = _collect(root)
            collected = (self.base_collected, head_c)
        snap = ChangeSnapshot.from_git(repo, base, head, self.exams, *collected)
        return Outcome(case, tuple(analyze(snap)))


def run_corpus(tmp: Path, cases: list[Case] | None = None) -> list[Outcome]:
    corpus = Corpus(tmp)
    return [corpus.outcome(case) for case in (cases if cases is not None else CASES)]
