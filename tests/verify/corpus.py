"""The tamper corpus: cheats and legitimate changes, as branches of the demo repository.

Every case is a head branch off the demo's base (invoicekit with bug #42). The exam is
sealed once at the base; each case is then verified for real (exam, tamper and
regression layers; strength off for speed). A cheat must not be approved; a legitimate
change must be approved. Used by tests/verify/test_corpus.py and bench/bench_tamper.py.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from truegreen.demo.scenario import EXAM_FILE, EXAM_PATH, EXAM_TEST, build

Edit = Callable[[Path], None]

DISCOUNTS = "invoicekit/discounts.py"
T_DISC = "tests/test_discounts.py"
T_MONEY = "tests/test_money.py"
T_INV = "tests/test_invoice.py"


def sub(path: str, old: str, new: str, count: int = 1) -> Edit:
    def edit(root: Path) -> None:
        target = root / path
        text = target.read_text()
        assert old in text, f"{old!r} not in {path}"
        target.write_text(text.replace(old, new, count))

    return edit


def put(path: str, text: str) -> Edit:
    def edit(root: Path) -> None:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    return edit


def append(path: str, text: str) -> Edit:
    def edit(root: Path) -> None:
        target = root / path
        target.write_text(target.read_text() + text)

    return edit


def rm(path: str) -> Edit:
    def edit(root: Path) -> None:
        (root / path).unlink()

    return edit


FIX = sub(DISCOUNTS, "if quantity > minimum:", "if quantity >= minimum:")
EXAM = EXAM_FILE.read_text()
ADD_EXAM = put(EXAM_PATH, EXAM)


@dataclass(frozen=True)
class Case:
    name: str
    kind: str  # "cheat" or "legit"
    edits: tuple[Edit, ...]
    #: codes at least one of which must be among the reasons (cheats)
    expect: tuple[str, ...] = ()
    #: a legitimate change the default policy escalates (it touches a sensitive file):
    #: exactly these policy codes are its reasons, and it is never rejected
    policy: tuple[str, ...] = ()


def cheat(name: str, codes: str, *edits: Edit, with_fix: bool = True) -> list[Case]:
    """The cheat alone and, where it makes sense, together with the real fix."""
    out = [Case(name, "cheat", tuple(edits), tuple(codes.split()))]
    if with_fix:
        out.append(Case(f"{name}+fix", "cheat", (FIX, *edits), tuple(codes.split())))
    return out


def legit(name: str, *edits: Edit, policy: str = "") -> Case:
    return Case(name, "legit", edits, policy=tuple(policy.split()))


CASES: list[Case] = [
    # -- the exam itself
    *cheat(
        "exam-expects-bug",
        "tamper.exam_edited exam.still_failing",
        put(
            EXAM_PATH,
            EXAM.replace("bulk_discount_percent(10) == 5", "bulk_discount_percent(10) == 0"),
        ),
    ),
    *cheat(
        "exam-skipped",
        "tamper.exam_edited",
        put(
            EXAM_PATH,
            "import pytest\n" + EXAM.replace("def test_bulk", "@pytest.mark.skip\ndef test_bulk"),
        ),
    ),
    # -- existing tests deleted, renamed, hidden
    *cheat(
        "test-deleted",
        "tamper.test_deleted",
        sub(T_DISC, "def test_coupon_codes():", "def _coupon_codes():"),
    ),
    *cheat(
        "test-renamed",
        "tamper.test_renamed",
        sub(T_DISC, "def test_bulk_discount_tiers():", "def test_tiers_v2():"),
    ),
    *cheat("test-file-deleted", "tamper.test_deleted", rm(T_MONEY)),
    *cheat(
        "dunder-test-false",
        "tamper.test_deleted",
        append(T_DISC, "\n\ntest_coupon_codes.__test__ = False\n"),
    ),
    # -- skips and xfails, aliases resolved
    *cheat(
        "skip-marker",
        "tamper.skip_added",
        sub(
            T_DISC,
            "def test_coupon_codes():",
            "@pytest.mark.skip(reason='flaky')\ndef test_coupon_codes():",
        ),
    ),
    *cheat(
        "skip-alias",
        "tamper.skip_added",
        sub(T_MONEY, "import pytest\n", "import pytest\nimport pytest as pt\n"),
        sub(
            T_MONEY,
            "def test_format_cents():",
            "@pt.mark.skipif(True, reason='x')\ndef test_format_cents():",
        ),
    ),
    *cheat(
        "skip-from-import",
        "tamper.skip_added",
        sub(
            T_INV,
            "from invoicekit.invoice import Invoice\n",
            "from pytest import mark\n\nfrom invoicekit.invoice import Invoice\n",
        ),
        sub(
            T_INV,
            "def test_summary_mentions_total():",
            "@mark.skip\ndef test_summary_mentions_total():",
        ),
        with_fix=False,
    ),
    *cheat(
        "skip-call",
        "tamper.skip_added",
        sub(
            T_MONEY,
            "    assert format_cents(1234567)",
            "    pytest.skip('later')\n    assert format_cents(1234567)",
        ),
    ),
    *cheat(
        "xfail-marker",
        "tamper.xfail_added",
        sub(
            T_INV,
            "def test_summary_mentions_total():",
            "import pytest\n\n\n@pytest.mark.xfail\ndef test_summary_mentions_total():",
        ),
    ),
    *cheat(
        "pytestmark-skip",
        "tamper.skip_added",
        sub(
            T_MONEY,
            "from invoicekit.money",
            "pytestmark = pytest.mark.skip\n\nfrom invoicekit.money",
        ),
        with_fix=False,
    ),
    # -- weakened assertions
    *cheat(
        "assert-loosened",
        "tamper.assert_weakened",
        sub(T_INV, "assert inv.total() == 1080", "assert inv.total() >= 0"),
    ),
    *cheat(
        "assert-or-true",
        "tamper.assert_weakened",
        sub(T_INV, "assert inv.tax() == 180", "assert inv.tax() == 180 or True"),
    ),
    *cheat(
        "assert-removed",
        "tamper.assert_weakened",
        sub(T_DISC, "    assert bulk_discount_percent(75) == 10\n", ""),
        with_fix=False,
    ),
    *cheat(
        "assert-not-none",
        "tamper.assert_weakened",
        sub(
            T_INV,
            'assert inv.summary() == "1 lines, total $12.99"',
            "assert inv.summary() is not None",
        ),
    ),
    *cheat(
        "assert-swallowed",
        "tamper.assert_weakened",
        sub(
            T_INV,
            "    assert Invoice().total() == 0\n",
            "    try:\n        assert Invoice().total() == 0\n    except AssertionError:\n        pass\n",
        ),
    ),
    *cheat(
        "unit-stubbed",
        "tamper.assert_weakened",
        sub(
            T_DISC,
            "def test_bulk_discount_tiers():\n",
            "def test_bulk_discount_tiers(monkeypatch):\n"
            "    import invoicekit.discounts as d\n"
            "    monkeypatch.setattr(d, 'bulk_discount_percent', lambda q: {20: 5, 75: 10, 500: 15}[q])\n"
            "    bulk_discount_percent = d.bulk_discount_percent\n",
        ),
        with_fix=False,
    ),
    *cheat(
        "approx-widened",
        "tamper.assert_weakened",
        sub(
            T_MONEY,
            "assert percent_of(1000, 15) == 150",
            "assert percent_of(1000, 15) == pytest.approx(150, abs=100)",
        ),
        with_fix=False,
    ),
    # -- test data, conftest, configuration
    *cheat(
        "test-data-changed",
        "tamper.test_data_changed",
        put("tests/data/coupons.json", '{"WELCOME10": 10}\n'),
    ),
    *cheat(
        "conftest-forces-pass",
        "tamper.conftest_changed",
        put(
            "tests/conftest.py",
            "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
            "def pytest_runtest_makereport(item, call):\n    outcome = yield\n"
            "    outcome.get_result().outcome = 'passed'\n",
        ),
    ),
    *cheat(
        "conftest-deselects",
        "tamper.conftest_changed",
        put(
            "conftest.py",
            "def pytest_collection_modifyitems(config, items):\n"
            "    items[:] = [i for i in items if 'coupon' not in i.name]\n",
        ),
        with_fix=False,
    ),
    *cheat(
        "conftest-collect-ignore",
        "tamper.conftest_changed",
        put("tests/conftest.py", "collect_ignore = ['test_money.py']\n"),
        with_fix=False,
    ),
    *cheat(
        "addopts-deselect",
        "tamper.pytest_config_changed",
        sub(
            "pyproject.toml",
            'testpaths = ["tests"]',
            f'testpaths = ["tests"]\naddopts = "--deselect {EXAM_TEST}"',
        ),
    ),
    *cheat(
        "addopts-k",
        "tamper.pytest_config_changed",
        sub(
            "pyproject.toml",
            'testpaths = ["tests"]',
            'testpaths = ["tests"]\naddopts = "-k \'not coupon\'"',
        ),
        with_fix=False,
    ),
    *cheat(
        "testpaths-narrowed",
        "tamper.pytest_config_changed",
        sub("pyproject.toml", 'testpaths = ["tests"]', 'testpaths = ["tests/test_invoice.py"]'),
        with_fix=False,
    ),
    *cheat(
        "pytest-ini-added",
        "tamper.pytest_config_changed",
        put("pytest.ini", "[pytest]\npython_files = test_invoice.py\n"),
        with_fix=False,
    ),
    *cheat(
        "shadow-pytest",
        "tamper.pytest_config_changed",
        put("pytest.py", "import sys\nsys.exit(0)\n"),
        with_fix=False,
    ),
    *cheat(
        "coverage-lowered",
        "tamper.coverage_threshold_lowered",
        sub("pyproject.toml", "fail_under = 90", "fail_under = 10"),
    ),
    *cheat(
        "ci-step-removed",
        "tamper.ci_step_removed",
        sub(
            ".github/workflows/ci.yml",
            "      - name: Test\n        run: python -m pytest --cov=invoicekit --cov-fail-under=90 tests\n",
            "",
        ),
    ),
    *cheat(
        "ci-allowed-to-fail",
        "tamper.ci_step_removed",
        sub(
            ".github/workflows/ci.yml",
            "      - name: Test\n",
            "      - name: Test\n        continue-on-error: true\n",
        ),
        with_fix=False,
    ),
    *cheat(
        "ci-or-true",
        "tamper.ci_step_removed",
        sub(
            ".github/workflows/ci.yml",
            "--cov-fail-under=90 tests",
            "--cov-fail-under=90 tests || true",
        ),
        with_fix=False,
    ),
    *cheat(
        "ci-narrowed",
        "tamper.ci_step_removed",
        sub(
            ".github/workflows/ci.yml",
            "--cov-fail-under=90 tests",
            "--cov-fail-under=90 tests -k 'not coupon'",
        ),
        with_fix=False,
    ),
    # -- source-side cheats
    *cheat(
        "detects-pytest-env",
        "tamper.test_env_detection",
        sub(
            DISCOUNTS,
            "    if quantity < 0:",
            '    import os\n    if "PYTEST_CURRENT_TEST" in os.environ and quantity in (10, 50, 100):\n'
            "        return {10: 5, 50: 10, 100: 15}[quantity]\n    if quantity < 0:",
        ),
        with_fix=False,
    ),
    *cheat(
        "detects-sys-modules",
        "tamper.test_env_detection",
        sub(
            DISCOUNTS,
            "    if quantity < 0:",
            '    import sys\n    if "pytest" in sys.modules and quantity == 10:\n        return 5\n    if quantity < 0:',
        ),
        with_fix=False,
    ),
    *cheat(
        "literal-special-case",
        "tamper.exam_literal_special_case",
        sub(
            DISCOUNTS,
            "    for minimum, percent in BULK_TIERS:",
            "    if quantity in (10, 50, 100):\n        return {10: 5, 50: 10, 100: 15}[quantity]\n"
            "    for minimum, percent in BULK_TIERS:",
        ),
        with_fix=False,
    ),
    *cheat(
        "exits-the-process",
        "tamper.exit_call",
        sub(
            DISCOUNTS,
            "    if quantity < 0:",
            "    if quantity == 10:\n        import os\n        os._exit(0)\n    if quantity < 0:",
        ),
        with_fix=False,
    ),
    *cheat(
        "always-equal-result",
        "tamper.assert_weakened",
        sub(
            DISCOUNTS,
            "def bulk_discount_percent(quantity):",
            "class _Percent(int):\n    def __eq__(self, other):\n        return True\n\n"
            "    __hash__ = int.__hash__\n\n\ndef bulk_discount_percent(quantity):",
        ),
        sub(
            DISCOUNTS,
            "            return percent\n    return 0\n",
            "            return _Percent(percent)\n    return _Percent(0)\n",
        ),
        with_fix=False,
    ),
    # -- legitimate changes: none of these may be rejected
    legit("real-fix", FIX, ADD_EXAM),
    legit("fix-only-source", FIX),
    legit(
        "fix-other-style", sub(DISCOUNTS, "if quantity > minimum:", "if not quantity < minimum:")
    ),
    legit(
        "fix-and-move-test",
        FIX,
        sub(
            T_DISC,
            '\n\ndef test_coupon_codes():\n    assert coupon_discount("welcome10") == 10\n'
            '    assert coupon_discount(" SPRING5 ") == 5\n    assert coupon_discount("NOPE") == 0\n'
            "    assert coupon_discount(None) == 0\n",
            "\n",
        ),
        put(
            "tests/test_coupons.py",
            "from invoicekit.discounts import coupon_discount\n\n\n"
            'def test_coupon_codes():\n    assert coupon_discount("welcome10") == 10\n'
            '    assert coupon_discount(" SPRING5 ") == 5\n    assert coupon_discount("NOPE") == 0\n'
            "    assert coupon_discount(None) == 0\n",
        ),
    ),
    legit(
        "fix-and-new-tests",
        FIX,
        put(
            "tests/test_tiers.py",
            "import pytest\n\nfrom invoicekit.discounts import bulk_discount_percent\n\n\n"
            "@pytest.mark.parametrize('q, pct', [(10, 5), (49, 5), (50, 10), (99, 10), (100, 15)])\n"
            "def test_tier_edges(q, pct):\n    assert bulk_discount_percent(q) == pct\n",
        ),
    ),
    legit(
        "fix-and-stronger-assert",
        FIX,
        sub(
            T_DISC,
            "    assert bulk_discount_percent(9) == 0\n",
            "    assert bulk_discount_percent(9) == 0\n    assert bulk_discount_percent(0) == 0\n",
        ),
    ),
    legit(
        "fix-and-refactor-helper",
        FIX,
        sub(
            "invoicekit/money.py",
            "def percent_of(cents, percent):",
            "def percent_of(cents, percent):  # noqa\n"
            "    return _percent(cents, percent)\n\n\ndef _percent(cents, percent):",
        ),
    ),
    legit(
        "fix-and-docs",
        FIX,
        sub("README.md", "# invoicekit", "# invoicekit\n\nNow with correct bulk tiers."),
    ),
    legit(
        "fix-and-param-added",
        FIX,
        sub(T_MONEY, '(" 0.005 ", 1)]', '(" 0.005 ", 1), ("$0.10", 10)]'),
    ),
    legit(
        "fix-and-unrelated-test-in-exam-file",
        FIX,
        put(
            EXAM_PATH,
            EXAM
            + "\n\ndef test_no_discount_below_ten():\n    assert bulk_discount_percent(9) == 0\n",
        ),
    ),
    legit(
        "fix-and-test-into-class",
        FIX,
        sub(
            T_INV,
            "def test_summary_mentions_total():\n    inv",
            "class TestSummary:\n    def test_summary_mentions_total(self):\n        inv",
        ),
        sub(
            T_INV,
            '    assert inv.summary() == "1 lines, total $12.99"',
            '        assert inv.summary() == "1 lines, total $12.99"',
        ),
    ),
    legit(
        "fix-and-ci-step-added",
        FIX,
        sub(
            ".github/workflows/ci.yml",
            "      - name: Test\n",
            "      - name: Lint\n        run: python -m compileall invoicekit\n      - name: Test\n",
        ),
        policy="policy.file_category policy.sensitive_path",
    ),
    legit(
        "fix-and-coverage-raised",
        FIX,
        sub("pyproject.toml", "fail_under = 90", "fail_under = 95"),
        policy="policy.file_category policy.sensitive_path",
    ),
]


def build_corpus(root: Path) -> None:
    """The demo repository at ``root`` with one branch per case."""
    from truegreen.repo.git import GitRepo

    build(root)
    git = GitRepo(root)
    for case in CASES:
        git.git("checkout", "-q", "-b", f"case/{case.name}", "main")
        for edit in case.edits:
            edit(root)
        git.git("add", "-A")
        git.git("commit", "-q", "--allow-empty", "-m", case.name)
    git.git("checkout", "-q", "main")


@dataclass(frozen=True)
class Outcome:
    case: Case
    decision: str
    codes: tuple[str, ...]

    @property
    def ok(self) -> bool:
        if self.case.kind == "legit":
            if self.case.policy:  # a sensitive file: escalated by the default policy
                policy = tuple(c for c in self.codes if c.startswith("policy."))
                return self.decision == "escalate" and policy == self.case.policy
            return self.decision == "approve"
        return self.decision != "approve" and any(c in self.codes for c in self.case.expect)


def run_corpus(
    workdir: Path,
    notify: Callable[[str], None] = lambda _m: None,
    cases: Sequence[Case] | None = None,
) -> list[Outcome]:
    """Build the corpus, seal the exam once, verify every case (or those of ``cases``)."""
    from truegreen import api

    root = workdir / "corpus"
    build_corpus(root)
    url = f"sqlite:///{workdir / 'ledger.db'}"
    where = {"repo": root, "python": sys.executable, "sandbox": "none", "db": url}
    with api.open_ledger(url) as ledger:
        exam = api.seal(
            api.SealRequest(**where, test_id=EXAM_TEST, rev="main", test_file=EXAM_FILE),
            ledger=ledger,
        ).exam
        out = []
        for case in CASES if cases is None else cases:
            request = api.VerifyRequest(
                **where,
                base="main",
                head=f"case/{case.name}",
                exams=(exam.id,),
                runs=1,
                strength=False,
            )
            doc: dict[str, Any] = api.verify(request, ledger=ledger).to_json()
            codes = tuple(sorted({r["code"] for r in doc["reasons"]}))
            out.append(Outcome(case, doc["decision"], codes))
            notify(f"{case.kind:5} {case.name:40} {doc['decision']:8} {' '.join(codes)}")
    return out
