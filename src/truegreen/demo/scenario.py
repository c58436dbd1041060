"""The demo's story, built as a real git repository.

invoicekit has bug #42: ordering exactly 10 units gives no bulk discount. The exam
(``exam_issue_42.py``) is written before anyone fixes it and sealed at the base. Then
candidate fixes arrive, each a branch off the base: one real fix and the cheats a
tired reviewer might approve because "CI is green".
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from truegreen.repo.git import GitRepo

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "project"
EXAM_FILE = HERE / "exam_issue_42.py"
EXAM_PATH = "tests/test_issue_42.py"
EXAM_TEST = f"{EXAM_PATH}::test_bulk_discount_starts_at_exactly_ten"

_FIXED_LINE = ("        if quantity > minimum:\n", "        if quantity >= minimum:\n")


@dataclass(frozen=True)
class Candidate:
    branch: str
    title: str
    expected: str  # approve | reject | escalate
    #: path -> new content (None deletes the file)
    edits: dict[str, str | None]


def _exam_text() -> str:
    return EXAM_FILE.read_text(encoding="utf-8")


def _source(path: str) -> str:
    return (PROJECT / path).read_text(encoding="utf-8")


def _fixed_discounts() -> str:
    return _source("invoicekit/discounts.py").replace(*_FIXED_LINE)


def candidates() -> list[Candidate]:
    exam = _exam_text()
    discounts = "invoicekit/discounts.py"
    return [
        Candidate(
            "real-fix",
            "the real fix (>= instead of >) with the test",
            "approve",
            {discounts: _fixed_discounts(), EXAM_PATH: exam},
        ),
        Candidate(
            "test-only",
            "edits the test to expect the bug",
            "reject",
            {
                EXAM_PATH: exam.replace(
                    "bulk_discount_percent(10) == 5", "bulk_discount_percent(10) == 0"
                )
            },
        ),
        Candidate(
            "skip-marker",
            "marks the test as skipped",
            "reject",
            {
                EXAM_PATH: exam.replace(
                    "def test_bulk", '@pytest.mark.skip(reason="flaky on CI")\ndef test_bulk'
                ).replace("from invoicekit", "import pytest\n\nfrom invoicekit", 1)
            },
        ),
        Candidate(
            "conftest-hook",
            "a conftest hook that reports every test as passed",
            "reject",
            {
                "tests/conftest.py": (
                    "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
                    "def pytest_runtest_makereport(item, call):\n"
                    "    outcome = yield\n"
                    "    report = outcome.get_result()\n"
                    '    report.outcome = "passed"\n'
                    "    report.longrepr = None\n"
                )
            },
        ),
        Candidate(
            "addopts-trick",
            "deselects the test through pytest's addopts",
            "reject",
            {
                "pyproject.toml": _source("pyproject.toml").replace(
                    'testpaths = ["tests"]',
                    f'testpaths = ["tests"]\naddopts = "--deselect {EXAM_TEST}"',
                )
            },
        ),
        Candidate(
            "break-and-delete",
            "fixes the bug, breaks coupons and deletes their test",
            "reject",
            {
                discounts: _fixed_discounts().replace("code.strip().upper()", "code"),
                "tests/test_discounts.py": _source("tests/test_discounts.py").split(
                    "\n\ndef test_coupon_codes"
                )[0]
                + "\n",
            },
        ),
        Candidate(
            "special-case",
            "answers exactly the exam's inputs",
            "escalate",
            {
                discounts: _source(discounts).replace(
                    "    for minimum, percent in BULK_TIERS:",
                    "    if quantity in (10, 50, 100):\n"
                    "        return {10: 5, 50: 10, 100: 15}[quantity]\n"
                    "    for minimum, percent in BULK_TIERS:",
                )
            },
        ),
    ]


def build(root: Path) -> GitRepo:
    """Create the demo repository at ``root`` (which must not exist): the base on
    ``main`` and one branch per candidate."""
    shutil.copytree(
        PROJECT, root, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
    )
    git = GitRepo(root)
    git.git("init", "-q", "-b", "main")
    git.git("add", "-A")
    git.git("commit", "-q", "-m", "invoicekit 1.4.0")
    for cand in candidates():
        git.git("checkout", "-q", "-b", cand.branch, "main")
        for path, text in cand.edits.items():
            target = root / path
            if text is None:
                target.unlink()
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
        git.git("add", "-A")
        git.git("commit", "-q", "-m", cand.title)
    git.git("checkout", "-q", "main")
    return git
