"""The live corpus for `truegreen diagnose`: logs made by RUNNING today's real tools.

    python bench/live_logs.py [--only NAME ...] [--list]

Each scenario is a small broken project written into a temp dir (made anew on every
run, outside the repository so that no tool reads truegreen's own configuration). The failing command, and any passing steps before
it, run there for real, offline (pip reaches only the package index; every other host is a
`.invalid` name or a closed loopback port), in cached virtualenvs under
bench/.cache/live/venvs (made on first use: pytest 9 with the linters and checkers, pytest
8, pytest 7, and one per later round). Their output, stdout and stderr together as the runner records them, is
wrapped the way the GitHub Actions runner prints a job log: fixed timestamps, the set-up
sections, `##[group]Run <command>` / `##[endgroup]` per step, the failing step's
`##[error]Process completed with exit code N.` and the post-job cleanup. Paths are made
stable: the project becomes /home/runner/work/proj/proj, the interpreter
/opt/hostedtoolcache/Python/<version>/x64, durations and addresses are fixed.

Labels are by construction (tests/diagnose/live/labels.json, the schema of
tests/diagnose/corpus/labels.json): the class is the scenario's, the error lines are the
lines of the failing step's output that a pattern of the scenario finds (the `E   ...`
line, the `FAILED ...` summary, mypy's `error:` line, ...), the failing tests are the node
ids the scenario's tests fail with. Where the class is debatable the entry says so in
`label_note` (and may name a `label_alt`).

Nothing here is imported by the tests: they read the committed logs only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "diagnose" / "live"
CACHE = ROOT / "bench" / ".cache" / "live"
VENVS = CACHE / "venvs"
SCRATCH = Path(tempfile.gettempdir()) / "truegreen-live"  # outside the repository: no tool
WORK = SCRATCH / "work"  # finds truegreen's own configuration above a project
HOME = CACHE / "home"
TEMP = SCRATCH / "temp"
RUNNER_ROOT = "/home/runner/work/proj/proj"
RUNNER_TEMP = "/home/runner/work/_temp"
SCRIPT_ID = "3f1d9c2e-6b0a-4c59-9e1f-2a7d5b8c4e60"
START = datetime(2026, 12, 3, 10, 0, 0, tzinfo=UTC)

PYTHONS = {
    "3.12": "/root/.pyenv/versions/3.12.1",
    "3.11": "/root/.pyenv/versions/3.11.7",
    "3.9": "/root/.pyenv/versions/3.9.18",
}
VENV_SPECS = {
    "tools": (
        "3.12",
        [
            "pytest", "pytest-xdist", "pytest-timeout", "ruff", "flake8", "black", "isort",
            "pylint", "mypy", "pyright", "tox", "nox", "pydantic-settings", "build", "uv",
            "setuptools", "wheel",
        ],
    ),
    "gates": ("3.12", ["pytest", "pytest-cov", "pre-commit", "ruff", "black", "codespell"]),
    "pytest8": ("3.11", ["pytest<9", "pytest-timeout"]),
    "pytest7": ("3.11", ["pytest<8"]),
    # round 5: clients of HTTP, YAML, docs and packaging tools; the package managers apart
    "extras": (
        "3.12",
        [
            "pytest", "requests", "httpx", "pyyaml", "sphinx", "twine", "build", "setuptools",
            "tox", "nox", "pre-commit",
        ],
    ),
    "pm": ("3.12", ["poetry", "hatch"]),
    "py39": ("3.9", ["pytest"]),
    # round 6
    "r6": (
        "3.12",
        [
            "pytest", "pytest-xdist", "pytest-timeout", "pytest-rerunfailures", "pytest-cov",
            "hypothesis", "ruff", "flake8", "black", "isort", "codespell", "pylint", "mypy",
            "pyright", "tox", "nox", "pre-commit", "build", "setuptools", "wheel",
            "setuptools-scm", "requests", "sphinx", "uv", "pyyaml",
        ],
    ),
}  # fmt: skip


@dataclass
class Scenario:
    name: str
    cls: str
    command: str
    files: dict[str, str]
    error: str  # regex over the failing step's output lines: every match is an error line
    first: str | None = None  # regex: a match is one unless the line above has its first word
    failing_tests: list[str] = field(default_factory=list)
    venv: str = "tools"
    before: list[str] = field(default_factory=list)  # earlier steps; they must pass
    env: dict[str, str] = field(default_factory=dict)
    label_alt: str | None = None
    note: str | None = None
    runner_error: bool = False  # the runner's exit line is the error line (nothing else says it)
    git_add: bool = False  # commit the files first (tools that read only what git tracks)
    half: str = "dev"  # "held-out": written after the rules were tuned on the others, measured only
    round: int = 1  # the round of scenarios it was written in
    # earlier steps marked `continue-on-error: true`: they may fail (the runner prints their
    # exit line as an error too) and the job goes on; they are not the cause
    tolerated: list[str] = field(default_factory=list)
    # later steps with `if: always()`: they run after the failing step (they must pass)
    always: list[str] = field(default_factory=list)
    # round 6: the job's name (a matrix job), the runner's own lines in place of its exit line
    # (a cancelled, timed-out or lost job: the step is stopped after `cut` seconds), workflow
    # commands (`::error file=...::`) as the runner shows them, and limits the step runs under
    job: str | None = None
    runner: str | None = None
    cut: float | None = None
    commands: bool = False
    mounts: dict[str, str] = field(default_factory=dict)  # dir -> tmpfs options, for the run
    memory: str | None = None  # a memory cgroup's limit for the failing step (the OOM killer)


# --------------------------------------------------------------------------- projects

PYPROJECT = """\
[project]
name = "shop"
version = "0.1.0"
requires-python = ">=3.9"

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["src"]
{extra}"""

CART = """\
def total(prices, discount=0.0):
    \"\"\"Sum of the prices, less the discount, rounded to cents.\"\"\"
    return round(sum(prices) * (1 - discount), 2)


def parse_price(text):
    return float(text.strip().lstrip("$"))


def apply_coupon(prices, code):
    rates = {"TEN": 0.1, "HALF": 0.5}
    return total(prices, rates[code])
"""

PASSING = """\
import pytest

from shop.cart import parse_price, total


@pytest.mark.parametrize("n", range({n}))
def test_total_of_n_items(n):
    assert total([1.0] * n) == n


def test_parse_price():
    assert parse_price(" $4.50 ") == 4.5
"""

T_ASSERT = """\
from shop.cart import apply_coupon, total


def test_total_plain():
    assert total([1.0, 2.0]) == 3.0


def test_total_discount():
    prices = [10.0, 10.0]
    assert total(prices, discount=0.1) == 19.0


def test_coupon_half():
    assert apply_coupon([8.0], "HALF") == 4.0
"""

T_MULTI = """\
import pytest

from shop.cart import apply_coupon, parse_price, total


class TestTotals:
    @pytest.mark.parametrize(
        "prices,expected", [([1, 2], 3), ([], 0), ([0.1, 0.2], 0.3), ([5, 5], 11)]
    )
    def test_sum(self, prices, expected):
        assert total(prices) == expected

    def test_discount_bounds(self):
        with pytest.raises(ValueError):
            total([1.0], discount=2)


def test_parse_comma_price():
    assert parse_price("4,50") == 4.5


def test_unknown_coupon():
    assert apply_coupon([1.0], "FREE") == 0.0
"""

MULTI_FAILS = [
    "tests/test_totals.py::TestTotals::test_sum[prices3-11]",
    "tests/test_totals.py::TestTotals::test_discount_bounds",
    "tests/test_totals.py::test_parse_comma_price",
    "tests/test_totals.py::test_unknown_coupon",
]

UTIL_LINT = """\
import os
import sys, json


def slugify(text):
    return "-".join(text.lower().split())


def load(path):
    data = json.load(open(path))
    if data == None:
        return undefined_default
    return data
"""

UGLY = """\
def make_order( items,customer ):
  order = {'items':items,'customer':customer,
      'total':sum( i['price'] for i in items )}
  return order
"""

TYPED_BAD = """\
from typing import Optional


def total(prices: list[float]) -> int:
    return sum(prices)


def label(code: int) -> str:
    return code.upper()


def first_name(full: Optional[str]) -> str:
    return full.split()[0]
"""

SETTINGS = """\
from pydantic_settings import BaseSettings


class Settings(BaseSettings):
    api_key: str
    database_url: str
    debug: bool = False


settings = Settings()
"""

C_SETUP = """\
from setuptools import Extension, setup

setup(
    name="fastsum",
    version="0.1.0",
    package_dir={"": "src"},
    packages=["fastsum"],
    ext_modules=[Extension("fastsum._speed", ["src/fastsum/_speed.c"])],
)
"""

C_MISSING_HEADER = """\
#include <Python.h>
#include "fastsum_config.h"

static PyObject *add(PyObject *self, PyObject *args) {
    long a, b;
    if (!PyArg_ParseTuple(args, "ll", &a, &b)) return NULL;
    return PyLong_FromLong(a + b);
}
"""

C_BAD_CODE = """\
#include <Python.h>

static PyObject *add(PyObject *self, PyObject *args) {
    long a, b;
    if (!PyArg_ParseTuple(args, "ll", &a, &b)) return NULL;
    return PyLong_FromLong(a + b + count);
}

static PyMethodDef methods[] = {{"add", add, METH_VARARGS, "add"}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_speed", NULL, -1, methods};
PyMODINIT_FUNC PyInit__speed(void) { return PyModule_Create(&mod) }
"""

C_PYPROJECT = """\
[build-system]
requires = ["setuptools>=61", "wheel"]
build-backend = "setuptools.build_meta"
"""

TOX_INI = """\
[tox]
envlist = py312, lint, type

[testenv]
skip_install = true
deps = pytest
setenv = PYTHONPATH = {toxinidir}/src
commands = pytest {posargs:-q}

[testenv:lint]
deps = flake8
commands = flake8 src

[testenv:type]
deps = mypy
commands = mypy src
"""

NOXFILE = """\
import nox


@nox.session(python=False)
def tests(session):
    session.run("pytest", "-q", env={"PYTHONPATH": "src"})


@nox.session(python=False)
def lint(session):
    session.run("flake8", "src")
"""


def project(
    tests: dict[str, str] | None = None,
    extra: str = "",
    passing: int = 6,
    src: dict[str, str] | None = None,
) -> dict[str, str]:
    """The shop project: src/shop/cart.py, a passing test module, and the given files."""
    files = {
        "pyproject.toml": PYPROJECT.format(extra=extra),
        "src/shop/__init__.py": '"""A small shop."""\n',
        "src/shop/cart.py": CART,
        "tests/__init__.py": "",
        "tests/test_basics.py": PASSING.replace("{n}", str(passing)),
        "README.md": "# shop\n",
    }
    files.update(src or {})
    files.update(tests or {})
    return files


def pytest_case(
    name: str, cls: str, command: str, files: dict[str, str], fails: list[str], **kw: object
) -> Scenario:
    """A pytest run: its `E` explanations (the first line of each) and FAILED/ERROR lines."""
    error = str(kw.pop("error", SUMMARY))
    first = kw.pop("first", E_LINE)
    return Scenario(name, cls, command, files, error, first=first, failing_tests=fails, **kw)  # type: ignore[arg-type]


def lint_project(**more: str) -> dict[str, str]:
    return project(src={"src/shop/util.py": UTIL_LINT, **more})


def test_module(body: str, name: str = "tests/test_service.py") -> dict[str, str]:
    return {name: textwrap.dedent(body)}


# --------------------------------------------------------------------------- patterns

E_LINE = r"^E {2,}(?![-+?~ ])\S"  # the first line of pytest's explanation (see `first`)
SUMMARY = r"^(?:FAILED|ERROR) \S+\.py"
UNITTEST = r"^(?:FAIL|ERROR): \w+ \(|^\w+(?:\.\w+)*(?:Error|Exception): "
RUFF_FULL = r"^[A-Z]+\d+ (?:\[\*\] )?\S"
FLAKE8 = r"^\S+\.py:\d+:\d+: [A-Z]+\d+ "
MYPY = r"^\S+\.py:\d+(?::\d+)?: error: "
PYRIGHT = r"^\s+\S+\.py:\d+:\d+ - error: "
CC_ERROR = r"^\s*\S+\.[ch]:\d+:\d+: (?:fatal )?error: "
PIP_NOT_FOUND = r"^ERROR: (?:Could not find a version|No matching distribution)"

SCENARIOS: list[Scenario] = []


def add(*items: Scenario) -> None:
    SCENARIOS.extend(items)


# test: pytest in its formats and versions
add(
    pytest_case(
        "pytest9-quiet",
        "test",
        "python -m pytest -q",
        project(test_module(T_ASSERT, "tests/test_pricing.py")),
        ["tests/test_pricing.py::test_total_discount"],
        before=["python -m pip install pytest"],
    ),
    pytest_case(
        "pytest9-verbose-multi",
        "test",
        "pytest -v",
        project(test_module(T_MULTI, "tests/test_totals.py"), passing=40),
        MULTI_FAILS,
    ),
    pytest_case(
        "pytest9-tb-short",
        "test",
        "pytest --tb=short -ra",
        project(test_module(T_MULTI, "tests/test_totals.py")),
        MULTI_FAILS,
    ),
    Scenario(
        "pytest9-tb-line",
        "test",
        "pytest --tb=line",
        project(test_module(T_MULTI, "tests/test_totals.py")),
        r"^/\S+\.py:\d+: |" + SUMMARY,
        failing_tests=MULTI_FAILS,
    ),
    Scenario(
        "pytest9-tb-native",
        "test",
        "pytest --tb=native -q",
        project(test_module(T_ASSERT, "tests/test_pricing.py")),
        r"^AssertionError|" + SUMMARY,
        failing_tests=["tests/test_pricing.py::test_total_discount"],
    ),
    pytest_case(
        "pytest9-exitfirst",
        "test",
        "pytest -x -v",
        project(test_module(T_MULTI, "tests/test_totals.py"), passing=12),
        [MULTI_FAILS[0]],
    ),
    pytest_case(
        "pytest9-xdist",
        "test",
        "pytest -n 2 -q -p no:randomly",
        project(test_module(T_MULTI, "tests/test_totals.py"), passing=30),
        MULTI_FAILS,
    ),
    pytest_case(
        "pytest9-xdist-verbose",
        "test",
        "pytest -n 2 -v",
        project(test_module(T_ASSERT, "tests/test_pricing.py"), passing=20),
        ["tests/test_pricing.py::test_total_discount"],
    ),
    pytest_case(
        "pytest9-color",
        "test",
        "pytest --color=yes -q",
        project(test_module(T_ASSERT, "tests/test_pricing.py")),
        ["tests/test_pricing.py::test_total_discount"],
        note="pytest forced to colour (FORCE_COLOR / --color=yes, common in workflows): ANSI codes in the log",
    ),
    pytest_case(
        "pytest8-verbose",
        "test",
        "pytest -v",
        project(test_module(T_MULTI, "tests/test_totals.py"), passing=10),
        MULTI_FAILS,
        venv="pytest8",
    ),
    pytest_case(
        "pytest8-quiet-short",
        "test",
        "python -m pytest -q --tb=short",
        project(test_module(T_ASSERT, "tests/test_pricing.py")),
        ["tests/test_pricing.py::test_total_discount"],
        venv="pytest8",
    ),
    pytest_case(
        "pytest7-verbose",
        "test",
        "pytest -v -rA",
        project(test_module(T_MULTI, "tests/test_totals.py"), passing=10),
        MULTI_FAILS,
        venv="pytest7",
    ),
    Scenario(
        "pytest7-native",
        "test",
        "pytest --tb=native",
        project(test_module(T_MULTI, "tests/test_totals.py")),
        r"^(?:AssertionError|Failed|ValueError|KeyError)\b|" + SUMMARY,
        failing_tests=MULTI_FAILS,
        venv="pytest7",
    ),
    Scenario(
        "pytest9-exception",
        "test",
        "pytest",
        project(
            test_module("""\
        from shop.cart import total


        def average(prices):
            return total(prices) / len(prices)


        def test_average_of_nothing():
            assert average([]) == 0
        """)
        ),
        SUMMARY,
        first=E_LINE,
        failing_tests=["tests/test_service.py::test_average_of_nothing"],
    ),
    Scenario(
        "pytest9-fixture-error",
        "test",
        "pytest -q",
        project(
            test_module("""\
        import json

        import pytest


        @pytest.fixture
        def catalog(tmp_path):
            path = tmp_path / "catalog.json"
            path.write_text("{'sku': 1}")
            return json.loads(path.read_text())


        def test_catalog_has_sku(catalog):
            assert "sku" in catalog
        """)
        ),
        SUMMARY,
        first=E_LINE,
        failing_tests=["tests/test_service.py::test_catalog_has_sku"],
        note="an error in a fixture (ERROR at setup), not a failed assertion",
    ),
    Scenario(
        "pytest9-collection-syntax",
        "test",
        "pytest",
        project(
            test_module("""\
        from shop.cart import total


        def test_total():
            assert total([1, 2]) == 3
            if True
                pass
        """)
        ),
        r"^E\s+SyntaxError: |" + SUMMARY,
        failing_tests=["tests/test_service.py"],
        note="a syntax error in a test module: collection fails; `test` (the change broke the tests), could be read as `build`",
    ),
    Scenario(
        "pytest9-import-own",
        "test",
        "pytest -q",
        project(
            test_module("""\
        from shop.cart import total, total_with_tax


        def test_tax():
            assert total_with_tax([10.0], 0.2) == 12.0
        """)
        ),
        SUMMARY,
        first=E_LINE,
        failing_tests=["tests/test_service.py"],
        note="ImportError of a name the project's own module lacks (collection error)",
    ),
    Scenario(
        "pytest9-doctest",
        "test",
        "pytest --doctest-modules src",
        project(
            src={
                "src/shop/text.py": textwrap.dedent('''\
        def shout(text):
            """Upper-case with an exclamation mark.

            >>> shout("sale")
            'SALE!'
            """
            return text.upper() + "!!"
        ''')
            }
        ),
        r"^Expected:$|^Got:$|" + SUMMARY,
        failing_tests=["src/shop/text.py::shop.text.shout"],
    ),
    Scenario(
        "pytest9-xpass-strict",
        "test",
        "pytest -q -rxX",
        project(
            test_module("""\
        import pytest

        from shop.cart import total


        @pytest.mark.xfail(strict=True, reason="rounding bug #12")
        def test_rounding_bug():
            assert total([0.1, 0.2]) == 0.3
        """)
        ),
        r"^\[XPASS\(strict\)\]|" + SUMMARY,
        failing_tests=["tests/test_service.py::test_rounding_bug"],
    ),
    Scenario(
        "pytest9-warning-error",
        "test",
        "pytest -q -W error::DeprecationWarning",
        project(
            test_module("""\
        import warnings


        def legacy_total(prices):
            warnings.warn("legacy_total is deprecated; use total", DeprecationWarning)
            return sum(prices)


        def test_legacy():
            assert legacy_total([1, 2]) == 3
        """)
        ),
        SUMMARY,
        first=E_LINE,
        failing_tests=["tests/test_service.py::test_legacy"],
    ),
    Scenario(
        "pytest9-captured-noise",
        "test",
        "pytest -rA --log-level=INFO",
        project(
            test_module("""\
        import logging

        from shop.cart import apply_coupon

        log = logging.getLogger("shop.checkout")


        def test_checkout_coupon():
            for code in ("TEN", "HALF", "TEN"):
                log.info("applying coupon %s", code)
                print("cart state:", code)
            assert apply_coupon([20.0], "TEN") == 19.0
        """)
        ),
        SUMMARY,
        first=E_LINE,
        failing_tests=["tests/test_service.py::test_checkout_coupon"],
    ),
    Scenario(
        "unittest-verbose",
        "test",
        "python -m unittest discover -v -s tests -t .",
        project(
            test_module(
                """\
        import unittest

        from shop.cart import apply_coupon, total


        class PricingTest(unittest.TestCase):
            def test_plain(self):
                self.assertEqual(total([1.0, 2.0]), 3.0)

            def test_discount(self):
                self.assertEqual(total([10.0, 10.0], discount=0.1), 19.0)

            def test_unknown_coupon(self):
                self.assertEqual(apply_coupon([1.0], "FREE"), 1.0)
        """,
                "tests/test_unit.py",
            )
        ),
        UNITTEST,
        env={"PYTHONPATH": "src"},
        failing_tests=[
            "tests/test_unit.py::PricingTest::test_discount",
            "tests/test_unit.py::PricingTest::test_unknown_coupon",
        ],
    ),
    pytest_case(
        "tox-pytest",
        "test",
        "tox -e py312",
        project(test_module(T_ASSERT, "tests/test_pricing.py")) | {"tox.ini": TOX_INI},
        ["tests/test_pricing.py::test_total_discount"],
        before=["python -m pip install tox"],
    ),
    pytest_case(
        "nox-pytest",
        "test",
        "nox -s tests",
        project(test_module(T_MULTI, "tests/test_totals.py")) | {"noxfile.py": NOXFILE},
        MULTI_FAILS,
    ),
    pytest_case(
        "lint-then-pytest",
        "test",
        "ruff check src\nruff format --check src\npytest -q",
        project(test_module(T_ASSERT, "tests/test_pricing.py")),
        ["tests/test_pricing.py::test_total_discount"],
        note="one step runs the linters (they pass) and then the tests",
    ),
)

# lint
add(
    Scenario("ruff-check", "lint", "ruff check .", lint_project(), RUFF_FULL, before=["pytest -q"]),
    Scenario(
        "ruff-check-concise",
        "lint",
        "ruff check --output-format=concise src tests",
        lint_project(),
        r"^\S+\.py:\d+:\d+: [A-Z]+\d+ ",
    ),
    Scenario(
        "ruff-format-check",
        "lint",
        "ruff format --check .",
        project(src={"src/shop/orders.py": UGLY}),
        r"^unformatted: |^Would reformat: |^\d+ files? would be reformatted",
    ),
    Scenario(
        "ruff-format-diff",
        "lint",
        "ruff check src\nruff format --diff src",
        project(src={"src/shop/orders.py": UGLY}),
        r"^(?:---|\+\+\+) src/|^\d+ files? would be reformatted",
    ),
    Scenario(
        "flake8",
        "lint",
        "flake8 src tests",
        lint_project(),
        FLAKE8,
        before=["python -m pip install flake8"],
    ),
    Scenario(
        "black-check",
        "lint",
        "black --check .",
        project(src={"src/shop/orders.py": UGLY}),
        r"^would reformat ",
    ),
    Scenario(
        "black-check-diff",
        "lint",
        "black --check --diff src",
        project(src={"src/shop/orders.py": UGLY}),
        r"^(?:---|\+\+\+) \S+\.py|^would reformat ",
    ),
    Scenario(
        "isort-check",
        "lint",
        "isort --check-only src",
        lint_project(),
        r"^ERROR: .* Imports are incorrectly sorted",
    ),
    Scenario(
        "isort-diff",
        "lint",
        "isort --check --diff src",
        lint_project(),
        r"^ERROR: .* Imports are incorrectly sorted|^(?:---|\+\+\+) \S+\.py",
    ),
    Scenario(
        "pylint", "lint", "pylint src/shop", lint_project(), r"^\S+\.py:\d+:\d+: [CRWEF]\d{4}: "
    ),
    Scenario(
        "pylint-errors-only",
        "lint",
        "pylint --disable=all --enable=E,W src/shop",
        lint_project(),
        r"^\S+\.py:\d+:\d+: [EW]\d{4}: ",
    ),
    Scenario("tox-lint", "lint", "tox -e lint", lint_project() | {"tox.ini": TOX_INI}, FLAKE8),
    Scenario("nox-lint", "lint", "nox -s lint", lint_project() | {"noxfile.py": NOXFILE}, FLAKE8),
)

# type
add(
    Scenario(
        "mypy",
        "type",
        "mypy src",
        project(src={"src/shop/typed.py": TYPED_BAD}),
        MYPY,
        before=["python -m pip install mypy", "ruff format --check src"],
    ),
    Scenario(
        "mypy-strict-pretty",
        "type",
        "mypy --strict --pretty src",
        project(src={"src/shop/typed.py": TYPED_BAD}),
        MYPY,
    ),
    Scenario(
        "mypy-then-tests",
        "type",
        "mypy src tests\npytest -q",
        project(src={"src/shop/typed.py": TYPED_BAD}),
        MYPY,
        note="the step stops at mypy (bash -e); the tests never run",
    ),
    Scenario(
        "pyright", "type", "pyright src", project(src={"src/shop/typed.py": TYPED_BAD}), PYRIGHT
    ),
    Scenario(
        "tox-type",
        "type",
        "tox -e type",
        project(src={"src/shop/typed.py": TYPED_BAD}) | {"tox.ini": TOX_INI},
        MYPY,
    ),
)

# build
add(
    Scenario(
        "pip-install-c-header",
        "build",
        "python -m pip install .",
        {
            "setup.py": C_SETUP,
            "pyproject.toml": C_PYPROJECT,
            "src/fastsum/__init__.py": "",
            "src/fastsum/_speed.c": C_MISSING_HEADER,
        },
        CC_ERROR + r"|^\s*error: command '.*' failed",
    ),
    Scenario(
        "build-wheel-c-error",
        "build",
        "python -m build --wheel",
        {
            "setup.py": C_SETUP,
            "pyproject.toml": C_PYPROJECT,
            "src/fastsum/__init__.py": "",
            "src/fastsum/_speed.c": C_BAD_CODE,
        },
        CC_ERROR + r"|^error: command '.*' failed",
    ),
    Scenario(
        "build-sdist-bad-setup",
        "build",
        "python -m build --sdist",
        {
            "setup.py": "from setuptools import setup\n\nsetup(name='fastsum', version='0.1.0', packages=['fastsum'], package_dir={'': 'src'})\n",
            "pyproject.toml": C_PYPROJECT,
            "README.md": "x\n",
        },
        r"^error: package directory '.*' does not exist|^error: ",
    ),
)

# dependency
add(
    Scenario(
        "pip-pinned-missing",
        "dependency",
        "python -m pip install -r requirements.txt",
        project() | {"requirements.txt": "pytest\nattrs==99.1.0\n"},
        PIP_NOT_FOUND,
    ),
    Scenario(
        "pip-conflict",
        "dependency",
        "python -m pip install 'pytest==8.3.3' 'pluggy==1.0.0'",
        project(),
        r"^ERROR: Cannot install|^ERROR: ResolutionImpossible|^\s+The conflict is caused by:",
    ),
    Scenario(
        "uv-conflict",
        "dependency",
        "uv pip install --python python 'pytest==8.3.3' 'pluggy==1.0.0'",
        project(),
        r"^\s*(?:×|x|error:) No solution found|^\s+(?:╰─▶|cause:) Because",
    ),
    Scenario(
        "uv-missing-version",
        "dependency",
        "uv pip install --python python 'attrs==99.1.0'",
        project(),
        r"^\s*(?:×|x|error:) No solution found|^\s+(?:╰─▶|cause:) Because",
    ),
    Scenario(
        "pytest-module-not-found",
        "dependency",
        "pytest -q",
        project(
            test_module("""\
        import requests_mock_never_installed as rm


        def test_prices_endpoint():
            assert rm is not None
        """)
        ),
        SUMMARY,
        first=E_LINE,
        failing_tests=["tests/test_service.py"],
        note="a third-party module the test imports is not installed",
    ),
    Scenario(
        "pytest-module-not-found-src",
        "dependency",
        "pytest -v",
        project(
            src={
                "src/shop/export.py": "import yaml\n\n\ndef dump(obj):\n    return yaml.safe_dump(obj)\n"
            },
            tests=test_module("""\
        from shop.export import dump


        def test_dump():
            assert dump({"a": 1}) == "a: 1\\n"
        """),
        ),
        SUMMARY,
        first=E_LINE,
        failing_tests=["tests/test_service.py"],
        note="the project's module imports yaml (PyYAML), not installed in the environment",
    ),
    Scenario(
        "tox-missing-dep-version",
        "dependency",
        "tox -e py312",
        project(test_module(T_ASSERT, "tests/test_pricing.py"))
        | {
            "tox.ini": TOX_INI.replace(
                "deps = pytest\n", "deps =\n    pytest\n    attrs==99.1.0\n", 1
            )
        },
        PIP_NOT_FOUND,
    ),
)

# network
add(
    Scenario(
        "pytest-dns",
        "network",
        "pytest -q",
        project(
            test_module("""\
        import urllib.request


        def test_fetch_rates():
            with urllib.request.urlopen("http://rates.example.invalid/v1/latest", timeout=5) as r:
                assert r.status == 200
        """)
        ),
        SUMMARY,
        first=E_LINE,
        failing_tests=["tests/test_service.py::test_fetch_rates"],
    ),
    Scenario(
        "pytest-dns-verbose",
        "network",
        "pytest -v --tb=short",
        project(
            test_module("""\
        import http.client


        def get_json(host, path):
            conn = http.client.HTTPSConnection(host, timeout=5)
            conn.request("GET", path)
            return conn.getresponse().read()


        def test_exchange_rates():
            assert get_json("api.rates.invalid", "/latest")


        def test_exchange_history():
            assert get_json("api.rates.invalid", "/history")
        """),
            passing=15,
        ),
        SUMMARY,
        first=E_LINE,
        failing_tests=[
            "tests/test_service.py::test_exchange_rates",
            "tests/test_service.py::test_exchange_history",
        ],
    ),
    Scenario(
        "pip-index-unreachable",
        "network",
        "python -m pip install --index-url https://pypi.mirror.invalid/simple --retries 1 --timeout 3 -r requirements.txt",
        project() | {"requirements.txt": "PyYAML>=6.0\n"},
        r"^WARNING: Retrying .*(?:NewConnectionError|NameResolution)|^ERROR: (?:Could not find a version|No matching distribution)",
    ),
    Scenario(
        "git-clone-dns",
        "network",
        "git clone --depth 1 https://git.vendor.invalid/acme/schemas.git vendor/schemas",
        project(),
        r"^fatal: unable to access",
    ),
    Scenario(
        "curl-dns",
        "network",
        "curl -sSfL https://downloads.vendor.invalid/tool-1.2.tar.gz -o tool.tar.gz\ntar xzf tool.tar.gz",
        project(),
        r"^curl: \(\d+\) ",
    ),
)

# timeout
SLOW = """\
import time


def test_sync_with_peer():
    time.sleep(30)
"""
add(
    Scenario(
        "pytest-timeout-signal",
        "timeout",
        "pytest -q --timeout=2",
        project(test_module(SLOW)),
        r"^E\s+Failed: Timeout|^\+{3,} Timeout \+{3,}|" + SUMMARY,
        failing_tests=["tests/test_service.py::test_sync_with_peer"],
    ),
    Scenario(
        "pytest-timeout-thread",
        "timeout",
        "pytest -v --timeout=2 --timeout-method=thread",
        project(test_module(SLOW)),
        r"^\+{3,} Timeout \+{3,}",
        failing_tests=["tests/test_service.py::test_sync_with_peer"],
        note="pytest-timeout's thread method dumps the stacks and ends the process: no summary",
    ),
    Scenario(
        "pytest8-timeout-ini",
        "timeout",
        "pytest",
        project(test_module(SLOW), extra="timeout = 2\n"),
        r"^E\s+Failed: Timeout|^\+{3,} Timeout \+{3,}|" + SUMMARY,
        failing_tests=["tests/test_service.py::test_sync_with_peer"],
        venv="pytest8",
    ),
    Scenario(
        "coreutils-timeout",
        "timeout",
        "timeout 4 pytest -v",
        project(test_module(SLOW)),
        r"(?!)",
        runner_error=True,
        note="GNU timeout ends pytest (exit 124): nothing but the exit code says it; the runner's exit line is the error line",
    ),
)

# configuration
add(
    Scenario(
        "pytest-env-keyerror",
        "configuration",
        "pytest -q",
        project(
            test_module("""\
        import os


        def api_headers():
            return {"Authorization": "Bearer " + os.environ["SHOP_API_TOKEN"]}


        def test_headers():
            assert api_headers()["Authorization"].startswith("Bearer ")
        """)
        ),
        SUMMARY,
        first=E_LINE,
        failing_tests=["tests/test_service.py::test_headers"],
    ),
    Scenario(
        "pydantic-settings",
        "configuration",
        "pytest",
        project(
            src={"src/shop/config.py": SETTINGS},
            tests=test_module("""\
        from shop.config import settings


        def test_debug_off():
            assert settings.debug is False
        """),
        ),
        r"^E\s+pydantic_core\._pydantic_core\.ValidationError|^E\s+Field required|" + SUMMARY,
        failing_tests=["tests/test_service.py"],
    ),
    Scenario(
        "pydantic-settings-script",
        "configuration",
        "python -c 'import shop.config'",
        project(src={"src/shop/config.py": SETTINGS}),
        r"^pydantic_core\._pydantic_core\.ValidationError|^\s+Field required",
        env={"PYTHONPATH": "src"},
    ),
    Scenario(
        "pytest-addopts-bad-int",
        "configuration",
        "pytest",
        project(extra='addopts = "-ra --durations=slow"\n'),
        r"error: argument --durations",
    ),
    Scenario(
        "pytest-addopts-missing-plugin",
        "configuration",
        "pytest -q",
        project(extra='addopts = "--cov=shop --cov-report=term"\n'),
        r"error: unrecognized arguments",
        label_alt="dependency",
        note="addopts names pytest-cov's options and pytest-cov is not installed: a configuration error or a missing dependency",
    ),
    Scenario(
        "pytest-strict-markers",
        "configuration",
        "pytest -q",
        project(
            test_module("""\
        import pytest


        @pytest.mark.integration
        def test_end_to_end():
            assert True
        """),
            extra='addopts = "--strict-markers"\n',
        ),
        r"not found in `markers` configuration option|" + SUMMARY,
        failing_tests=["tests/test_service.py"],
    ),
    Scenario(
        "pytest-strict-config",
        "configuration",
        "pytest -q",
        project(extra='addopts = "--strict-config"\nasyncio_mode = "auto"\n'),
        r"Unknown config option",
    ),
    Scenario(
        "ruff-bad-config",
        "configuration",
        "ruff check .",
        lint_project() | {"ruff.toml": '[lint]\nselect = ["E", "F", "XYZ1"]\n'},
        r"^ruff failed|Unknown rule selector|^\s+Cause: ",
    ),
    Scenario(
        "tox-unknown-env",
        "configuration",
        "tox -e docs",
        project() | {"tox.ini": TOX_INI},
        r"provided environments not found|HandledError",
    ),
    Scenario(
        "nox-unknown-session",
        "configuration",
        "nox -s docs",
        project() | {"noxfile.py": NOXFILE},
        r"Sessions? not found",
    ),
    Scenario(
        "shell-missing-secret",
        "configuration",
        'echo "publishing shop 0.1.0"\n: "${PYPI_TOKEN:?PYPI_TOKEN is not set}"\npython -m build',
        project(),
        r"PYPI_TOKEN is not set",
    ),
)

# environment
add(
    Scenario(
        "command-not-found",
        "environment",
        "poetry install --with dev\npoetry run pytest",
        project(),
        r"command not found",
    ),
    Scenario(
        "pytest-shared-library",
        "environment",
        "pytest -q",
        project(
            test_module("""\
        import ctypes


        def load_codec():
            return ctypes.CDLL("libshopcodec.so.3")


        def test_codec_roundtrip():
            assert load_codec() is not None
        """)
        ),
        SUMMARY,
        first=E_LINE,
        failing_tests=["tests/test_service.py::test_codec_roundtrip"],
    ),
    Scenario(
        "pytest-localhost-refused",
        "environment",
        "pytest -q",
        project(
            test_module("""\
        import socket


        def test_database_reachable():
            with socket.create_connection(("127.0.0.1", 5439), timeout=3):
                pass
        """)
        ),
        SUMMARY,
        first=E_LINE,
        failing_tests=["tests/test_service.py::test_database_reachable"],
        label_alt="network",
        note="connection refused on a loopback port: a service the job should have started is not there",
    ),
    Scenario(
        "script-not-executable",
        "environment",
        "./scripts/check.sh",
        project() | {"scripts/check.sh": "#!/bin/sh\npytest -q\n"},
        r"Permission denied",
    ),
    Scenario(
        "requires-python",
        "environment",
        "python -m pip install .",
        project() | {"pyproject.toml": PYPROJECT.format(extra="").replace(">=3.9", ">=3.14")},
        r"^ERROR: Package '.*' requires a different Python",
        label_alt="dependency",
        note="the project needs a newer Python than the job set up",
    ),
)

# infrastructure (a process killed with SIGKILL, as the OOM killer does: the log cannot say who sent it)
add(
    Scenario(
        "sigkill-pytest",
        "infrastructure",
        "pytest -v",
        project(
            test_module("""\
        import os
        import signal


        def test_big_report():
            os.kill(os.getpid(), signal.SIGKILL)
        """),
            passing=12,
        ),
        r"Killed",
        label_alt="test",
        note="the test process is SIGKILLed (exit 137) as the OOM killer does; here the test sent it",
    ),
    Scenario(
        "sigkill-xdist-worker",
        "infrastructure",
        "pytest -n 2 -q",
        project(
            test_module("""\
        import os
        import signal


        def test_big_report():
            os.kill(os.getpid(), signal.SIGKILL)
        """),
            passing=20,
        ),
        r"crashed while running|node down",
        label_alt="test",
        failing_tests=["tests/test_service.py::test_big_report"],
        note="an xdist worker is SIGKILLed as by the OOM killer; here the test sent it",
    ),
)


# more shapes: coverage gate, packaging metadata, stubs, hashes, hooks
PRE_COMMIT = """\
repos:
  - repo: local
    hooks:
      - id: ruff
        name: ruff
        entry: ruff check
        language: system
        types: [python]
      - id: ruff-format
        name: ruff-format
        entry: ruff format --check
        language: system
        types: [python]
"""
add(
    Scenario(
        "pytest-cov-fail-under",
        "test",
        "pytest --cov=shop --cov-fail-under=95",
        project(
            src={
                "src/shop/extra.py": textwrap.dedent("""\
        def unused_branch(x):
            if x > 10:
                return "big"
            if x > 5:
                return "medium"
            return "small"
        """)
            }
        ),
        r"^(?:ERROR: )?(?:FAIL )?Coverage failure: |^FAIL Required test coverage",
        label_alt="configuration",
        venv="gates",
        note="the suite passes and the coverage gate fails; `test` (the tests do not cover the code), debatable",
    ),
    Scenario(
        "pytest-vv-dict-diff",
        "test",
        "pytest -vv",
        project(
            test_module("""\
        from shop.cart import total


        def summary(prices):
            return {"count": len(prices), "total": total(prices), "currency": "EUR", "max": max(prices)}


        def test_summary():
            assert summary([1.0, 2.5]) == {"count": 2, "total": 3.5, "currency": "USD", "max": 2.5}
        """)
        ),
        SUMMARY,
        first=E_LINE,
        failing_tests=["tests/test_service.py::test_summary"],
    ),
    Scenario(
        "pytest-teardown-error",
        "test",
        "pytest -q",
        project(
            test_module("""\
        import pytest


        @pytest.fixture
        def session():
            yield {"open": True}
            raise RuntimeError("session was not closed cleanly")


        def test_uses_session(session):
            assert session["open"]
        """)
        ),
        SUMMARY,
        first=E_LINE,
        failing_tests=["tests/test_service.py::test_uses_session"],
        note="the test passes; its fixture's teardown raises (ERROR at teardown)",
    ),
    Scenario(
        "unittest-quiet",
        "test",
        "python -m unittest",
        project(
            test_module(
                """\
        import unittest

        from shop.cart import parse_price


        class ParseTest(unittest.TestCase):
            def test_comma(self):
                self.assertAlmostEqual(parse_price("4,50"), 4.5)

            def test_dollar(self):
                self.assertEqual(parse_price("$3"), 3.5)
        """,
                "tests/test_parse.py",
            )
        ),
        UNITTEST,
        env={"PYTHONPATH": "src"},
        failing_tests=[
            "tests/test_parse.py::ParseTest::test_comma",
            "tests/test_parse.py::ParseTest::test_dollar",
        ],
    ),
    Scenario(
        "build-invalid-metadata",
        "build",
        "python -m build",
        project()
        | {
            "pyproject.toml": PYPROJECT.format(extra="")
            .replace(
                'version = "0.1.0"',
                'version = "0.1.0"\nlicense = {file = "LICENSE.txt", text = "MIT"}',
            )
            .replace(
                "[project]",
                '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n\n[project]',
            )
        },
        r"configuration error: |ValueError: invalid pyproject|^\s*error: ",
        label_alt="configuration",
        note="the build backend rejects the pyproject.toml metadata: a build failure caused by configuration",
    ),
    Scenario(
        "mypy-missing-stubs",
        "type",
        "mypy src",
        project(
            src={
                "src/shop/export.py": "import yaml\n\n\ndef dump(obj: object) -> str:\n    return yaml.safe_dump(obj)\n"
            }
        ),
        MYPY,
        label_alt="dependency",
        note="mypy finds no stubs for a third-party import (types-PyYAML is not installed)",
    ),
    Scenario(
        "python-m-missing-tool",
        "dependency",
        "python -m pip install pytest\npython -m ruff check .",
        project(),
        r"No module named ruff",
        venv="pytest7",
        label_alt="environment",
        note="the job never installed the linter it runs",
    ),
    Scenario(
        "pip-hash-mismatch",
        "dependency",
        "python -m pip install --require-hashes -r requirements.txt",
        project()
        | {
            "requirements.txt": "attrs==25.4.0 --hash=sha256:0000000000000000000000000000000000000000000000000000000000000000\n"
        },
        r"^ERROR: THESE PACKAGES DO NOT MATCH THE HASHES|^\s+Expected sha256|^\s+Got\s",
    ),
    Scenario(
        "pre-commit-local",
        "lint",
        "pre-commit run --all-files --show-diff-on-failure",
        lint_project() | {".pre-commit-config.yaml": PRE_COMMIT},
        r"\.{3,}Failed$|" + RUFF_FULL,
        git_add=True,
        venv="gates",
        note="pre-commit with `repo: local` hooks (language: system): hook repositories from the internet cannot be fetched here",
    ),
    Scenario(
        "pre-commit-format",
        "lint",
        "pre-commit run --all-files",
        project(src={"src/shop/orders.py": UGLY}) | {".pre-commit-config.yaml": PRE_COMMIT},
        r"\.{3,}Failed$|^unformatted: |^Would reformat: ",
        git_add=True,
        venv="gates",
    ),
    Scenario(
        "nox-format",
        "lint",
        "nox -s format",
        project(src={"src/shop/orders.py": UGLY})
        | {
            "noxfile.py": NOXFILE
            + '\n\n@nox.session(python=False)\ndef format(session):\n    session.run("black", "--check", ".")\n'
        },
        r"^would reformat ",
    ),
)


# --------------------------------------------------------------------------- round 2
# Written after the rules were changed for the scenarios above and measured once as a
# held-out part (class 89.7 %, top-3 87.2 %); then their misses were read and the rules
# changed for them, so they are "dev" now (round 2).


def later(round_: int, half: str, *items: Scenario) -> None:
    for item in items:
        item.round, item.half = round_, half
    add(*items)


T_CLASS_SETUP = """\
import subprocess
import sys

import pytest

from shop.cart import parse_price


class TestImport:
    def setup_method(self):
        self.rows = [" $1.50", "$2", "three"]

    def test_parse_all(self):
        assert [parse_price(r) for r in self.rows] == [1.5, 2.0, 3.0]

    def test_cli_version(self):
        subprocess.run([sys.executable, "-c", "import sys; sys.exit(3)"], check=True)

    def test_explicit_fail(self):
        pytest.fail("import of legacy rows is not implemented")
"""
CLASS_FAILS = [
    "tests/test_import.py::TestImport::test_parse_all",
    "tests/test_import.py::TestImport::test_cli_version",
    "tests/test_import.py::TestImport::test_explicit_fail",
]
CHAINED = """\
import json


def load_config(text):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError("config is not valid JSON") from exc


def test_load_config():
    assert load_config("{bad json}") == {}
"""
HATCH_PYPROJECT = """\
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "shop-tools"
version = "0.1.0"
"""
LINK_SETUP = C_SETUP.replace(
    '["src/fastsum/_speed.c"]', '["src/fastsum/_speed.c"], libraries=["shopmath"]'
)
C_GOOD = C_BAD_CODE.replace(" + count", "").replace("&mod) }", "&mod); }")
DOCTEXT = '''\
def title(text):
    """Title-case a product name.

    >>> title("red shoe")
    'Red Shoe'
    >>> title("usb-c cable")
    'USB-C Cable'
    """
    return text.title()
'''

later(
    2,
    "dev",
    pytest_case(
        "ho-pytest-class-setup-long",
        "test",
        "pytest -l --tb=long",
        project(test_module(T_CLASS_SETUP, "tests/test_import.py")),
        CLASS_FAILS,
    ),
    pytest_case(
        "ho-pytest-chained",
        "test",
        "python -m pytest --no-header -rfE -p no:cacheprovider",
        project(test_module(CHAINED)),
        ["tests/test_service.py::test_load_config"],
    ),
    pytest_case(
        "ho-pytest8-line-multi",
        "test",
        "pytest --tb=line -q",
        project(test_module(T_CLASS_SETUP, "tests/test_import.py")),
        CLASS_FAILS,
        venv="pytest8",
        error=r"^/\S+\.py:\d+: |" + SUMMARY,
        first=None,
    ),
    pytest_case(
        "ho-pytest7-rf",
        "test",
        "pytest -rf",
        project(test_module(CHAINED)),
        ["tests/test_service.py::test_load_config"],
        venv="pytest7",
    ),
    pytest_case(
        "ho-pytest-xdist-loadfile-setup-error",
        "test",
        "pytest -n 2 --dist loadfile",
        project(
            test_module("""\
        import pytest


        @pytest.fixture
        def prices():
            return dict(zip(["a", "b"], [1.0]))["b"]


        def test_b_price(prices):
            assert prices == 1.0
        """),
            passing=25,
        ),
        ["tests/test_service.py::test_b_price"],
    ),
    Scenario(
        "ho-unittest-failfast-subtest",
        "test",
        "python -m unittest -v -f",
        project(
            test_module(
                """\
        import unittest

        from shop.cart import total


        class TotalsTest(unittest.TestCase):
            def test_each(self):
                for prices, want in (([1.0], 1.0), ([2.0, 2.0], 5.0)):
                    with self.subTest(prices=prices):
                        self.assertEqual(total(prices), want)
        """,
                "tests/test_sub.py",
            )
        ),
        UNITTEST,
        env={"PYTHONPATH": "src"},
        failing_tests=["tests/test_sub.py::TotalsTest::test_each"],
    ),
    Scenario(
        "ho-python-doctest",
        "test",
        "python -m doctest -v src/shop/text.py",
        project(src={"src/shop/text.py": DOCTEXT}),
        r"^Failed example:|^\*\*\*Test Failed\*\*\*|^Expected:|^Got:",
    ),
    pytest_case(
        "ho-nox-two-sessions",
        "test",
        "nox -s lint tests",
        project(test_module(T_ASSERT, "tests/test_pricing.py")) | {"noxfile.py": NOXFILE},
        ["tests/test_pricing.py::test_total_discount"],
        note="the lint session passes, the tests session fails",
    ),
    pytest_case(
        "ho-tox-two-envs",
        "test",
        "tox -e lint,py312",
        project(test_module(CHAINED)) | {"tox.ini": TOX_INI},
        ["tests/test_service.py::test_load_config"],
    ),
    # lint
    Scenario(
        "ho-ruff-grouped",
        "lint",
        "ruff check --output-format=grouped src",
        lint_project(),
        r"^\s+\d+:\d+ [A-Z]+\d+ ",
    ),
    Scenario(
        "ho-flake8-starter",
        "lint",
        "flake8 . --count --select=E9,F63,F7,F82 --show-source --statistics\nflake8 . --count --exit-zero --max-complexity=10 --max-line-length=127 --statistics",
        lint_project(),
        FLAKE8,
        note="the lint step of GitHub's Python starter workflow",
    ),
    Scenario(
        "ho-pylint-parseable",
        "lint",
        "pylint --output-format=parseable --disable=C src/shop",
        lint_project(),
        r"^\S+\.py:\d+: \[[EWRF]\d{4}",
    ),
    Scenario(
        "ho-black-quiet",
        "lint",
        "black --check -q .",
        project(src={"src/shop/orders.py": UGLY}),
        r"(?!)",
        runner_error=True,
        note="black -q prints nothing: only the exit code says the check failed",
    ),
    Scenario(
        "ho-isort-profile",
        "lint",
        "isort --check-only --diff --profile black .",
        lint_project(),
        r"^ERROR: .* Imports are incorrectly sorted|^(?:---|\+\+\+) \S+\.py",
    ),
    Scenario(
        "ho-codespell",
        "lint",
        "codespell src README.md",
        project(src={"src/shop/notes.py": '"""Recieve the adress of the custmer."""\n'}),
        r":\d+: \w+ ==> ",
        venv="gates",
    ),
    # type
    Scenario(
        "ho-mypy-no-summary",
        "type",
        "mypy --no-error-summary --show-column-numbers src",
        project(src={"src/shop/typed.py": TYPED_BAD}),
        MYPY,
    ),
    Scenario(
        "ho-mypy-import-not-found",
        "type",
        "mypy src",
        project(
            src={
                "src/shop/client.py": "import shop_remote_sdk\n\n\ndef ping() -> str:\n    return shop_remote_sdk.ping()\n"
            }
        ),
        MYPY,
        label_alt="dependency",
        note="mypy cannot find a module the code imports (not installed)",
    ),
    Scenario(
        "ho-pyright-level",
        "type",
        "pyright --level error src tests",
        project(src={"src/shop/typed.py": TYPED_BAD}),
        PYRIGHT,
    ),
    # build
    Scenario(
        "ho-setup-py-nameerror",
        "build",
        "python -m pip install -e .",
        {
            "setup.py": "from setuptools import setup\n\nsetup(name='fastsum', version=VERSION, packages=[])\n",
            "pyproject.toml": C_PYPROJECT,
        },
        r"NameError: name 'VERSION' is not defined",
    ),
    Scenario(
        "ho-hatch-no-files",
        "build",
        "python -m build --wheel",
        {"pyproject.toml": HATCH_PYPROJECT, "README.md": "x\n", "lib/tools.py": "X = 1\n"},
        r"^ValueError: Unable to determine which files to ship|^ERROR Backend subprocess exited",
    ),
    Scenario(
        "ho-c-link-error",
        "build",
        "python -m pip install .",
        {
            "setup.py": LINK_SETUP,
            "pyproject.toml": C_PYPROJECT,
            "src/fastsum/__init__.py": "",
            "src/fastsum/_speed.c": C_GOOD,
        },
        r"cannot find -lshopmath|ld returned 1 exit status|^\s*error: command '.*' failed",
    ),
    # dependency
    Scenario(
        "ho-pip-requires-python",
        "dependency",
        "python -m pip install --only-binary=:all: 'numpy==1.21.0'",
        project(),
        r"^ERROR: (?:Could not find a version|No matching distribution|Ignored the following versions)",
    ),
    Scenario(
        "ho-uv-locked-stale",
        "dependency",
        "uv lock --check",
        project() | {"uv.lock": 'version = 1\nrequires-python = ">=3.9"\n'},
        r"needs to be updated|^error: ",
    ),
    Scenario(
        "ho-pip-check",
        "dependency",
        "python -m venv .venv-check\n.venv-check/bin/pip install -q --no-deps 'pytest==8.3.3'\n.venv-check/bin/pip check",
        project(),
        r" requires \S+, which is not installed|has requirement",
    ),
    Scenario(
        "ho-script-module-not-found",
        "dependency",
        "python scripts/report.py",
        project()
        | {"scripts/report.py": "import pandas_never_installed as pd\n\nprint(pd.__version__)\n"},
        r"^ModuleNotFoundError: ",
    ),
    # network
    pytest_case(
        "ho-pytest-fixture-dns",
        "network",
        "pytest -q",
        project(
            test_module("""\
        import urllib.request

        import pytest


        @pytest.fixture(scope="module")
        def catalog():
            return urllib.request.urlopen("https://catalog.vendor.invalid/v2/items.json", timeout=5).read()


        def test_catalog_nonempty(catalog):
            assert catalog
        """)
        ),
        ["tests/test_service.py::test_catalog_nonempty"],
    ),
    Scenario(
        "ho-npm-registry-dns",
        "network",
        "npm install --no-audit --no-fund --registry https://registry.npm.invalid/ left-pad",
        project() | {"package.json": '{"name": "shop-web", "version": "1.0.0"}\n'},
        r"^npm (?:ERR!|error) (?:code ENOTFOUND|errno ENOTFOUND|network|request to)",
    ),
    pytest_case(
        "ho-pytest-collection-dns",
        "network",
        "pytest",
        project(
            test_module("""\
        import socket

        ADDRESS = socket.getaddrinfo("db.staging.invalid", 5432)[0][4]


        def test_address():
            assert ADDRESS
        """)
        ),
        ["tests/test_service.py"],
    ),
    # timeout
    pytest_case(
        "ho-pytest-timeout-xdist",
        "timeout",
        "pytest -n 2 --timeout=2",
        project(test_module(SLOW), passing=10),
        ["tests/test_service.py::test_sync_with_peer"],
        error=r"^E\s+Failed: Timeout|^\+{3,} Timeout \+{3,}|" + SUMMARY,
        first=None,
    ),
    Scenario(
        "ho-faulthandler-then-timeout",
        "timeout",
        "timeout 6 python -m pytest -o faulthandler_timeout=2 -v",
        project(test_module(SLOW)),
        r"Timeout \(\d+:\d\d:\d\d\)!$",
        note="faulthandler dumps the stacks after 2 s; GNU timeout ends the run (exit 124)",
    ),
    # configuration
    Scenario(
        "ho-pyproject-syntax",
        "configuration",
        "pytest",
        project() | {"pyproject.toml": PYPROJECT.format(extra="") + "addopts = -ra\n"},
        r"pyproject\.toml|TOML|Invalid",
    ),
    pytest_case(
        "ho-settings-bad-bool",
        "configuration",
        "pytest -q",
        project(
            src={"src/shop/config.py": SETTINGS},
            tests=test_module("""\
        from shop.config import settings


        def test_debug_flag():
            assert settings.debug in (True, False)
        """),
        ),
        ["tests/test_service.py"],
        env={"API_KEY": "k", "DATABASE_URL": "sqlite://", "DEBUG": "sometimes"},
    ),
    Scenario(
        "ho-script-environ",
        "configuration",
        "python scripts/migrate.py",
        project()
        | {
            "scripts/migrate.py": "import os\n\nurl = os.environ[\"DATABASE_URL\"]\nprint('migrating', url)\n"
        },
        r"^KeyError: ",
    ),
    # environment
    Scenario(
        "ho-python-version-missing",
        "environment",
        "python3.99 -m pytest",
        project(),
        r"command not found",
    ),
    pytest_case(
        "ho-pytest-missing-executable",
        "environment",
        "pytest -q",
        project(
            test_module("""\
        import subprocess


        def test_render_graph(tmp_path):
            subprocess.run(["dot-graphviz-render", "-Tpng", "-o", str(tmp_path / "g.png")], check=True)
        """)
        ),
        ["tests/test_service.py::test_render_graph"],
        note="a system program the test runs is not installed",
    ),
    Scenario(
        "ho-script-shared-library",
        "environment",
        "python -c 'import ctypes; ctypes.CDLL(\"libshopcodec.so.3\")'",
        project(),
        r"^OSError: ",
    ),
    # infrastructure
    Scenario(
        "ho-script-sigkill",
        "infrastructure",
        "python -c 'import os, signal; print(\"loading 2 GB of fixtures\", flush=True); os.kill(os.getpid(), signal.SIGKILL)'",
        project(),
        r"Killed",
        note="SIGKILLed (exit 137) as by the OOM killer; here the script sent it",
    ),
    pytest_case(
        "ho-pytest-memoryerror",
        "infrastructure",
        "ulimit -v 1000000\npytest -q",
        project(
            test_module("""\
        def test_big_matrix():
            rows = bytearray(4 * 1024 * 1024 * 1024)
            assert len(rows)
        """)
        ),
        ["tests/test_service.py::test_big_matrix"],
        label_alt="test",
        note="MemoryError under a memory limit (ulimit -v): the runner's memory, or the test's appetite",
    ),
    pytest_case(
        "ho-pytest-segfault",
        "test",
        "pytest -v",
        project(
            test_module("""\
        import ctypes


        def test_native_reader():
            assert ctypes.string_at(0)
        """)
        ),
        ["tests/test_service.py::test_native_reader"],
        error=r"^Fatal Python error: Segmentation fault|Segmentation fault",
        first=None,
        label_alt="infrastructure",
        note="the test process crashes (SIGSEGV): the code under test, or the machine",
    ),
)


# --------------------------------------------------------------------------- round 3: held-out
# Written after the rule changes of rounds 1 and 2 and only measured: the benchmark reports
# them apart ("held-out"); their misses are not read and no rule is changed for them.

T_MAXFAIL = """\
import pytest

from shop.cart import parse_price


@pytest.mark.parametrize("text", ["4,50", "4 50", "four", "$4.5.0"])
def test_odd_prices(text):
    assert parse_price(text) == 4.5
"""
T_IDS = """\
import pytest

from shop.cart import total


@pytest.mark.parametrize("label, prices", [("two items", [1, 2]), ("x[y]", [3])], ids=["two items", "x[y]"])
def test_label_total(label, prices):
    assert total(prices) == 0
"""
T_UNITTEST_STYLE = """\
import unittest

from shop.cart import total


class TotalCase(unittest.TestCase):
    def test_discount(self):
        self.assertEqual(total([10.0], discount=0.25), 7.0)
"""

# Round 3 was measured once as held-out (class 86.1 %, top-3 100 %) after the round-2
# changes; after round 4 was written and measured, its misses were read and the rules
# changed for them, so it is "dev" now.
later(
    3,
    "dev",
    pytest_case(
        "r3-pytest-tb-no",
        "test",
        "pytest --tb=no -q -rf",
        project(test_module(T_MAXFAIL)),
        [
            f"tests/test_service.py::test_odd_prices[{t}]"
            for t in ("4,50", "4 50", "four", "$4.5.0")
        ],
    ),
    pytest_case(
        "r3-pytest-maxfail",
        "test",
        "pytest --maxfail=2 -v",
        project(test_module(T_MAXFAIL), passing=8),
        [
            "tests/test_service.py::test_odd_prices[4,50]",
            "tests/test_service.py::test_odd_prices[4 50]",
        ],
    ),
    pytest_case(
        "r3-pytest-ids",
        "test",
        "pytest -vv -l",
        project(test_module(T_IDS)),
        [
            "tests/test_service.py::test_label_total[two items]",
            "tests/test_service.py::test_label_total[x[y]]",
        ],
    ),
    pytest_case(
        "r3-pytest-lf-retry",
        "test",
        "pytest -q || pytest -q --lf",
        project(test_module(T_ASSERT, "tests/test_pricing.py")),
        ["tests/test_pricing.py::test_total_discount"],
        note="the job reruns the last failures; they fail again",
    ),
    pytest_case(
        "r3-pytest-unittest-style",
        "test",
        "pytest --junitxml=report.xml",
        project(test_module(T_UNITTEST_STYLE)),
        ["tests/test_service.py::TotalCase::test_discount"],
    ),
    pytest_case(
        "r3-tox-posargs",
        "test",
        "tox run -e py312 -- -x -v",
        project(test_module(T_MAXFAIL)) | {"tox.ini": TOX_INI},
        ["tests/test_service.py::test_odd_prices[4,50]"],
    ),
    pytest_case(
        "r3-pytest7-quiet-multi",
        "test",
        "pytest -q",
        project(test_module(T_MULTI, "tests/test_totals.py")),
        MULTI_FAILS,
        venv="pytest7",
    ),
    # lint
    Scenario(
        "r3-ruff-statistics",
        "lint",
        "ruff check --statistics .",
        lint_project(),
        r"^\s*\d+\s+[A-Z]+\d+\s",
    ),
    Scenario(
        "r3-flake8-pylint-format",
        "lint",
        "flake8 --format=pylint src",
        lint_project(),
        r"^\S+\.py:\d+: \[[A-Z]\d+\]",
    ),
    Scenario(
        "r3-black-syntax-error",
        "lint",
        "black --check src",
        project(src={"src/shop/broken.py": "def f(:\n    pass\n"}),
        r"^error: cannot (?:format|parse)",
        label_alt="build",
        note="black cannot parse a file (a syntax error) and fails the check",
    ),
    Scenario(
        "r3-pylint-fail-under",
        "lint",
        "pylint --fail-under=9.5 src/shop",
        project(src={"src/shop/util.py": "import os\n\n\ndef f(x):\n    return x\n"}),
        r"^\S+\.py:\d+:\d+: [CRWEF]\d{4}: |Your code has been rated at",
    ),
    Scenario(
        "r3-pre-commit-isort",
        "lint",
        "pre-commit run ruff-isort --all-files",
        lint_project()
        | {
            ".pre-commit-config.yaml": "repos:\n  - repo: local\n    hooks:\n      - id: ruff-isort\n        name: ruff-isort\n        entry: ruff check --select I\n        language: system\n        types: [python]\n"
        },
        r"\.{3,}Failed$|" + RUFF_FULL,
        git_add=True,
        venv="gates",
    ),
    # type
    Scenario(
        "r3-nox-mypy",
        "type",
        "nox -s typecheck",
        project(src={"src/shop/typed.py": TYPED_BAD})
        | {
            "noxfile.py": NOXFILE
            + '\n\n@nox.session(python=False)\ndef typecheck(session):\n    session.run("mypy", "--strict", "src")\n'
        },
        MYPY,
    ),
    Scenario(
        "r3-pyright-missing-import",
        "type",
        "pyright",
        project(
            src={
                "src/shop/client.py": "import shop_remote_sdk\n\n\ndef ping() -> str:\n    return shop_remote_sdk.ping()\n"
            }
        ),
        PYRIGHT,
        label_alt="dependency",
        note="pyright cannot resolve an import (not installed)",
    ),
    Scenario(
        "r3-mypy-syntax",
        "type",
        "mypy src",
        project(src={"src/shop/broken.py": "def f(:\n    pass\n"}),
        MYPY,
        label_alt="build",
        note="mypy stops at a syntax error",
    ),
    # build
    Scenario(
        "r3-pip-wheel-c",
        "build",
        "pip wheel --no-deps -w dist .",
        {
            "setup.py": C_SETUP,
            "pyproject.toml": C_PYPROJECT,
            "src/fastsum/__init__.py": "",
            "src/fastsum/_speed.c": C_BAD_CODE,
        },
        CC_ERROR,
    ),
    Scenario(
        "r3-compileall",
        "build",
        "python -m compileall -q src",
        project(src={"src/shop/broken.py": "def f(:\n    pass\n"}),
        r"^\*\*\* Error compiling|SyntaxError",
    ),
    Scenario(
        "r3-build-attr-version",
        "build",
        "python -m build --sdist",
        project()
        | {
            "pyproject.toml": PYPROJECT.format(extra="")
            .replace('version = "0.1.0"', 'dynamic = ["version"]')
            .replace(
                "[project]",
                '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n\n[tool.setuptools.dynamic]\nversion = {attr = "shop.__version__"}\n\n[project]',
            )
        },
        r"^AttributeError: |ERROR Backend subprocess exited|^error: ",
    ),
    # dependency
    Scenario(
        "r3-pip-conflict-file",
        "dependency",
        "python -m pip install -r requirements.txt",
        project() | {"requirements.txt": "pytest==8.3.3\npluggy<1.0\n"},
        r"^ERROR: Cannot install|^ERROR: ResolutionImpossible|^\s+The conflict is caused by:",
    ),
    Scenario(
        "r3-uv-requirements",
        "dependency",
        "uv pip install --python python -r requirements.txt",
        project() | {"requirements.txt": "attrs==99.1.0\n"},
        r"^\s*(?:×|x|error:) No solution found|^\s+(?:╰─▶|cause:) Because",
    ),
    Scenario(
        "r3-pip-no-index",
        "dependency",
        "python -m pip install --no-index --find-links ./wheels requests",
        project() | {"wheels/README": "no wheels yet\n"},
        PIP_NOT_FOUND,
    ),
    pytest_case(
        "r3-library-api-change",
        "dependency",
        "pytest -q",
        project(
            test_module("""\
        from pydantic import parse_raw_as_v3


        def test_parse():
            assert parse_raw_as_v3(int, "1") == 1
        """)
        ),
        ["tests/test_service.py"],
        note="a name the installed library version does not have",
    ),
    Scenario(
        "r3-conftest-plugin-missing",
        "dependency",
        "pytest",
        project()
        | {"tests/conftest.py": 'pytest_plugins = ["pytest_httpserver_never_installed"]\n'},
        r"ImportError|ModuleNotFoundError|No module named",
    ),
    # network
    Scenario(
        "r3-pip-git-dns",
        "network",
        "python -m pip install 'shoplib @ git+https://git.vendor.invalid/acme/shoplib.git'",
        project(),
        r"Could not resolve host|fatal: unable to access",
    ),
    Scenario(
        "r3-script-urlopen",
        "network",
        "python scripts/fetch_rates.py",
        project()
        | {
            "scripts/fetch_rates.py": 'import urllib.request\n\nprint(urllib.request.urlopen("https://rates.vendor.invalid/latest", timeout=5).read())\n'
        },
        r"^urllib\.error\.URLError|^socket\.gaierror",
    ),
    Scenario(
        "r3-curl-retry",
        "network",
        "curl --retry 2 --retry-delay 1 -fsSL https://downloads.vendor.invalid/data.csv -o data.csv",
        project(),
        r"^curl: \(\d+\) ",
    ),
    # timeout
    pytest_case(
        "r3-timeout-marker",
        "timeout",
        "pytest -v",
        project(
            test_module("""\
        import time

        import pytest


        @pytest.mark.timeout(1)
        def test_handshake():
            time.sleep(10)
        """)
        ),
        ["tests/test_service.py::test_handshake"],
        error=r"^E\s+Failed: Timeout|^\+{3,} Timeout \+{3,}|" + SUMMARY,
        first=None,
    ),
    Scenario(
        "r3-script-timeout",
        "timeout",
        'echo "warming cache"\ntimeout 3 python -c "import time; time.sleep(30)"',
        project(),
        r"(?!)",
        runner_error=True,
        note="GNU timeout ends a script (exit 124) that printed nothing",
    ),
    Scenario(
        "r3-unittest-timeout",
        "timeout",
        "timeout 4 python -m unittest -v",
        project(
            test_module(
                """\
        import time
        import unittest


        class SyncTest(unittest.TestCase):
            def test_sync(self):
                time.sleep(30)
        """,
                "tests/test_sync.py",
            )
        ),
        r"(?!)",
        runner_error=True,
        env={"PYTHONPATH": "src"},
        note="GNU timeout ends unittest (exit 124) mid-test",
    ),
    # configuration
    Scenario(
        "r3-pytest-config-file-missing",
        "configuration",
        "pytest -c ci/pytest.ini",
        project(),
        r"error|ERROR",
    ),
    Scenario(
        "r3-script-must-be-set",
        "configuration",
        "python scripts/deploy.py",
        project()
        | {
            "scripts/deploy.py": 'import os\nimport sys\n\nif not os.getenv("DEPLOY_TOKEN"):\n    sys.exit("DEPLOY_TOKEN must be set")\n'
        },
        r"DEPLOY_TOKEN must be set",
    ),
    Scenario(
        "r3-make-no-target",
        "configuration",
        "make test",
        project() | {"Makefile": "lint:\n\truff check .\n"},
        r"No rule to make target",
    ),
    # environment
    Scenario(
        "r3-tox-missing-interpreter",
        "environment",
        "tox -e py399",
        project() | {"tox.ini": TOX_INI},
        r"could not find python interpreter|skipped because|failed|HandledError",
    ),
    Scenario(
        "r3-nox-missing-interpreter",
        "environment",
        "nox -s tests",
        project()
        | {
            "noxfile.py": 'import nox\n\n\n@nox.session(python="3.99")\ndef tests(session):\n    session.run("pytest")\n'
        },
        r"[Ii]nterpreter .*not found|not found",
    ),
    pytest_case(
        "r3-pytest-missing-file",
        "environment",
        "pytest -q",
        project(
            test_module("""\
        from pathlib import Path


        def test_fixture_data():
            assert Path("/srv/shop/fixtures/catalog.json").read_text()
        """)
        ),
        ["tests/test_service.py::test_fixture_data"],
        label_alt="test",
        note="a file the test expects on the machine is not there",
    ),
    # infrastructure
    pytest_case(
        "r3-xdist-worker-segfault",
        "infrastructure",
        "pytest -n 2",
        project(
            test_module("""\
        import ctypes


        def test_native_reader():
            assert ctypes.string_at(0)
        """),
            passing=20,
        ),
        ["tests/test_service.py::test_native_reader"],
        error=r"crashed while running|node down",
        first=None,
        label_alt="test",
        note="an xdist worker dies of SIGSEGV: the code under test, or the machine",
    ),
)


# --------------------------------------------------------------------------- round 4
# Written after the round-3 measure, before any rule change for round 3's misses, and
# measured only (held-out). Other kinds than rounds 1-3: configuration and environment
# first, more tools' output formats, TLS and proxy failures against local servers, steps
# marked `continue-on-error` that fail before the real cause, `if: always()` steps after it.

TLS_SERVER = """\
import http.server
import ssl
import sys

server = http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), http.server.SimpleHTTPRequestHandler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain("cert.pem", "key.pem")
server.socket = context.wrap_socket(server.socket, server_side=True)
server.serve_forever()
"""
MAKE_CERT = "openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -subj /CN=localhost -days 2"
SILENT_SERVER = """\
import socket
import sys

sock = socket.socket()
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("127.0.0.1", int(sys.argv[1])))
sock.listen(5)
conns = []
while True:
    conns.append(sock.accept()[0])  # accepts and never answers
"""
T_SPECIAL_IDS = """\
import pytest

from shop.cart import parse_price


@pytest.mark.parametrize(
    "text,expected",
    [("$1", 1.0), ("€2,50", 2.5), ("3 USD", 3.0), ("a/b", 0.0)],
    ids=["dollar", "euro-€", "suffix USD", "path/like"],
)
def test_parse(text, expected):
    assert parse_price(text) == expected
"""
T_UNEXPECTED_SUCCESS = """\
import unittest

from shop.cart import total


class KnownBugs(unittest.TestCase):
    @unittest.expectedFailure
    def test_rounding_bug(self):
        self.assertEqual(total([0.1, 0.2]), 0.3)

    def test_plain(self):
        self.assertEqual(total([1.0]), 1.0)
"""
T_SUBTESTS = """\
from shop.cart import parse_price


def test_prices(subtests):
    for text, expected in [("$1", 1.0), ("4,50", 4.5), ("2", 2.0), ("x", 0.0)]:
        with subtests.test(msg="parse", text=text):
            assert parse_price(text) == expected
"""
T_SETUP_CLASS = """\
import json
from pathlib import Path

from shop.cart import total


class TestCatalogTotals:
    @classmethod
    def setup_class(cls):
        cls.catalog = json.loads(Path(__file__).with_name("catalog.json").read_text())

    def test_sum(self):
        assert total(self.catalog["prices"]) == 6.0

    def test_count(self):
        assert len(self.catalog["prices"]) == 3
"""
STRICT_TYPED = """\
def scale(values, factor):
    return [v * factor for v in values]


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def describe(n: int) -> str:
    return "items: " + n
"""

# Round 4 was measured once as held-out (class 70.7 %, top-3 89.7 %; 74.1 % after the round-3
# changes); after round 5 was written and measured, its misses were read and the rules
# changed for them, so it is "dev" now.
later(
    4,
    "dev",
    # ---- configuration
    Scenario(
        "r4-pytest-ini-minversion",
        "configuration",
        "pytest",
        project()
        | {"pytest.ini": "[pytest]\nminversion = 99.0\ntestpaths = tests\npythonpath = src\n"},
        r"requires pytest-99",
    ),
    Scenario(
        "r4-pytest-filterwarnings-bad",
        "configuration",
        "python -m pytest -q",
        project(extra='filterwarnings = ["error::shop.NotAWarning"]\n'),
        r"^ERROR: while parsing|NotAWarning|^\s*This error occurred",
    ),
    Scenario(
        "r4-flake8-setup-cfg-value",
        "configuration",
        "flake8 src",
        lint_project() | {"setup.cfg": "[flake8]\nmax-line-length = long\nexclude = .git\n"},
        r"^ValueError: |invalid literal|max-line-length",
    ),
    Scenario(
        "r4-tox-ini-broken",
        "configuration",
        "tox -e py312",
        project() | {"tox.ini": "[tox\nenvlist = py312\n\n[testenv]\ncommands = pytest\n"},
        r"Error|error",
    ),
    pytest_case(
        "r4-conftest-env-keyerror",
        "configuration",
        "pytest -q",
        project()
        | {
            "tests/conftest.py": 'import os\n\nimport pytest\n\nDATABASE_URL = os.environ["SHOP_DATABASE_URL"]\n\n\n@pytest.fixture\ndef db_url():\n    return DATABASE_URL\n'
        },
        [],
        error=r"^ImportError while loading conftest|^E?\s*KeyError: 'SHOP_DATABASE_URL'",
        first=None,
        note="settings read at import of conftest.py; the workflow does not set the variable",
    ),
    Scenario(
        "r4-settings-toml-invalid",
        "configuration",
        "python -m shop.settings",
        project(
            src={
                "src/shop/settings.py": 'import tomllib\nfrom pathlib import Path\n\nSETTINGS = tomllib.loads(Path("config/shop.toml").read_text())\n\nif __name__ == "__main__":\n    print("settings ok:", sorted(SETTINGS))\n'
            }
        )
        | {"config/shop.toml": '[shop]\ncurrency = "EUR"\nmax_items 40\n'},
        r"^tomllib\.TOMLDecodeError: ",
        env={"PYTHONPATH": "src"},
    ),
    Scenario(
        "r4-pre-commit-bad-yaml",
        "configuration",
        "pre-commit run --all-files",
        project()
        | {
            ".pre-commit-config.yaml": "repos:\n  - repo: local\n    hooks:\n      - id: ruff\n        name: ruff\n        entry: ruff check\n       language: system\n"
        },
        r"InvalidConfigError|while parsing|expected <block end>|^=+> ",
        git_add=True,
        venv="gates",
    ),
    Scenario(
        "r4-build-requires-python-invalid",
        "configuration",
        "python -m build --sdist",
        project()
        | {
            "pyproject.toml": PYPROJECT.format(extra="")
            .replace('">=3.9"', '">=3.9 <4"')
            .replace(
                "[project]",
                '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n\n[project]',
            )
        },
        r"configuration error: |invalid pyproject|requires-python|InvalidSpecifier",
        label_alt="build",
        note="a malformed requires-python specifier in pyproject.toml (no comma)",
    ),
    Scenario(
        "r4-pip-requirements-file-missing",
        "configuration",
        "python -m pip install -r requirements.txt -r requirements-dev.txt",
        project() | {"requirements.txt": "pytest\n"},
        r"^ERROR: Could not open requirements file",
        label_alt="dependency",
        note="the workflow names a requirements file the repository does not have",
    ),
    Scenario(
        "r4-git-identity",
        "configuration",
        'echo "tagging release"\ngit add -A\ngit commit -q -m "release 0.1.0"',
        project(),
        r"Author identity unknown|Please tell me who you are|unable to auto-detect email|^fatal: ",
        env={"GIT_CONFIG_NOSYSTEM": "1", "EMAIL": ""},
        label_alt="environment",
        note="git has no user.name/user.email on the runner; the workflow must set them",
    ),
    Scenario(
        "r4-mypy-config-bad",
        "configuration",
        "mypy src",
        project(extra='\n[tool.mypy]\npython_version = "2.7"\nstrict = true\n'),
        r"python_version|is not supported|error",
    ),
    Scenario(
        "r4-pydantic-settings-list-json",
        "configuration",
        "python -c 'from shop.config import settings; print(settings)'",
        project(
            src={
                "src/shop/config.py": "from pydantic_settings import BaseSettings\n\n\nclass Settings(BaseSettings):\n    allowed_hosts: list[str] = []\n    debug: bool = False\n\n\nsettings = Settings()\n"
            }
        ),
        r"^pydantic_settings\.exceptions\.SettingsError: ",
        env={"PYTHONPATH": "src", "ALLOWED_HOSTS": "shop.example.com,api.example.com"},
        note="a list setting given as a comma list; pydantic-settings wants JSON",
    ),
    # ---- environment
    Scenario(
        "r4-make-tool-missing",
        "environment",
        "make docs",
        project() | {"Makefile": "docs:\n\tsphinx-build -b html docs docs/_build\n"},
        r"No such file or directory|Error 127|not found",
    ),
    Scenario(
        "r4-cd-missing-dir",
        "environment",
        "cd services/api\npip install -e .",
        project(),
        r"No such file or directory",
        label_alt="configuration",
        note="the step runs in a directory the checkout does not have (wrong working directory)",
    ),
    pytest_case(
        "r4-locale-ascii-decode",
        "environment",
        "pytest -q",
        project(
            test_module("""\
        from pathlib import Path


        def test_menu_names():
            names = Path(__file__).with_name("menu.txt").read_text().splitlines()
            assert "crème brûlée" in names
        """)
        )
        | {"tests/menu.txt": "café\ncrème brûlée\n"},
        ["tests/test_service.py::test_menu_names"],
        env={"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"},
        label_alt="test",
        note="the job's locale is C (ASCII); the test reads a file without an encoding",
    ),
    Scenario(
        "r4-ioencoding-ascii",
        "environment",
        "python scripts/report.py",
        project()
        | {
            "scripts/report.py": 'for name in ["café", "naïve", "über"]:\n    print("menu item:", name)\n'
        },
        r"^UnicodeEncodeError: ",
        env={"PYTHONIOENCODING": "ascii"},
        note="the runner's output encoding is ASCII (PYTHONIOENCODING set by the job)",
    ),
    Scenario(
        "r4-permission-denied-cache",
        "environment",
        "python -m shop.warm_cache",
        project(
            src={
                "src/shop/warm_cache.py": 'import os\nfrom pathlib import Path\n\ncache = Path(os.environ.get("SHOP_CACHE_DIR", ".cache"))\ncache.mkdir(parents=True, exist_ok=True)\n(cache / "prices.json").write_text("{}")\nprint("cache warmed in", cache)\n'
            }
        ),
        r"^PermissionError: ",
        env={"PYTHONPATH": "src", "SHOP_CACHE_DIR": "/sys/shop-cache"},
        note="the cache directory is not writable on the machine",
    ),
    Scenario(
        "r4-pkg-config-missing",
        "environment",
        "pkg-config --cflags --libs cairo\npip install pycairo",
        project(),
        r"was not found in the pkg-config search path|No package 'cairo' found",
        label_alt="build",
        note="a system library's development files are not installed",
    ),
    Scenario(
        "r4-shebang-python2",
        "environment",
        "./scripts/release-notes.py",
        project() | {"scripts/release-notes.py": '#!/usr/bin/env python2\nprint "notes"\n'},
        r"No such file or directory",
        before=["chmod +x scripts/release-notes.py"],
    ),
    Scenario(
        "r4-gcc-system-header",
        "environment",
        "gcc -c -o build/draw.o csrc/draw.c",
        project()
        | {
            "csrc/draw.c": "#include <cairo.h>\n\nint shop_surface_ok(cairo_surface_t *s) {\n    return cairo_surface_status(s) == CAIRO_STATUS_SUCCESS;\n}\n",
            "build/.keep": "",
        },
        CC_ERROR,
        label_alt="build",
        note="a system library's header (libcairo2-dev) is not installed",
    ),
    Scenario(
        "r4-ulimit-files",
        "environment",
        "ulimit -n 64\npython -m shop.batch",
        project(
            src={
                "src/shop/batch.py": 'import tempfile\n\nhandles = [tempfile.TemporaryFile() for _ in range(200)]\nprint("opened", len(handles))\n'
            }
        ),
        r"^OSError: \[Errno 24\]",
        env={"PYTHONPATH": "src"},
        label_alt="infrastructure",
        note="the job's open-file limit is too low for the batch",
    ),
    # ---- dependency
    Scenario(
        "r4-uv-compile-conflict",
        "dependency",
        "uv pip compile requirements.in -o requirements.txt",
        project() | {"requirements.in": "pytest==8.3.3\npluggy<1.0\n"},
        r"^\s*(?:×|x|error:) No solution found|^\s+(?:╰─▶|cause:) Because",
    ),
    Scenario(
        "r4-uv-constraints",
        "dependency",
        "uv pip install --python python -r requirements.txt -c constraints.txt",
        project() | {"requirements.txt": "pytest>=8\n", "constraints.txt": "pluggy==0.13.1\n"},
        r"^\s*(?:×|x|error:) No solution found|^\s+(?:╰─▶|cause:) Because",
    ),
    Scenario(
        "r4-pip-extra-missing-version",
        "dependency",
        "python -m pip install -e '.[dev]'",
        project()
        | {
            "pyproject.toml": PYPROJECT.format(extra="").replace(
                'requires-python = ">=3.9"',
                'requires-python = ">=3.9"\n\n[project.optional-dependencies]\ndev = ["pytest>=8", "attrs==99.1.0"]',
            )
        },
        PIP_NOT_FOUND,
        note="an extra of the project pins a version that does not exist",
    ),
    pytest_case(
        "r4-optional-dep-import",
        "dependency",
        "pytest -q",
        project(
            test_module("""\
        from shop.fast import dumps


        def test_dumps():
            assert dumps({"a": 1}) == b'{"a":1}'
        """),
            src={
                "src/shop/fast.py": "try:\n    import orjson\nexcept ImportError as exc:\n    raise ImportError(\"shop.fast needs the optional dependency orjson: pip install 'shop[fast]'\") from exc\n\n\ndef dumps(obj):\n    return orjson.dumps(obj)\n"
            },
        ),
        ["tests/test_service.py"],
        note="an optional dependency (an extra) is not installed",
    ),
    pytest_case(
        "r4-package-not-installed",
        "dependency",
        "pytest -q",
        project(
            test_module("""\
        import shop


        def test_version():
            assert shop.__version__
        """),
            src={
                "src/shop/__init__.py": 'from importlib.metadata import version\n\n__version__ = version("shop")\n'
            },
        ),
        ["tests/test_service.py"],
        error=r"^E\s+importlib\.metadata\.PackageNotFoundError|" + SUMMARY,
        first=None,
        label_alt="environment",
        note="the project itself is not installed (no `pip install -e .`): its metadata is missing",
    ),
    Scenario(
        "r4-npm-ci-no-lock",
        "dependency",
        "npm ci --no-audit --no-fund",
        project()
        | {
            "package.json": '{"name": "shop-web", "version": "1.0.0", "devDependencies": {"prettier": "^3.0.0"}}\n'
        },
        r"^npm (?:ERR!|error) .*(?:package-lock|npm-shrinkwrap|can only install)",
        label_alt="configuration",
        note="npm ci without a lockfile",
    ),
    # ---- network
    pytest_case(
        "r4-pytest-tls-self-signed",
        "network",
        "pytest -q",
        project(
            test_module("""\
        import http.server
        import ssl
        import threading
        import urllib.request

        import pytest


        @pytest.fixture(scope="module")
        def api():
            server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain("cert.pem", "key.pem")
            server.socket = context.wrap_socket(server.socket, server_side=True)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            yield f"https://localhost:{server.server_address[1]}"
            server.shutdown()


        def test_prices_endpoint(api):
            with urllib.request.urlopen(api + "/", timeout=5) as response:
                assert response.status == 200
        """)
        ),
        ["tests/test_service.py::test_prices_endpoint"],
        before=[MAKE_CERT],
        note="a TLS server with a self-signed certificate (a proxy that intercepts TLS, a private API)",
    ),
    Scenario(
        "r4-curl-tls",
        "network",
        "python scripts/serve_tls.py 8443 >/dev/null 2>&1 &\ntrap 'kill $!' EXIT\nsleep 1\ncurl -fsS https://localhost:8443/ -o index.html",
        project() | {"scripts/serve_tls.py": TLS_SERVER},
        r"^curl: \(\d+\) ",
        before=[MAKE_CERT],
    ),
    Scenario(
        "r4-pip-tls-index",
        "network",
        "python scripts/serve_tls.py 8444 >/dev/null 2>&1 &\ntrap 'kill $!' EXIT\nsleep 1\npython -m pip install --retries 0 --index-url https://localhost:8444/simple shoplib-private",
        project() | {"scripts/serve_tls.py": TLS_SERVER},
        r"SSLError|CERTIFICATE_VERIFY_FAILED|^ERROR: (?:Could not find a version|No matching distribution)",
        before=[MAKE_CERT],
    ),
    Scenario(
        "r4-pip-proxy-refused",
        "network",
        "python -m pip install --proxy http://127.0.0.1:3128 --retries 1 --timeout 3 'attrs==25.4.0'",
        project(),
        r"ProxyError|Cannot connect to proxy|^ERROR: (?:Could not find a version|No matching distribution)",
        note="the job's HTTP proxy is not listening",
    ),
    Scenario(
        "r4-uv-index-dns",
        "network",
        "uv pip install --python python --index-url https://pypi.corp.invalid/simple shoplib-private",
        project(),
        r"^\s*(?:×|x|error:) |dns error|failed to lookup|Could not connect|Failed to fetch",
        env={"UV_HTTP_RETRIES": "0"},
    ),
    Scenario(
        "r4-script-read-timeout",
        "network",
        "python scripts/silent_server.py 8455 >/dev/null 2>&1 &\ntrap 'kill $!' EXIT\nsleep 1\npython scripts/fetch_stock.py",
        project()
        | {
            "scripts/silent_server.py": SILENT_SERVER,
            "scripts/fetch_stock.py": 'import urllib.request\n\nprint("fetching stock levels")\nprint(urllib.request.urlopen("http://127.0.0.1:8455/stock", timeout=2).read())\n',
        },
        r"^(?:TimeoutError|socket\.timeout|urllib\.error\.URLError): ",
        label_alt="timeout",
        note="the server accepts the connection and never answers: a read timeout",
    ),
    pytest_case(
        "r4-pytest-smtp-dns",
        "network",
        "pytest -v",
        project(
            test_module("""\
        import smtplib


        def send_receipt(to):
            with smtplib.SMTP("smtp.mail.invalid", 587, timeout=5) as smtp:
                smtp.sendmail("shop@example.com", [to], "Subject: receipt\\n\\nthanks")


        def test_receipt_is_sent():
            send_receipt("buyer@example.com")
        """),
            passing=9,
        ),
        ["tests/test_service.py::test_receipt_is_sent"],
    ),
    # ---- timeout
    Scenario(
        "r4-timeout-sigint-pytest",
        "timeout",
        "timeout -s INT 4 pytest -v",
        project(test_module(SLOW)),
        r"^!+ KeyboardInterrupt !+$|^\S+\.py:\d+: KeyboardInterrupt$",
        runner_error=True,
        note="GNU timeout sends SIGINT: pytest prints its interrupted summary; exit 124",
    ),
    pytest_case(
        "r4-timeout-in-fixture",
        "timeout",
        "pytest --timeout=2",
        project(
            test_module("""\
        import time

        import pytest


        @pytest.fixture
        def warehouse():
            time.sleep(20)  # waits for a container that never comes up
            return {}


        def test_stock(warehouse):
            assert warehouse == {}
        """)
        ),
        ["tests/test_service.py::test_stock"],
        error=r"^E\s+Failed: Timeout|^\+{3,} Timeout \+{3,}|" + SUMMARY,
        first=None,
        venv="pytest8",
    ),
    pytest_case(
        "r4-session-timeout",
        "timeout",
        "pytest -q --session-timeout=3",
        project(
            test_module("""\
        import time

        import pytest


        @pytest.mark.parametrize("n", range(6))
        def test_slow_sync(n):
            time.sleep(1)
        """)
        ),
        [],
        error=r"[Tt]imeout|" + SUMMARY,
        first=None,
    ),
    Scenario(
        "r4-timeout-hanging-script",
        "timeout",
        "python scripts/silent_server.py 8456 >/dev/null 2>&1 &\ntrap 'kill $!' EXIT\nsleep 1\necho 'waiting for the worker to report ready'\ntimeout 4 python -c 'import socket; s = socket.create_connection((\"127.0.0.1\", 8456)); s.recv(1)'",
        project() | {"scripts/silent_server.py": SILENT_SERVER},
        r"(?!)",
        runner_error=True,
        note="a step hangs waiting on a worker; GNU timeout ends it (exit 124)",
    ),
    # ---- infrastructure
    pytest_case(
        "r4-junit-disk-full",
        "infrastructure",
        "pytest -q --junitxml=/dev/full",
        project(),
        [],
        error=r"No space left on device",
        first=None,
        note="the tests pass; writing the report fails with ENOSPC (/dev/full stands for a full disk)",
    ),
    # ---- lint
    Scenario(
        "r4-ruff-json",
        "lint",
        "ruff check --output-format=json src",
        lint_project(),
        r'^\s*"code": "[A-Z]+\d+"',
        note="ruff's JSON output: the `code` lines stand for the violations",
    ),
    Scenario(
        "r4-ruff-pylint-format",
        "lint",
        "ruff check --output-format=pylint .",
        lint_project(),
        r"^\S+\.py:\d+: \[[A-Z]+\d+\]",
    ),
    Scenario(
        "r4-ruff-fix-nonzero",
        "lint",
        "ruff check --fix --exit-non-zero-on-fix src",
        project(src={"src/shop/util.py": "import os\nimport sys\n\n\ndef f(x):\n    return x\n"}),
        r"^Found \d+ errors? \(\d+ fixed",
        note="ruff fixed everything and exits 1 so that the job fails on unfixed code in the repository",
    ),
    Scenario(
        "r4-pylint-json2",
        "lint",
        "pylint --output-format=json2 src/shop",
        lint_project(),
        r'^\s*"messageId": "[CRWEF]\d{4}"',
    ),
    Scenario(
        "r4-flake8-show-source",
        "lint",
        "flake8 --show-source --count --statistics src",
        lint_project(),
        FLAKE8,
        tolerated=["codespell src"],
        venv="tools",
        note="a continue-on-error spell check step before it (codespell not installed here: exit 127)",
    ),
    # ---- type
    Scenario(
        "r4-mypy-json",
        "type",
        "mypy --strict --output=json src",
        project(src={"src/shop/stats.py": STRICT_TYPED}),
        r'"severity": "error"',
    ),
    Scenario(
        "r4-pyright-outputjson",
        "type",
        "pyright --outputjson src",
        project(src={"src/shop/typed.py": TYPED_BAD}),
        r'^\s*"severity": "error"',
    ),
    Scenario(
        "r4-mypy-strict-tests",
        "type",
        "mypy --strict --show-error-codes --show-column-numbers src",
        project(src={"src/shop/stats.py": STRICT_TYPED}),
        MYPY,
        tolerated=["ruff check src"],
        note="a continue-on-error lint step fails before it (not the cause)",
    ),
    Scenario(
        "r4-pyright-warnings",
        "type",
        "pyright --warnings src",
        project(
            src={
                "src/shop/loose.py": "import os\n\n\ndef f(x: int) -> int:\n    y = x  # type: ignore\n    return x\n"
            }
        )
        | {
            "pyrightconfig.json": '{"reportUnnecessaryTypeIgnoreComment": "warning", "reportUnusedImport": "warning"}\n'
        },
        r"^\s+\S+\.py:\d+:\d+ - (?:error|warning): ",
        note="pyright fails on warnings (--warnings)",
    ),
    # ---- test
    pytest_case(
        "r4-pytest-x-special-ids",
        "test",
        "pytest -x -v",
        project(test_module(T_SPECIAL_IDS)),
        ["tests/test_service.py::test_parse[euro-\\u20ac]"],
    ),
    pytest_case(
        "r4-pytest-xdist-many",
        "test",
        "pytest -n 2 -q --dist loadfile",
        project(
            test_module(T_SPECIAL_IDS, "tests/test_parse.py")
            | test_module(T_ASSERT, "tests/test_pricing.py"),
            passing=30,
        ),
        [
            "tests/test_parse.py::test_parse[euro-\\u20ac]",
            "tests/test_parse.py::test_parse[suffix USD]",
            "tests/test_parse.py::test_parse[path/like]",
            "tests/test_pricing.py::test_total_discount",
        ],
    ),
    pytest_case(
        "r4-pytest-stepwise",
        "test",
        "pytest --sw -q",
        project(test_module(T_MULTI, "tests/test_totals.py")),
        [MULTI_FAILS[0]],
    ),
    Scenario(
        "r4-unittest-unexpected-success",
        "test",
        "python -m unittest -v tests.test_known",
        project(test_module(T_UNEXPECTED_SUCCESS, "tests/test_known.py")),
        r"unexpected success|^FAILED \(",
        env={"PYTHONPATH": "src"},
        failing_tests=["tests/test_known.py::KnownBugs::test_rounding_bug"],
        note="an expectedFailure test passes: unittest fails the run without a traceback",
    ),
    Scenario(
        "r4-pytest-doctest-glob",
        "test",
        "pytest --doctest-glob='*.md' README.md",
        project()
        | {
            "README.md": "# shop\n\n```python\n>>> from shop.cart import total\n>>> total([1.0, 2.0], discount=0.5)\n1.25\n\n```\n"
        },
        r"^Expected:$|^Got:$|^FAILED README\.md",
        failing_tests=["README.md::README.md"],
    ),
    pytest_case(
        "r4-pytest-subtests",
        "test",
        "pytest -q",
        project(test_module(T_SUBTESTS)),
        ["tests/test_service.py::test_prices"],
        error=r"^(?:SUB)?(?:FAILED|FAIL) \S+\.py|^E\s+\S",
        first=None,
        note="pytest 9's built-in subtests",
    ),
    pytest_case(
        "r4-pytest-setup-class",
        "test",
        "pytest -v",
        project(test_module(T_SETUP_CLASS, "tests/test_catalog.py"))
        | {"tests/catalog.json": '{"prices": [1.0, 2.0, 3.0],}\n'},
        [
            "tests/test_catalog.py::TestCatalogTotals::test_sum",
            "tests/test_catalog.py::TestCatalogTotals::test_count",
        ],
        note="setup_class raises (a malformed data file): both tests ERROR at setup",
    ),
    pytest_case(
        "r4-pytest8-count-style",
        "test",
        "pytest -o console_output_style=count -rfE",
        project(test_module(T_MULTI, "tests/test_totals.py"), passing=10),
        MULTI_FAILS,
        venv="pytest8",
        tolerated=["pip download --no-deps -d /tmp/never shop-private-sdk==1.0"],
        note="a continue-on-error step (a private package download) fails before the tests",
    ),
    pytest_case(
        "r4-pytest-then-always-steps",
        "test",
        "pytest -q --junitxml=reports/junit.xml",
        project(test_module(T_ASSERT, "tests/test_pricing.py")),
        ["tests/test_pricing.py::test_total_discount"],
        always=[
            "ls reports",
            "python -c \"import xml.dom.minidom as m; print(m.parse('reports/junit.xml').documentElement.getAttribute('failures') or 'see testsuite')\"",
        ],
        note="`if: always()` steps after the failing step print the report",
    ),
    Scenario(
        "r4-doctest-module-cli",
        "test",
        "python -m doctest -o ELLIPSIS src/shop/text.py",
        project(
            src={
                "src/shop/text.py": 'def slug(text):\n    """Lower-case words joined by dashes.\n\n    >>> slug("Big Sale")\n    \'big-sale\'\n    >>> slug("  Two  Spaces ")\n    \'two-spaces\'\n    """\n    return "-".join(text.lower().split(" "))\n'
            }
        ),
        r"^Failed example:|^\*\*\*Test Failed\*\*\*",
        failing_tests=[],
    ),
)


# ------------------------------------------------------------------------------- round 5
# Written after round 4 was measured and before any rule change for round 5, and measured
# only (held-out). Kinds no earlier round had, weighted to configuration, environment,
# network, dependency, timeout, infrastructure and build: config files read by the
# project's own code (JSON, YAML, INI, logging), tools refusing their configuration in
# their own words (mypy, tox, nox, pre-commit, npm, ruff, black, pylint, make), package
# managers (poetry, hatch, uv sync, npm engines), HTTP clients (requests, httpx, urllib,
# git over TLS, ssh, npm) against `.invalid` hosts and local servers that refuse a proxy,
# answer 503, hang up or never answer, the docker client without an engine, time limits
# met by other means than pytest-timeout, full devices, and builds of docs and packages.

PROXY_407 = """\
import socket
import sys

sock = socket.socket()
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("127.0.0.1", int(sys.argv[1])))
sock.listen(5)
while True:
    conn = sock.accept()[0]
    conn.recv(65536)
    conn.sendall(
        b"HTTP/1.1 407 Proxy Authentication Required\\r\\n"
        b'Proxy-Authenticate: Basic realm="corp"\\r\\nContent-Length: 0\\r\\nConnection: close\\r\\n\\r\\n'
    )
    conn.close()
"""
STATUS_503 = """\
import http.server
import sys


class Unavailable(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(503)
        self.send_header("Retry-After", "30")
        self.end_headers()
        self.wfile.write(b"upstream unavailable\\n")

    def log_message(self, *args):
        pass


http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Unavailable).serve_forever()
"""
HANG_UP = """\
import socket
import sys

sock = socket.socket()
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("127.0.0.1", int(sys.argv[1])))
sock.listen(5)
while True:
    sock.accept()[0].close()  # accepts, then hangs up without a word
"""
SETUPTOOLS_BACKEND = (
    '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n\n'
)
GIT_ID = {
    "GIT_AUTHOR_NAME": "ci",
    "GIT_AUTHOR_EMAIL": "ci@example.com",
    "GIT_COMMITTER_NAME": "ci",
    "GIT_COMMITTER_EMAIL": "ci@example.com",
}


def script(path: str, body: str) -> dict[str, str]:
    return {path: textwrap.dedent(body)}


later(
    5,
    "dev",  # held-out until stop 12: measured at 65.7 % and 78.6 %, then tuned on
    # ---- configuration
    Scenario(
        "r5-json-settings-decode",
        "configuration",
        "python -m shop.settings",
        project(
            src=script(
                "src/shop/settings.py",
                """\
                import json
                from pathlib import Path

                SETTINGS = json.loads(Path("config/settings.json").read_text())

                if __name__ == "__main__":
                    print("currency:", SETTINGS["currency"])
                """,
            )
        )
        | {"config/settings.json": '{\n  "currency": "EUR",\n  "max_items": 40,\n}\n'},
        r"^json\.decoder\.JSONDecodeError: ",
        env={"PYTHONPATH": "src"},
        note="a trailing comma in a JSON settings file the project reads at start-up",
    ),
    Scenario(
        "r5-yaml-config-scanner",
        "configuration",
        "python scripts/load_routes.py",
        project()
        | script(
            "scripts/load_routes.py",
            """\
            import yaml

            with open("config/routes.yaml") as fh:
                routes = yaml.safe_load(fh)
            print(len(routes), "routes")
            """,
        )
        | {
            "config/routes.yaml": "routes:\n  - path: /cart\n    handler: cart\n  - path: /pay\n\thandler: pay\n"
        },
        r"^yaml\.\w+\.\w+Error: ",
        venv="extras",
    ),
    Scenario(
        "r5-configparser-interpolation",
        "configuration",
        "python -m shop.pricing",
        project(
            src=script(
                "src/shop/pricing.py",
                """\
                import configparser

                config = configparser.ConfigParser()
                config.read("shop.ini")
                rate = config.get("pricing", "summer_discount")
                print("summer discount:", rate)
                """,
            )
        )
        | {"shop.ini": "[pricing]\nsummer_discount = 10%\ncurrency = EUR\n"},
        r"^configparser\.\w+Error: ",
        env={"PYTHONPATH": "src"},
    ),
    Scenario(
        "r5-logging-fileconfig",
        "configuration",
        "python -m shop.worker",
        project(
            src=script(
                "src/shop/worker.py",
                """\
                import logging.config

                logging.config.fileConfig("logging.ini")
                logging.getLogger("shop").info("worker started")
                """,
            )
        )
        | {
            "logging.ini": "[loggers]\nkeys = root\n\n[logger_root]\nlevel = INFO\nhandlers = console\n"
        },
        r"^KeyError: ",
        env={"PYTHONPATH": "src"},
        note="logging.ini has no [formatters]/[handlers] sections: fileConfig raises KeyError",
    ),
    Scenario(
        "r5-env-int-parse",
        "configuration",
        "python -m shop.server --check",
        project(
            src=script(
                "src/shop/server.py",
                """\
                import os

                WORKERS = int(os.environ.get("SHOP_WORKERS", "2"))

                if __name__ == "__main__":
                    print("workers:", WORKERS)
                """,
            )
        ),
        r"^ValueError: ",
        env={"PYTHONPATH": "src", "SHOP_WORKERS": "four"},
        note="the workflow sets SHOP_WORKERS to a word; the code wants an integer",
    ),
    Scenario(
        "r5-mypy-ini-plugin-missing",
        "configuration",
        "mypy src",
        project()
        | {"mypy.ini": "[mypy]\nplugins = shop_mypy_plugin\nwarn_unused_ignores = True\n"},
        r"shop_mypy_plugin|[Ee]rror",
        label_alt="dependency",
        note="mypy.ini names a plugin module that the job does not have",
    ),
    Scenario(
        "r5-tox-allowlist",
        "configuration",
        "tox -e py312",
        project()
        | {
            "tox.ini": "[tox]\nenvlist = py312\nskipsdist = true\n\n[testenv]\ncommands = make test\n",
            "Makefile": "test:\n\tpython -m pytest -q\n",
        },
        r"allowlist_externals|not allowed",
        note="tox 4 refuses a command from outside the env that allowlist_externals does not name",
    ),
    Scenario(
        "r5-pre-commit-no-config",
        "configuration",
        "pre-commit run --all-files --show-diff-on-failure",
        project(),
        r"No \.pre-commit-config\.yaml|\.pre-commit-config\.yaml",
        git_add=True,
        venv="gates",
    ),
    Scenario(
        "r5-nox-no-noxfile",
        "configuration",
        "nox -s tests",
        project(),
        r"noxfile|Noxfile",
        note="the workflow runs nox in a repository whose noxfile.py is elsewhere",
    ),
    Scenario(
        "r5-npm-missing-script",
        "configuration",
        "npm run lint",
        project()
        | {
            "package.json": '{"name": "shop-web", "version": "1.0.0", "scripts": {"build": "node scripts/build.js"}}\n'
        },
        r"^npm (?:ERR!|error) Missing script",
    ),
    Scenario(
        "r5-npm-package-json-parse",
        "configuration",
        "npm run build",
        project()
        | {
            "package.json": '{\n  "name": "shop-web",\n  "version": "1.0.0",\n  "scripts": {\n    "build": "node scripts/build.js",\n  }\n}\n'
        },
        r"^npm (?:ERR!|error) (?:code EJSONPARSE|JSON\.parse)",
    ),
    Scenario(
        "r5-curl-unset-url",
        "configuration",
        'echo "checking the staging API"\ncurl -fsS "$SHOP_API_URL/health"',
        project(),
        r"^curl: \(\d+\) ",
        note="SHOP_API_URL is a repository variable the workflow does not set: curl gets '/health'",
    ),
    Scenario(
        "r5-pylint-rcfile-missing",
        "configuration",
        "pylint --rcfile=config/pylintrc src/shop",
        lint_project(),
        r"pylintrc|rcfile|config file",
    ),
    Scenario(
        "r5-pip-cert-missing",
        "configuration",
        "python -m pip install --cert /etc/ssl/certs/corp-proxy-ca.pem 'attrs==25.4.0'",
        project(),
        r"TLS CA certificate bundle|corp-proxy-ca\.pem|^ERROR: ",
        label_alt="environment",
        note="the workflow names a corporate CA bundle this runner does not have",
    ),
    Scenario(
        "r5-git-describe-no-tags",
        "configuration",
        'VERSION=$(git describe --tags --abbrev=0)\necho "releasing $VERSION"',
        project(),
        r"^fatal: ",
        before=["git add -A && git commit -q -m 'initial'"],
        env=GIT_ID,
        label_alt="environment",
        note="actions/checkout fetches no tags by default (fetch-depth 1); the step needs them",
    ),
    Scenario(
        "r5-pytest-ini-bad-line",
        "configuration",
        "pytest -q",
        project() | {"pytest.ini": "[pytest]\ntestpaths = tests\npythonpath src\n"},
        r"pytest\.ini|unexpected line|ERROR",
    ),
    Scenario(
        "r5-black-bad-target",
        "configuration",
        "black --check src",
        project(extra='\n[tool.black]\ntarget-version = ["py27"]\n'),
        r"^Error: |target-version|py27",
    ),
    Scenario(
        "r5-ruff-unknown-select",
        "configuration",
        "ruff check --select SHOP001 src",
        lint_project(),
        r"^error: |SHOP001",
    ),
    # ---- environment
    Scenario(
        "r5-git-dubious-ownership",
        "environment",
        "git status --short",
        project(),
        r"dubious ownership|safe\.directory|^fatal: ",
        before=["chown -R 65534:65534 ."],
        label_alt="configuration",
        note="the checkout belongs to another user than the one running git (a container job)",
    ),
    Scenario(
        "r5-docker-no-daemon",
        "environment",
        "docker build -t shop:ci .",
        project() | {"Dockerfile": "FROM python:3.12-slim\nCOPY . /app\nRUN pip install /app\n"},
        r"Cannot connect to the Docker daemon|docker daemon|^ERROR: ",
        label_alt="infrastructure",
        note="the docker client is installed, the engine is not running on this runner",
    ),
    Scenario(
        "r5-zoneinfo-missing",
        "environment",
        "python -m shop.opening_hours",
        project(
            src=script(
                "src/shop/opening_hours.py",
                """\
                from datetime import datetime
                from zoneinfo import ZoneInfo

                print("now in Paris:", datetime.now(ZoneInfo("Europe/Paris")).isoformat())
                """,
            )
        ),
        r"^[\w.]*ZoneInfoNotFoundError: ",
        env={"PYTHONPATH": "src", "PYTHONTZPATH": "/usr/share/zoneinfo-missing"},
        label_alt="dependency",
        note="the runner image has no time zone data (and the tzdata package is not installed)",
    ),
    Scenario(
        "r5-locale-unsupported",
        "environment",
        "python -m shop.invoice",
        project(
            src=script(
                "src/shop/invoice.py",
                """\
                import locale

                locale.setlocale(locale.LC_ALL, "de_DE.UTF-8")
                print(locale.currency(1234.5, grouping=True))
                """,
            )
        ),
        r"^locale\.Error: ",
        env={"PYTHONPATH": "src"},
    ),
    Scenario(
        "r5-stdlib-tomllib-py39",
        "environment",
        "python -m shop.settings",
        project(
            src=script(
                "src/shop/settings.py",
                """\
                import tomllib
                from pathlib import Path

                SETTINGS = tomllib.loads(Path("pyproject.toml").read_text())
                print(SETTINGS["project"]["name"])
                """,
            )
        ),
        r"^ModuleNotFoundError: ",
        env={"PYTHONPATH": "src"},
        venv="py39",
        label_alt="dependency",
        note="the job's Python (3.9) predates tomllib (3.11): the matrix runs an interpreter the code does not support",
    ),
    pytest_case(
        "r5-pytest-missing-executable",
        "environment",
        "pytest -q",
        project(
            test_module("""\
        import subprocess


        def test_render_pdf(tmp_path):
            subprocess.run(["pandoc", "README.md", "-o", str(tmp_path / "out.pdf")], check=True)
            assert (tmp_path / "out.pdf").exists()
        """)
        ),
        ["tests/test_service.py::test_render_pdf"],
        note="a system tool the test shells out to is not installed on the runner",
    ),
    Scenario(
        "r5-script-missing-executable",
        "environment",
        "python scripts/optimise_images.py",
        project()
        | script(
            "scripts/optimise_images.py",
            """\
            import subprocess
            from pathlib import Path

            for png in sorted(Path("static").glob("*.png")):
                print("optimising", png)
                subprocess.check_call(["optipng", "-quiet", str(png)])
            """,
        )
        | {"static/logo.png": "not really a png\n"},
        r"^FileNotFoundError: ",
    ),
    Scenario(
        "r5-pre-commit-system-missing",
        "environment",
        "pre-commit run --all-files",
        project()
        | {
            ".pre-commit-config.yaml": "repos:\n  - repo: local\n    hooks:\n      - id: shopcheck\n        name: shop policy check\n        entry: shopcheck --strict\n        language: system\n        types: [python]\n"
        },
        r"Executable `\S+` not found|not found",
        git_add=True,
        venv="gates",
    ),
    Scenario(
        "r5-npm-engine-strict",
        "environment",
        "npm install --no-audit --no-fund",
        project()
        | {
            "package.json": '{"name": "shop-web", "version": "1.0.0", "engines": {"node": ">=99"}}\n',
            ".npmrc": "engine-strict=true\n",
        },
        r"^npm (?:ERR!|error) (?:code EBADENGINE|engine|notsup)",
        label_alt="configuration",
        note="the project requires a newer Node.js than the runner's",
    ),
    Scenario(
        "r5-git-lfs-missing",
        "environment",
        "git lfs pull",
        project() | {".gitattributes": "*.png filter=lfs diff=lfs merge=lfs -text\n"},
        r"is not a git command",
    ),
    # ---- network
    Scenario(
        "r5-requests-dns",
        "network",
        "python scripts/fetch_rates.py",
        project()
        | script(
            "scripts/fetch_rates.py",
            """\
            import requests

            print("fetching exchange rates")
            response = requests.get("https://rates.shop.invalid/v1/eur", timeout=5)
            response.raise_for_status()
            print(response.json())
            """,
        ),
        r"^requests\.exceptions\.\w+: ",
        venv="extras",
    ),
    pytest_case(
        "r5-httpx-pytest-dns",
        "network",
        "pytest -q",
        project(
            test_module("""\
        import httpx


        def test_payment_gateway_health():
            response = httpx.get("https://api.payments.invalid/health", timeout=5)
            assert response.status_code == 200
        """)
        ),
        ["tests/test_service.py::test_payment_gateway_health"],
        venv="extras",
    ),
    Scenario(
        "r5-pip-proxy-407",
        "network",
        "python scripts/proxy.py 3129 >/dev/null 2>&1 &\ntrap 'kill $!' EXIT\nsleep 1\npython -m pip install --proxy http://127.0.0.1:3129 --retries 1 --timeout 5 'attrs==25.4.0'",
        project() | {"scripts/proxy.py": PROXY_407},
        r"ProxyError|407|^ERROR: (?:Could not find a version|No matching distribution)",
        label_alt="configuration",
        note="the job's proxy asks for credentials the job does not give",
    ),
    Scenario(
        "r5-urllib-503",
        "network",
        "python scripts/status_server.py 8461 >/dev/null 2>&1 &\ntrap 'kill $!' EXIT\nsleep 1\npython scripts/sync_catalog.py",
        project()
        | {"scripts/status_server.py": STATUS_503}
        | script(
            "scripts/sync_catalog.py",
            """\
            import urllib.request

            print("syncing the catalog")
            with urllib.request.urlopen("http://127.0.0.1:8461/catalog.json", timeout=5) as r:
                print(r.read()[:80])
            """,
        ),
        r"^urllib\.error\.HTTPError: ",
        label_alt="infrastructure",
        note="the catalog service answers 503 (a local server stands in for it)",
    ),
    Scenario(
        "r5-pip-remote-disconnected",
        "network",
        "python scripts/hang_up.py 8462 >/dev/null 2>&1 &\ntrap 'kill $!' EXIT\nsleep 1\npython -m pip install --retries 1 --index-url http://127.0.0.1:8462/simple 'attrs==25.4.0'",
        project() | {"scripts/hang_up.py": HANG_UP},
        r"RemoteDisconnected|Connection aborted|^ERROR: (?:Could not find a version|No matching distribution)",
        note="the package mirror closes every connection without an answer",
    ),
    Scenario(
        "r5-git-tls-self-signed",
        "network",
        "python scripts/serve_tls.py 8463 >/dev/null 2>&1 &\ntrap 'kill $!' EXIT\nsleep 1\ngit clone https://localhost:8463/acme/pricing-data.git data",
        project() | {"scripts/serve_tls.py": TLS_SERVER},
        r"^fatal: |SSL certificate|certificate verification",
        before=[MAKE_CERT],
        note="a git server behind a TLS certificate the runner does not trust",
    ),
    Scenario(
        "r5-git-submodule-dns",
        "network",
        "git submodule update --init --depth 1",
        project()
        | {
            ".gitmodules": '[submodule "vendor/rates"]\n\tpath = vendor/rates\n\turl = https://git.corp.invalid/acme/rates.git\n'
        },
        r"^fatal: |Could not resolve host",
        before=[
            "git update-index --add --cacheinfo 160000,4f1c2a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39,vendor/rates && git add .gitmodules"
        ],
    ),
    Scenario(
        "r5-npm-fetch-timeout",
        "network",
        "python scripts/silent_server.py 8464 >/dev/null 2>&1 &\ntrap 'kill $!' EXIT\nsleep 1\nnpm install --no-audit --no-fund --registry http://127.0.0.1:8464/ --fetch-timeout=2000 --fetch-retries=0 left-pad",
        project()
        | {
            "scripts/silent_server.py": SILENT_SERVER,
            "package.json": '{"name": "shop-web", "version": "1.0.0"}\n',
        },
        r"^npm (?:ERR!|error) (?:code|network|errno)",
        label_alt="timeout",
        note="the registry mirror accepts connections and never answers",
    ),
    Scenario(
        "r5-git-low-speed",
        "network",
        "python scripts/silent_server.py 8465 >/dev/null 2>&1 &\ntrap 'kill $!' EXIT\nsleep 1\ngit -c http.lowSpeedLimit=1000 -c http.lowSpeedTime=3 clone http://127.0.0.1:8465/acme/assets.git assets",
        project() | {"scripts/silent_server.py": SILENT_SERVER},
        r"^fatal: |^error: ",
        label_alt="timeout",
        note="a git server that never answers: git gives up after its low-speed limit",
    ),
    Scenario(
        "r5-pip-read-timeout",
        "network",
        "python scripts/silent_server.py 8466 >/dev/null 2>&1 &\ntrap 'kill $!' EXIT\nsleep 1\npython -m pip install --retries 1 --timeout 3 --index-url http://127.0.0.1:8466/simple 'attrs==25.4.0'",
        project() | {"scripts/silent_server.py": SILENT_SERVER},
        r"ReadTimeout|[Rr]ead timed out|^ERROR: (?:Could not find a version|No matching distribution)",
        label_alt="timeout",
    ),
    Scenario(
        "r5-ssh-clone-dns",
        "network",
        "git clone git@github.corp.invalid:acme/pricing-rules.git rules",
        project(),
        r"Could not resolve hostname|^fatal: ",
        env={"GIT_SSH_COMMAND": "ssh -o BatchMode=yes -o StrictHostKeyChecking=no"},
    ),
    Scenario(
        "r5-socket-gaierror",
        "network",
        "python -m shop.wait_for_db",
        project(
            src=script(
                "src/shop/wait_for_db.py",
                """\
                import socket

                print("connecting to the database")
                socket.create_connection(("db.shop.invalid", 5432), timeout=5).close()
                print("database is up")
                """,
            )
        ),
        r"^socket\.gaierror: ",
        env={"PYTHONPATH": "src"},
    ),
    # ---- dependency
    Scenario(
        "r5-poetry-lock-stale",
        "dependency",
        "poetry install --no-root",
        project()
        | {
            "pyproject.toml": '[tool.poetry]\nname = "shop"\nversion = "0.1.0"\ndescription = ""\nauthors = ["ci <ci@example.com>"]\npackage-mode = false\n\n[tool.poetry.dependencies]\npython = ">=3.9"\n'
        },
        r"poetry\.lock|poetry lock|changed significantly",
        before=[
            "poetry lock",
            "printf 'attrs = \"^25.1\"\\n' >> pyproject.toml",
        ],
        venv="pm",
        label_alt="configuration",
        note="pyproject.toml gained a dependency; poetry.lock was not regenerated",
    ),
    Scenario(
        "r5-hatch-env-missing-version",
        "dependency",
        "hatch run test:pytest -q",
        project(extra='\n[tool.hatch.envs.test]\ndependencies = ["pytest", "attrs==99.1.0"]\n')
        | {
            "pyproject.toml": PYPROJECT.format(
                extra='\n[tool.hatch.envs.test]\ndependencies = ["pytest", "attrs==99.1.0"]\n'
            ).replace(
                "[project]",
                '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n[project]',
            )
        },
        r"No solution found|Because|attrs==99\.1\.0|^ERROR: |not found|Could not find",
        venv="pm",
    ),
    Scenario(
        "r5-pip-invalid-requirement",
        "dependency",
        "python -m pip install -r requirements.txt",
        project() | {"requirements.txt": "attrs>=23.1,,<26\npytest\n"},
        r"^ERROR: Invalid requirement",
        label_alt="configuration",
        note="a typo in a requirements file",
    ),
    Scenario(
        "r5-uv-sync-no-lock",
        "dependency",
        "uv sync --locked",
        project(),
        r"^error: |uv\.lock",
        env={"UV_PYTHON_DOWNLOADS": "never"},
        label_alt="configuration",
        note="the repository has no uv.lock; `--locked` refuses to create one",
    ),
    Scenario(
        "r5-node-cannot-find-package",
        "dependency",
        "node scripts/build.mjs",
        project()
        | {
            "scripts/build.mjs": "import * as esbuild from 'esbuild';\n\nawait esbuild.build({ entryPoints: ['web/app.js'], bundle: true, outfile: 'dist/app.js' });\n"
        },
        r"ERR_MODULE_NOT_FOUND|Cannot find (?:package|module)",
        note="the build script's dependency was never installed (no npm ci step)",
    ),
    Scenario(
        "r5-pytest-xdist-not-installed",
        "dependency",
        "python -m pytest -n auto",
        project(),
        r"unrecognized arguments|^ERROR: usage|error: ",
        venv="pytest7",
        label_alt="configuration",
        note="the workflow runs pytest with xdist's -n, but pytest-xdist is not installed",
    ),
    Scenario(
        "r5-nox-install-missing-version",
        "dependency",
        "nox -s tests",
        project()
        | {
            "noxfile.py": 'import nox\n\n\n@nox.session\ndef tests(session):\n    session.install("pytest", "attrs==99.1.0")\n    session.run("pytest", "-q")\n'
        },
        r"^ERROR: (?:Could not find a version|No matching distribution)|^nox > Command .* failed",
    ),
    Scenario(
        "r5-pip-build-requires-missing",
        "dependency",
        "python -m pip install .",
        project()
        | {
            "pyproject.toml": PYPROJECT.format(extra="").replace(
                "[project]",
                '[build-system]\nrequires = ["setuptools>=999"]\nbuild-backend = "setuptools.build_meta"\n\n[project]',
            )
        },
        r"^\s+ERROR: (?:Could not find a version|No matching distribution)|did not run successfully",
        label_alt="build",
        note="the build requirements pin a setuptools that does not exist",
    ),
    Scenario(
        "r5-pip-require-hashes-missing",
        "dependency",
        "python -m pip install --require-hashes -r requirements.txt",
        project() | {"requirements.txt": "attrs==25.4.0\n"},
        r"^ERROR: Hashes are required|^\s+attrs==",
        label_alt="configuration",
    ),
    pytest_case(
        "r5-pytest-mocker-fixture-missing",
        "dependency",
        "pytest -q",
        project(
            test_module("""\
        from shop.cart import total


        def test_total_uses_rounding(mocker):
            spy = mocker.spy(__builtins__, "round")
            total([1.0, 2.0])
            assert spy.call_count == 1
        """)
        ),
        ["tests/test_service.py::test_total_uses_rounding"],
        error=r"fixture 'mocker' not found|" + SUMMARY,
        first=None,
        label_alt="test",
        note="the test needs pytest-mock's fixture; the plugin is not installed",
    ),
    # ---- timeout
    Scenario(
        "r5-timeout-kill-after",
        "timeout",
        "echo 'running the import job'\ntimeout -k 2 3 python -c 'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)'",
        project(),
        r"(?!)",
        runner_error=True,
        label_alt="infrastructure",
        note="GNU timeout's TERM is ignored; its -k sends KILL (exit 137)",
    ),
    Scenario(
        "r5-subprocess-timeout-expired",
        "timeout",
        "python scripts/migrate.py",
        project()
        | script(
            "scripts/migrate.py",
            """\
            import subprocess
            import sys

            print("applying migrations")
            subprocess.run([sys.executable, "-c", "import time; time.sleep(60)"], timeout=3, check=True)
            """,
        ),
        r"^subprocess\.TimeoutExpired: ",
    ),
    pytest_case(
        "r5-asyncio-wait-for-test",
        "timeout",
        "pytest -q",
        project(
            test_module("""\
        import asyncio


        async def next_order(queue):
            return await queue.get()


        def test_order_arrives():
            async def main():
                queue = asyncio.Queue()
                return await asyncio.wait_for(next_order(queue), timeout=2)

            assert asyncio.run(main()) is not None
        """)
        ),
        ["tests/test_service.py::test_order_arrives"],
        label_alt="test",
        note="the test waits for a message that never comes; asyncio.wait_for gives up",
    ),
    Scenario(
        "r5-wait-for-port",
        "timeout",
        'for i in 1 2 3 4 5; do\n  python -c \'import socket; socket.create_connection(("127.0.0.1", 59321), timeout=1)\' 2>/dev/null && exit 0\n  echo "waiting for postgres ($i/5)"\n  sleep 1\ndone\necho "postgres did not become ready within 5 seconds" >&2\nexit 1',
        project(),
        r"did not become ready",
        label_alt="environment",
        note="the service container the tests need never starts listening",
    ),
    Scenario(
        "r5-tox-timeout-wrapped",
        "timeout",
        "timeout 8 tox -e py312",
        project(test_module(SLOW))
        | {
            "tox.ini": "[tox]\nenvlist = py312\nskipsdist = true\n\n[testenv]\ndeps =\nallowlist_externals = pytest\ncommands = pytest -v\nsetenv = PYTHONPATH = {toxinidir}/src\n"
        },
        r"(?!)",
        runner_error=True,
    ),
    Scenario(
        "r5-signal-alarm",
        "timeout",
        "python scripts/export_report.py",
        project()
        | script(
            "scripts/export_report.py",
            """\
            import signal
            import time

            signal.alarm(2)  # the export must finish within 2 seconds
            print("exporting the sales report")
            time.sleep(30)
            """,
        ),
        r"Alarm clock",
        runner_error=True,
    ),
    # ---- infrastructure
    Scenario(
        "r5-sigterm-cancel",
        "infrastructure",
        "echo 'deploying preview'\npython -c 'import os, signal, time; os.kill(os.getpid(), signal.SIGTERM); time.sleep(5)'",
        project(),
        r"(?!)",
        runner_error=True,
        label_alt="timeout",
        note="the process is ended by SIGTERM (exit 143), as when a job is cancelled",
    ),
    Scenario(
        "r5-tar-enospc",
        "infrastructure",
        "tar -cf /dev/full src tests",
        project(),
        r"No space left on device",
        note="archiving the build output to a full device (/dev/full stands for a full disk)",
    ),
    Scenario(
        "r5-python-write-enospc",
        "infrastructure",
        "python scripts/dump_fixtures.py",
        project()
        | script(
            "scripts/dump_fixtures.py",
            """\
            import json

            rows = [{"sku": f"SKU-{n:05d}", "price": n / 100} for n in range(20000)]
            with open("/dev/full", "w") as fh:
                json.dump(rows, fh)
            print("wrote", len(rows), "rows")
            """,
        ),
        r"No space left on device",
    ),
    Scenario(
        "r5-memoryerror-script",
        "infrastructure",
        "ulimit -v 600000\npython -m shop.load_catalog",
        project(
            src=script(
                "src/shop/load_catalog.py",
                """\
                print("loading the catalog into memory")
                catalog = bytearray(2 * 1024**3)
                print(len(catalog))
                """,
            )
        ),
        r"^MemoryError",
        env={"PYTHONPATH": "src"},
        label_alt="environment",
        note="the job's memory is too small for the data (ulimit -v stands for the runner's memory)",
    ),
    # ---- build
    Scenario(
        "r5-sphinx-warning-error",
        "build",
        "sphinx-build -W --keep-going -b html docs docs/_build",
        project()
        | {
            "docs/conf.py": 'project = "shop"\nextensions = []\n',
            "docs/index.rst": "Shop\n====\n\nSee :ref:`pricing-rules` for the discounts.\n\n.. toctree::\n\n   usage\n",
            "docs/usage.rst": "Usage\n=====\n\nInstall it.\n",
        },
        r"WARNING: |ERROR: |build finished with problems",
        venv="extras",
    ),
    Scenario(
        "r5-setuptools-flat-layout",
        "build",
        "python -m build --wheel",
        {
            "pyproject.toml": SETUPTOOLS_BACKEND + '[project]\nname = "shop"\nversion = "0.1.0"\n',
            "shop/__init__.py": "",
            "billing/__init__.py": "",
            "README.md": "# shop\n",
        },
        r"[Mm]ultiple top-level packages|^error: ",
        label_alt="configuration",
    ),
    Scenario(
        "r5-setup-readme-missing",
        "build",
        "python -m build --sdist",
        {
            "setup.py": 'from setuptools import setup\n\nsetup(name="shop", version="0.1.0", long_description=open("README.rst").read(), packages=["shop"])\n',
            "shop/__init__.py": "",
        },
        r"^FileNotFoundError: |^ERROR Backend",
    ),
    Scenario(
        "r5-gcc-werror",
        "build",
        "gcc -Wall -Werror -c -o build/fast.o csrc/fast.c",
        project()
        | {
            "csrc/fast.c": "int shop_sum(const int *xs, int n) {\n    int total = 0;\n    int unused;\n    for (int i = 0; i < n; i++) total += xs[i];\n    return total;\n}\n",
            "build/.keep": "",
        },
        CC_ERROR,
    ),
    Scenario(
        "r5-node-build-syntax",
        "build",
        "npm run build",
        project()
        | {
            "package.json": '{"name": "shop-web", "version": "1.0.0", "scripts": {"build": "node scripts/build.js"}}\n',
            "scripts/build.js": "const fs = require('fs');\n\nfunction build() {\n  fs.mkdirSync('dist', { recursive: true });\n  fs.writeFileSync('dist/app.js', 'console.log(1)';\n}\n\nbuild();\n",
        },
        r"^SyntaxError: ",
    ),
    Scenario(
        "r5-twine-check",
        "build",
        "twine check --strict dist/*",
        {
            "pyproject.toml": SETUPTOOLS_BACKEND
            + '[project]\nname = "shop"\nversion = "0.1.0"\nreadme = "README.rst"\n\n[tool.setuptools]\npackages = ["shop"]\n',
            "shop/__init__.py": "",
            "README.rst": "Shop\n====\n\n`a broken link <https://example.com\n\n.. unknown-directive::\n",
        },
        r"FAILED|ERROR|`long_description` has syntax errors",
        before=["python -m build -q"],
        venv="extras",
        label_alt="lint",
    ),
    Scenario(
        "r5-hatch-version-file-missing",
        "build",
        "python -m build --wheel",
        {
            "pyproject.toml": '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n[project]\nname = "shop"\ndynamic = ["version"]\n\n[tool.hatch.version]\npath = "src/shop/__about__.py"\n',
            "src/shop/__init__.py": "",
        },
        r"^OSError: |does not exist|^ERROR Backend",
        label_alt="configuration",
    ),
    Scenario(
        "r5-make-missing-separator",
        "build",
        "make dist",
        project() | {"Makefile": "dist:\n    python -m build\n"},
        r"\*\*\* missing separator",
        label_alt="configuration",
        note="a Makefile recipe indented with spaces",
    ),
    Scenario(
        "r5-poetry-build-readme-missing",
        "build",
        "poetry build",
        {
            "pyproject.toml": '[tool.poetry]\nname = "shop"\nversion = "0.1.0"\ndescription = ""\nauthors = ["ci <ci@example.com>"]\nreadme = "README.rst"\npackages = [{include = "shop"}]\n\n[build-system]\nrequires = ["poetry-core"]\nbuild-backend = "poetry.core.masonry.api"\n',
            "shop/__init__.py": "",
        },
        r"README\.rst|[Rr]eadme|Error|error",
        venv="pm",
        label_alt="configuration",
    ),
    # ---- test (a missing plugin's behaviour)
    pytest_case(
        "r5-pytest-async-unsupported",
        "test",
        "pytest -q",
        project(
            test_module("""\
        import asyncio

        from shop.cart import total


        async def test_total_async():
            await asyncio.sleep(0)
            assert total([1.0]) == 1.0
        """)
        ),
        ["tests/test_service.py::test_total_async"],
        error=r"async def functions are not natively supported|" + SUMMARY,
        first=None,
        label_alt="dependency",
        note="pytest 9 fails async tests without an async plugin (pytest-asyncio/anyio)",
    ),
)


# ------------------------------------------------------------------------------- round 6
# Written blind after round 5 was tuned on: neither the rules nor their documentation were
# read, and diagnose was not run on these logs; measured only (held-out). Weighted as real
# failed jobs of Python projects are, mostly tests: pytest in its output shapes (-q, -v, -ra,
# --tb=short/line/native, xdist, reruns, doctests, hypothesis, warnings as errors, coverage
# gate), unittest, pytest through tox and nox; then linters, checkers, packaging, and the
# runner's own endings (a cancelled, timed-out or lost job, stopped after `cut` seconds), the
# kernel's OOM killer (a memory cgroup), full and read-only file systems (tmpfs mounts).
# Wrapping varies too: matrix job names, several steps before, `continue-on-error` steps,
# workflow-command annotations, passing output that says "error" or "failed".

ORDERS = """\
from shop.cart import total


def order_summary(items, currency="EUR"):
    return {
        "count": len(items),
        "total": total([item["price"] for item in items]),
        "currency": currency,
    }


def shipping(weight_kg):
    if weight_kg <= 0:
        raise ValueError("weight must be positive")
    return 4.9 if weight_kg < 2 else 4.9 + (weight_kg - 2) * 1.5
"""
TEXT = """\
import re


def slugify(text):
    return "-".join(text.lower().split())


def strip_tags(html):
    return re.sub(r"<[^>]+>", "", html)
"""
T_ERRORS = """\
import pytest

from shop.orders import shipping


def test_error_for_zero_weight():
    with pytest.raises(ValueError, match="weight must be positive"):
        shipping(0)


def test_error_message_for_negative_weight():
    with pytest.raises(ValueError):
        shipping(-1)


def test_light_parcel():
    assert shipping(1) == 4.9
"""
R6_SRC = {"src/shop/orders.py": ORDERS, "src/shop/text.py": TEXT}


def r6project(tests: dict[str, str] | None = None, **kw: object) -> dict[str, str]:
    src = dict(R6_SRC)
    src.update(kw.pop("src", None) or {})  # type: ignore[arg-type]
    return project(tests, src=src, **kw)  # type: ignore[arg-type]


MATRIX = "tests (ubuntu-latest, 3.12)"
PIP_DEV = "python -m pip install pytest pytest-xdist pytest-cov"

R6_TEST = [
    pytest_case(
        "r6-pytest-q-dict-diff",
        "test",
        "python -m pytest -q tests/test_orders.py",
        r6project(
            test_module(
                """\
            from shop.orders import order_summary


            def test_summary():
                items = [{"price": 2.5}, {"price": 4.0}]
                assert order_summary(items) == {"count": 2, "total": 6.5, "currency": "USD"}


            def test_empty_order():
                assert order_summary([]) == {"count": 0, "total": 0, "currency": "EUR"}
            """,
                "tests/test_orders.py",
            )
            | {"tests/test_errors.py": T_ERRORS}
        ),
        ["tests/test_orders.py::test_summary"],
        before=[PIP_DEV, "python -m pytest -v tests/test_errors.py"],
        note="the step before passes; its test names say 'error'",
    ),
    pytest_case(
        "r6-pytest-v-matrix-brackets",
        "test",
        "pytest -v",
        r6project(
            test_module(
                """\
            import pytest

            from shop.text import slugify


            @pytest.mark.parametrize(
                "text,expected",
                [
                    ("Hello World", "hello-world"),
                    ("  Trailing  ", "trailing"),
                    ("Hello, World!", "hello-world"),
                    ("a/b [x]", "a-b-x"),
                ],
            )
            def test_slugify(text, expected):
                assert slugify(text) == expected
            """,
                "tests/test_text.py",
            )
        ),
        [
            "tests/test_text.py::test_slugify[Hello, World!-hello-world]",
            "tests/test_text.py::test_slugify[a/b [x]-a-b-x]",
        ],
        job=MATRIX,
    ),
    pytest_case(
        "r6-pytest-ra-skips-xfails",
        "test",
        "pytest -ra",
        r6project(
            test_module(
                """\
            import sys

            import pytest

            from shop.orders import shipping


            @pytest.mark.skipif(sys.platform == "linux", reason="needs the Windows print spooler")
            def test_print_label():
                pass


            @pytest.mark.xfail(reason="heavy parcels are not priced yet")
            def test_heavy_parcel():
                assert shipping(40) == 99.0


            def test_two_kilos():
                assert shipping(2) == 6.4


            @pytest.mark.skip(reason="flaky on CI, see #231")
            def test_tracking_number():
                pass
            """,
                "tests/test_shipping.py",
            )
        ),
        ["tests/test_shipping.py::test_two_kilos"],
    ),
    pytest_case(
        "r6-pytest-tb-short",
        "test",
        "pytest --tb=short -q",
        r6project(
            test_module(
                """\
            from shop.text import strip_tags


            def test_strip_simple():
                assert strip_tags("<b>sale</b>") == "sale"


            def test_strip_keeps_entities():
                assert strip_tags("<p>5 &lt; 6</p>") == "5 < 6"


            def test_strip_comment():
                assert strip_tags("a<!-- x > y -->b") == "ab"
            """,
                "tests/test_html.py",
            )
        ),
        ["tests/test_html.py::test_strip_keeps_entities", "tests/test_html.py::test_strip_comment"],
    ),
    pytest_case(
        "r6-pytest-tb-line",
        "test",
        "pytest --tb=line -q",
        r6project(
            test_module(
                """\
            from shop.cart import parse_price, total


            def test_parse_euro():
                assert parse_price("4.50 EUR") == 4.5


            def test_total_three():
                assert total([0.1, 0.2, 0.3]) == 0.61
            """,
                "tests/test_prices.py",
            )
        ),
        ["tests/test_prices.py::test_parse_euro", "tests/test_prices.py::test_total_three"],
        error=SUMMARY + r"|^/\S+\.py:\d+: ",
    ),
    pytest_case(
        "r6-pytest-tb-native",
        "test",
        "pytest --tb=native",
        r6project(
            test_module(
                """\
            from shop.cart import apply_coupon


            def test_coupon_ten():
                assert apply_coupon([10.0, 10.0], "TEN") == 18.0


            def test_coupon_lowercase():
                assert apply_coupon([10.0], "half") == 5.0
            """,
                "tests/test_coupons.py",
            )
        ),
        ["tests/test_coupons.py::test_coupon_lowercase"],
        error=SUMMARY + r"|^KeyError: ",
        first=None,
    ),
    pytest_case(
        "r6-pytest-xdist-two-workers",
        "test",
        "pytest -n 2 -q",
        r6project(
            test_module(
                """\
            import pytest

            from shop.orders import shipping


            @pytest.mark.parametrize("kg", [0.5, 1, 1.5, 2, 3, 5])
            def test_shipping_positive(kg):
                assert shipping(kg) > 0


            def test_shipping_three_kilos():
                assert shipping(3) == 6.0


            def test_shipping_rejects_none():
                with pytest.raises(ValueError):
                    shipping(None)
            """,
                "tests/test_shipping.py",
            ),
            passing=12,
        ),
        [
            "tests/test_shipping.py::test_shipping_three_kilos",
            "tests/test_shipping.py::test_shipping_rejects_none",
        ],
        before=[PIP_DEV],
    ),
    pytest_case(
        "r6-pytest-fixture-setup-error",
        "test",
        "pytest -q",
        r6project(
            test_module(
                """\
            import json
            from pathlib import Path

            import pytest

            from shop.orders import order_summary


            @pytest.fixture
            def sample_order():
                return json.loads(Path(__file__).with_name("data").joinpath("order.json").read_text())


            def test_sample_order_total(sample_order):
                assert order_summary(sample_order["items"])["total"] == 12.0


            def test_sample_order_count(sample_order):
                assert order_summary(sample_order["items"])["count"] == 3
            """,
                "tests/test_samples.py",
            )
        ),
        [
            "tests/test_samples.py::test_sample_order_total",
            "tests/test_samples.py::test_sample_order_count",
        ],
        note="the fixture's data file was not committed: ERROR at setup",
    ),
    pytest_case(
        "r6-pytest-teardown-error",
        "test",
        "pytest -v",
        r6project(
            test_module(
                """\
            import os

            import pytest


            @pytest.fixture
            def export_dir(tmp_path):
                path = tmp_path / "exports"
                path.mkdir()
                yield path
                os.rmdir(path)  # the directory must be empty again


            def test_export_csv(export_dir):
                (export_dir / "orders.csv").write_text("id,total\\n1,4.5\\n")
                assert (export_dir / "orders.csv").exists()
            """,
                "tests/test_export.py",
            )
        ),
        ["tests/test_export.py::test_export_csv"],
        note="the test passes; its fixture's teardown fails (ERROR at teardown)",
    ),
    pytest_case(
        "r6-pytest-collect-importerror",
        "test",
        "pytest",
        r6project(
            test_module(
                """\
            from shop.orders import order_summary, refund


            def test_refund():
                assert refund(order_summary([{"price": 3.0}]))["total"] == -3.0
            """,
                "tests/test_refunds.py",
            )
        ),
        ["tests/test_refunds.py"],
        note="the test imports a function the change renamed (collection error)",
    ),
    pytest_case(
        "r6-pytest-collect-syntax",
        "test",
        "pytest -q",
        r6project(
            test_module(
                """\
            from shop.orders import shipping


            def test_shipping_table():
                table = {1: 4.9, 2: 4.9, 4: 7.9
                for kg, price in table.items():
                    assert shipping(kg) == price
            """,
                "tests/test_table.py",
            )
        ),
        ["tests/test_table.py"],
        error=r"^E\s+SyntaxError: |" + SUMMARY,
        first=None,
    ),
    pytest_case(
        "r6-pytest-hypothesis",
        "test",
        "pytest -q tests/test_properties.py",
        r6project(
            test_module(
                """\
            from hypothesis import given
            from hypothesis import strategies as st

            from shop.cart import total


            @given(st.floats(min_value=0, max_value=1000, allow_nan=False))
            def test_total_of_one_is_the_price(price):
                assert total([price]) == price
            """,
                "tests/test_properties.py",
            )
        ),
        ["tests/test_properties.py::test_total_of_one_is_the_price"],
        error=SUMMARY + r"|^E?\s*Falsifying example",
        before=["python -m pip install hypothesis"],
    ),
    pytest_case(
        "r6-pytest-doctest-modules",
        "test",
        "pytest --doctest-modules src -q",
        r6project(
            src={
                "src/shop/money.py": textwrap.dedent('''\
                def format_price(value, currency="EUR"):
                    """Format a price for the receipt.

                    >>> format_price(4.5)
                    '4.50 EUR'
                    >>> format_price(1234.5, "USD")
                    '1,234.50 USD'
                    """
                    return f"{value:.2f} {currency}"
                ''')
            }
        ),
        ["src/shop/money.py::shop.money.format_price"],
        error=SUMMARY + r"|^\d{3} .*format_price\(1234\.5|DocTestFailure$",
        first=None,
    ),
    Scenario(
        "r6-unittest-discover",
        "test",
        "python -m unittest discover -s tests -t . -v",
        r6project(
            {
                "tests/test_basics.py": "",
                "tests/test_orders_unit.py": textwrap.dedent("""\
            import unittest

            from shop.orders import order_summary, shipping


            class OrderTests(unittest.TestCase):
                def test_count(self):
                    self.assertEqual(order_summary([{"price": 1.0}])["count"], 1)

                def test_currency_default(self):
                    self.assertEqual(order_summary([])["currency"], "USD")

                def test_shipping_table(self):
                    self.assertAlmostEqual(shipping(4), 7.9)
            """),
            }
        ),
        UNITTEST,
        env={"PYTHONPATH": "src"},
    ),
    Scenario(
        "r6-unittest-module-error",
        "test",
        "python -m unittest tests.test_receipts",
        r6project(
            {
                "tests/test_basics.py": "",
                "tests/test_receipts.py": textwrap.dedent("""\
            import unittest

            from shop.orders import order_summary


            class ReceiptTests(unittest.TestCase):
                def setUp(self):
                    self.order = order_summary([{"price": 2.0}, {"cost": 3.0}])

                def test_total(self):
                    self.assertEqual(self.order["total"], 5.0)
            """),
            }
        ),
        UNITTEST,
        env={"PYTHONPATH": "src"},
        note="an exception in setUp: ERROR, not FAIL",
    ),
    pytest_case(
        "r6-tox-pytest",
        "test",
        "tox -e py312",
        r6project(
            test_module(
                """\
            from shop.orders import shipping


            def test_five_kilos():
                assert shipping(5) == 9.5
            """,
                "tests/test_shipping.py",
            )
        )
        | {
            "tox.ini": "[tox]\nenvlist = py312, lint\nskipsdist = true\n\n[testenv]\ndeps = pytest\nsetenv = PYTHONPATH = {toxinidir}/src\ncommands = pytest -q {posargs}\n\n[testenv:lint]\ndeps = ruff\ncommands = ruff check src\n"
        },
        ["tests/test_shipping.py::test_five_kilos"],
        before=["python -m pip install tox"],
        job="tox (py312)",
    ),
    pytest_case(
        "r6-nox-pytest",
        "test",
        "nox -s tests",
        r6project(
            test_module(
                """\
            from shop.text import slugify


            def test_slug_unicode_dash():
                assert slugify("summer \\u2013 sale") == "summer-sale"
            """,
                "tests/test_text.py",
            )
        )
        | {"noxfile.py": NOXFILE},
        ["tests/test_text.py::test_slug_unicode_dash"],
    ),
    pytest_case(
        "r6-pytest-reruns-flaky",
        "test",
        "pytest -v --reruns 2",
        r6project(
            test_module(
                """\
            import time

            from shop.orders import order_summary


            def test_summary_is_fast():
                start = time.perf_counter()
                order_summary([{"price": 1.0}] * 1000)
                time.sleep(0.06)  # the cache warms up in the background
                assert time.perf_counter() - start < 0.05
            """,
                "tests/test_speed.py",
            )
        ),
        ["tests/test_speed.py::test_summary_is_fast"],
        note="a timing-dependent test, retried twice by pytest-rerunfailures, fails every time",
    ),
    pytest_case(
        "r6-pytest-timeout-one-test",
        "test",
        "pytest -q --timeout=3",
        r6project(
            test_module(
                """\
            import queue


            def test_worker_reports_done():
                results = queue.Queue()
                assert results.get(timeout=30) == "done"


            def test_queue_empty():
                assert queue.Queue().empty()
            """,
                "tests/test_worker.py",
            )
        ),
        ["tests/test_worker.py::test_worker_reports_done"],
        error=SUMMARY + r"|^E\s+Failed: Timeout",
        first=None,
        label_alt="timeout",
        note="pytest-timeout fails one test that waits forever; the session goes on",
    ),
    Scenario(
        "r6-pytest-cov-fail-under",
        "test",
        "pytest -q --cov=shop --cov-report=term-missing --cov-fail-under=90",
        r6project(),
        r"Coverage failure|^FAIL Required test coverage",
        before=[PIP_DEV],
        label_alt="configuration",
        note="every test passes; the coverage gate fails the job",
    ),
    pytest_case(
        "r6-pytest-warnings-as-errors",
        "test",
        "pytest -q",
        r6project(
            test_module(
                """\
            from shop.stamps import stamp


            def test_stamp_has_zone():
                assert stamp().endswith("Z")
            """,
                "tests/test_stamps.py",
            ),
            extra='filterwarnings = ["error"]\n',
            src={
                "src/shop/stamps.py": 'from datetime import datetime\n\n\ndef stamp():\n    return datetime.utcnow().isoformat() + "Z"\n'
            },
        ),
        ["tests/test_stamps.py::test_stamp_has_zone"],
        note="filterwarnings = error turns Python 3.12's DeprecationWarning into a failure",
    ),
    pytest_case(
        "r6-pytest-v-deep-keyerror",
        "test",
        "pytest -v tests/test_checkout.py",
        r6project(
            test_module(
                """\
            from shop.cart import apply_coupon


            def checkout(prices, coupon=None):
                return apply_coupon(prices, coupon) if coupon else sum(prices)


            def test_checkout_plain():
                assert checkout([1.0, 2.0]) == 3.0


            def test_checkout_black_friday():
                assert checkout([100.0], "BLACKFRIDAY") == 70.0
            """,
                "tests/test_checkout.py",
            )
        ),
        ["tests/test_checkout.py::test_checkout_black_friday"],
    ),
    pytest_case(
        "r6-pytest-approx",
        "test",
        "pytest -q",
        r6project(
            test_module(
                """\
            import pytest

            from shop.cart import total


            def test_third_off():
                assert total([9.99, 19.99], discount=0.15) == pytest.approx(25.49)
            """,
                "tests/test_discounts.py",
            )
        ),
        ["tests/test_discounts.py::test_third_off"],
    ),
    pytest_case(
        "r6-pytest-did-not-raise",
        "test",
        "pytest -q",
        r6project(
            test_module(
                """\
            import pytest

            from shop.cart import total


            def test_negative_discount_rejected():
                with pytest.raises(ValueError):
                    total([5.0], discount=-0.5)
            """,
                "tests/test_validation.py",
            )
        ),
        ["tests/test_validation.py::test_negative_discount_rejected"],
    ),
    pytest_case(
        "r6-pytest-mock-called-with",
        "test",
        "pytest -q",
        r6project(
            test_module(
                """\
            from unittest import mock

            from shop.orders import order_summary


            def notify(mailer, items):
                summary = order_summary(items)
                mailer.send("orders@example.com", f"{summary['count']} items")


            def test_notify_sends_count():
                mailer = mock.Mock()
                notify(mailer, [{"price": 1.0}, {"price": 2.0}])
                mailer.send.assert_called_once_with("orders@example.com", "2 item(s)")
            """,
                "tests/test_notify.py",
            )
        ),
        ["tests/test_notify.py::test_notify_sends_count"],
    ),
    pytest_case(
        "r6-pytest-xpass-strict",
        "test",
        "pytest -q -rxX",
        r6project(
            test_module(
                """\
            import pytest

            from shop.text import slugify


            @pytest.mark.xfail(strict=True, reason="slugify keeps double spaces (#88)")
            def test_double_space():
                assert slugify("a  b") == "a-b"
            """,
                "tests/test_known_bugs.py",
            )
        ),
        ["tests/test_known_bugs.py::test_double_space"],
        error=SUMMARY + r"|XPASS\(strict\)",
        note="a fixed bug: the strict xfail passes, which fails the run",
    ),
    pytest_case(
        "r6-pytest-exitfirst",
        "test",
        "pytest -x -q",
        r6project(
            test_module(
                """\
            from shop.orders import order_summary


            def test_a_currency():
                assert order_summary([], "GBP")["currency"] == "GBP"


            def test_b_total_rounding():
                assert order_summary([{"price": 0.105}])["total"] == 0.11


            def test_c_count():
                assert order_summary([{"price": 1}] * 3)["count"] == 4
            """,
                "tests/test_summary.py",
            )
        ),
        ["tests/test_summary.py::test_b_total_rounding"],
    ),
    pytest_case(
        "r6-pytest-captured-log-errors",
        "test",
        "pytest -q",
        r6project(
            test_module(
                """\
            import logging

            log = logging.getLogger("shop.payments")


            def charge(amount):
                if amount > 100:
                    log.error("payment gateway error: amount %s over the card limit", amount)
                    return False
                return True


            def test_small_charge(caplog):
                assert charge(20)


            def test_large_charge_is_split(caplog):
                assert charge(150), "large charges should be split, not refused"
            """,
                "tests/test_payments.py",
            )
        ),
        ["tests/test_payments.py::test_large_charge_is_split"],
        note="the captured log of the failing test says 'error' too",
    ),
    pytest_case(
        "r6-pytest-cli-subprocess",
        "test",
        "pytest -q tests/test_cli.py",
        r6project(
            test_module(
                """\
            import subprocess
            import sys


            def test_cli_prints_version():
                out = subprocess.run(
                    [sys.executable, "-m", "shop", "--version"],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                assert out.stdout.strip() == "0.1.0"
            """,
                "tests/test_cli.py",
            )
        ),
        ["tests/test_cli.py::test_cli_prints_version"],
        env={"PYTHONPATH": "src"},
        note="the package has no __main__: the CLI test's subprocess fails",
    ),
    pytest_case(
        "r6-pytest-continue-on-error-lint-first",
        "test",
        "pytest -q",
        r6project(
            test_module(
                """\
            from shop.text import strip_tags


            def test_strip_nested():
                assert strip_tags("<div><b>x</b></div>") == "x"


            def test_strip_attributes():
                assert strip_tags('<a href="/x">go</a> now') == "go now "
            """,
                "tests/test_html.py",
            ),
            src={"src/shop/util.py": UTIL_LINT},
        ),
        ["tests/test_html.py::test_strip_attributes"],
        tolerated=["ruff check src"],
        note="a `continue-on-error` lint step fails first; the tests are the failure",
    ),
    pytest_case(
        "r6-pytest-always-upload-after",
        "test",
        "pytest -q --junitxml=reports/junit.xml",
        r6project(
            test_module(
                """\
            from shop.orders import order_summary


            def test_total_two_items():
                assert order_summary([{"price": 1.25}, {"price": 1.25}])["total"] == 2.0
            """,
                "tests/test_two.py",
            )
        ),
        ["tests/test_two.py::test_total_two_items"],
        always=["ls reports && echo 'uploading test report (0 errors in upload)'"],
        job="test (3.12, ubuntu-latest)",
    ),
]

INVENTORY = """\
import json
import os
import subprocess


class Inventory:
    def __init__(self, path):
        self.path = path
        self.items = {}

    def load(self):
        with open(self.path) as fh:
            self.items = json.load(fh)

    def recieve(self, sku, count):
        if sku in self.items.keys():
            self.items[sku] = self.items[sku] + count
        else:
            self.items[sku] = count

    def report(self):
        for sku in self.items:
            print("%s: %d" % (sku, self.items[sku]))
        l = len(self.items)
        return l
"""
UNSORTED = """\
import sys
from shop.cart import total
import os
from collections import OrderedDict, defaultdict


def run():
    return total([1.0]), os.sep, sys.argv, OrderedDict, defaultdict
"""
PRECOMMIT_LOCAL = """\
repos:
  - repo: local
    hooks:
      - id: ruff
        name: ruff
        entry: ruff check
        language: system
        types: [python]
      - id: black
        name: black
        entry: black --check
        language: system
        types: [python]
      - id: no-print
        name: no print statements
        entry: '^\\s*print\\('
        language: pygrep
        types: [python]
        files: ^src/
      - id: codespell
        name: codespell
        entry: codespell
        language: system
        types: [text]
"""
TYPED_SERVICE = """\
from dataclasses import dataclass
from typing import Optional


@dataclass
class Customer:
    name: str
    email: Optional[str] = None


def greeting(customer: Customer) -> str:
    return "Dear " + customer.name.title()


def mail_domain(customer: Customer) -> str:
    return customer.email.split("@")[1]


def loyalty_points(total: float) -> int:
    return total // 10


def lookup(customers: dict[str, Customer], key: str) -> Customer:
    return customers.get(key)


greeting("Ada")
"""

R6_LINT = [
    Scenario(
        "r6-ruff-github-annotations",
        "lint",
        "ruff check --output-format=github src",
        r6project(src={"src/shop/inventory.py": INVENTORY, "src/shop/util.py": UTIL_LINT}),
        r"^##\[error\]",
        commands=True,
        before=["python -m pip install ruff"],
        note="ruff's github format: workflow commands the runner shows as ##[error] lines",
    ),
    Scenario(
        "r6-ruff-concise",
        "lint",
        "ruff check --output-format=concise --select E,F,W,B,SIM src",
        r6project(src={"src/shop/inventory.py": INVENTORY}),
        r"^\S+\.py:\d+:\d+: [A-Z]+\d+ ",
        job="lint",
    ),
    Scenario(
        "r6-ruff-format-check",
        "lint",
        "ruff format --check --diff src",
        r6project(src={"src/shop/orders_ugly.py": UGLY}),
        r"^Would reformat|^\d+ files? would be reformatted|^--- src/",
        job="lint",
        before=["ruff check src"],
    ),
    Scenario(
        "r6-flake8-setup-cfg",
        "lint",
        "flake8",
        r6project(src={"src/shop/inventory.py": INVENTORY, "src/shop/util.py": UTIL_LINT})
        | {
            "setup.cfg": "[flake8]\nmax-line-length = 88\nextend-ignore = E203\nexclude = .git,.venv,build\nper-file-ignores = tests/*: F401\n"
        },
        r"^\.?/?\S+\.py:\d+:\d+: [A-Z]+\d+ ",
        before=["python -m pip install flake8"],
    ),
    Scenario(
        "r6-black-check-many",
        "lint",
        "black --check .",
        r6project(src={"src/shop/orders_ugly.py": UGLY, "src/shop/util.py": UTIL_LINT}),
        r"^would reformat ",
        job="lint (black)",
    ),
    Scenario(
        "r6-isort-check-diff",
        "lint",
        "isort --check-only --diff --profile black src",
        r6project(src={"src/shop/runner.py": UNSORTED}),
        r"^ERROR: ",
    ),
    Scenario(
        "r6-codespell",
        "lint",
        "codespell src docs README.md",
        r6project(src={"src/shop/inventory.py": INVENTORY})
        | {
            "docs/index.md": "# Shop\n\nThe shop recieves orders and calcualtes totals seperately for each customer.\n"
        },
        r"^\S+:\d+: \S+ ==> ",
        venv="r6",
    ),
    Scenario(
        "r6-pylint",
        "lint",
        "pylint src/shop --disable=missing-docstring",
        r6project(src={"src/shop/inventory.py": INVENTORY}),
        r"^\S+\.py:\d+:\d+: [CRWEF]\d{4}: ",
        before=["python -m pip install pylint"],
    ),
    Scenario(
        "r6-pre-commit-local-hooks",
        "lint",
        "pre-commit run --all-files --show-diff-on-failure",
        r6project(src={"src/shop/inventory.py": INVENTORY, "src/shop/orders_ugly.py": UGLY})
        | {".pre-commit-config.yaml": PRECOMMIT_LOCAL},
        r"\.{3,}Failed$|^\S+\.py:\d+:\d+: [A-Z]+\d+ |^would reformat |^\S+\.py:\d+:\s*print\(|==> ",
        git_add=True,
        job="pre-commit",
    ),
    Scenario(
        "r6-tox-lint-env",
        "lint",
        "tox -e lint",
        r6project(src={"src/shop/util.py": UTIL_LINT})
        | {
            "tox.ini": "[tox]\nenvlist = py312, lint\nskipsdist = true\n\n[testenv]\ndeps = pytest\ncommands = pytest -q\n\n[testenv:lint]\ndeps = flake8\ncommands = flake8 src\n"
        },
        FLAKE8,
        before=["tox -e py312 -q"],
        env={"PYTHONPATH": "src"},
        note="the test env passes in the step before; the lint env fails",
    ),
]

R6_TYPE = [
    Scenario(
        "r6-mypy-several-kinds",
        "type",
        "mypy src",
        r6project(src={"src/shop/customers.py": TYPED_SERVICE}),
        MYPY,
        before=["ruff check src/shop/customers.py --select F", "python -m pip install mypy"],
        note="the step before passes: ruff prints 'All checks passed!'",
    ),
    Scenario(
        "r6-mypy-strict-untyped",
        "type",
        "mypy --strict src/shop/orders.py src/shop/text.py",
        r6project(),
        MYPY,
    ),
    Scenario(
        "r6-mypy-pretty-optional",
        "type",
        "mypy --pretty --no-error-summary src/shop/customers.py",
        r6project(src={"src/shop/customers.py": TYPED_SERVICE}),
        MYPY,
        job="typecheck (3.12)",
    ),
    Scenario(
        "r6-mypy-untyped-import",
        "type",
        "mypy src",
        r6project(
            src={
                "src/shop/feeds.py": 'import yaml\n\n\ndef feeds(path: str) -> list[str]:\n    with open(path) as fh:\n        return [f["name"] for f in yaml.safe_load(fh)["feeds"]]\n'
            }
        ),
        MYPY,
        label_alt="dependency",
        note="PyYAML is installed, its stubs (types-PyYAML) are not",
    ),
    Scenario(
        "r6-pyright-basic",
        "type",
        "pyright src",
        r6project(src={"src/shop/customers.py": TYPED_SERVICE}),
        PYRIGHT,
        before=["python -m pip install pyright", "pyright --version"],
    ),
    Scenario(
        "r6-pyright-strict-config",
        "type",
        "pyright",
        r6project(
            extra='\n[tool.pyright]\ninclude = ["src"]\ntypeCheckingMode = "strict"\npythonVersion = "3.12"\n',
        ),
        PYRIGHT,
        note="strict mode over code without annotations",
    ),
    Scenario(
        "r6-mypy-tests-attr-override",
        "type",
        "mypy src tests",
        r6project(
            {
                "tests/test_typed.py": textwrap.dedent("""\
            from shop.customers import Customer, greeting


            class VipCustomer(Customer):
                def discount(self) -> float:
                    return 0.1


            class GoldCustomer(VipCustomer):
                def discount(self) -> str:
                    return "20%"


            def test_greeting() -> None:
                assert greeting(Customer("ada")).startswith("Dear")
                assert Customer("bob").nickname == "bob"
            """)
            },
            src={
                "src/shop/customers.py": 'from dataclasses import dataclass\n\n\n@dataclass\nclass Customer:\n    name: str\n\n\ndef greeting(customer: Customer) -> str:\n    return "Dear " + customer.name.title()\n'
            },
        ),
        MYPY,
    ),
]

R6_DEPENDENCY = [
    Scenario(
        "r6-pip-resolution-impossible",
        "dependency",
        "python -m pip install -r requirements.txt",
        r6project() | {"requirements.txt": "requests==2.32.3\nurllib3<1.21\n"},
        r"^ERROR: (?:Cannot install|ResolutionImpossible)|conflict is caused by|^\s+requests 2\.32\.3 depends on",
        first=None,
    ),
    Scenario(
        "r6-pip-version-missing",
        "dependency",
        "python -m pip install -r requirements/ci.txt",
        r6project() | {"requirements/ci.txt": "attrs>=23\npackaging==99.1\n"},
        PIP_NOT_FOUND,
        job="test (3.12)",
    ),
    Scenario(
        "r6-pip-private-package-missing",
        "dependency",
        'python -m pip install -e ".[dev]"',
        {
            "pyproject.toml": SETUPTOOLS_BACKEND
            + '[project]\nname = "shop"\nversion = "0.1.0"\ndependencies = ["attrs"]\n\n[project.optional-dependencies]\ndev = ["pytest", "acme-shop-testkit>=2.1"]\n',
            "src/shop/__init__.py": "",
        },
        PIP_NOT_FOUND,
        note="a dev extra names a package published only on a private index",
    ),
    Scenario(
        "r6-uv-lock-stale",
        "dependency",
        "uv sync --locked",
        {
            "pyproject.toml": '[project]\nname = "shop"\nversion = "0.1.0"\nrequires-python = ">=3.12"\ndependencies = ["attrs>=23"]\n',
        },
        r"lockfile .*needs to be updated|^error: ",
        before=[
            "uv lock -q",
            'sed -i \'s/dependencies = \\["attrs>=23"\\]/dependencies = ["attrs>=23", "idna>=3"]/\' pyproject.toml',
            "git diff --stat || true",
        ],
        env={"UV_PYTHON": f"{PYTHONS['3.12']}/bin/python3.12", "UV_PYTHON_DOWNLOADS": "never"},
        label_alt="configuration",
        note="pyproject.toml gained a dependency; uv.lock was not regenerated",
    ),
    Scenario(
        "r6-module-not-found-runtime",
        "dependency",
        "python -m shop.rates",
        r6project(
            src={
                "src/shop/rates.py": "import httpx\n\n\ndef main():\n    print(httpx.get('https://rates.example.invalid/eur').json())\n\n\nif __name__ == '__main__':\n    main()\n"
            }
        ),
        r"^ModuleNotFoundError: ",
        env={"PYTHONPATH": "src"},
        note="httpx is imported but not declared; the job's environment lacks it",
    ),
    pytest_case(
        "r6-pytest-collect-missing-module",
        "dependency",
        "pytest -q",
        r6project(
            test_module(
                """\
            from freezegun import freeze_time

            from shop.orders import order_summary


            @freeze_time("2026-01-01")
            def test_summary_new_year():
                assert order_summary([])["count"] == 0
            """,
                "tests/test_dates.py",
            )
        ),
        ["tests/test_dates.py"],
        error=SUMMARY + r"|^E\s+ModuleNotFoundError: ",
        first=None,
        label_alt="test",
        note="a test dependency (freezegun) missing from the CI requirements",
    ),
]

R6_BUILD = [
    Scenario(
        "r6-pip-c-extension-error",
        "build",
        "python -m pip install .",
        {
            "setup.py": C_SETUP,
            "pyproject.toml": C_PYPROJECT,
            "src/fastsum/__init__.py": "",
            "src/fastsum/_speed.c": C_BAD_CODE,
        },
        CC_ERROR,
        job="wheels (ubuntu-latest)",
    ),
    Scenario(
        "r6-setuptools-scm-no-git",
        "build",
        "python -m build",
        {
            "pyproject.toml": '[build-system]\nrequires = ["setuptools>=64", "setuptools-scm>=8"]\nbuild-backend = "setuptools.build_meta"\n\n[project]\nname = "shop"\ndynamic = ["version"]\n\n[tool.setuptools_scm]\n',
            "src/shop/__init__.py": "",
        },
        r"^LookupError: |^ERROR Backend",
        before=["rm -rf .git", "python -m pip install build"],
        label_alt="environment",
        note="the source has no git metadata (an archive, or checkout without .git): setuptools-scm cannot find a version",
    ),
    Scenario(
        "r6-build-no-isolation-missing",
        "build",
        "python -m build --no-isolation --wheel",
        {
            "pyproject.toml": '[build-system]\nrequires = ["hatchling>=1.26"]\nbuild-backend = "hatchling.build"\n\n[project]\nname = "shop"\nversion = "0.1.0"\n',
            "src/shop/__init__.py": "",
        },
        r"^ERROR (?:Missing dependencies|Backend)|^ModuleNotFoundError: ",
        label_alt="dependency",
    ),
    Scenario(
        "r6-hatch-no-files",
        "build",
        "python -m build --wheel",
        {
            "pyproject.toml": '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n\n[project]\nname = "shop-tools"\nversion = "0.1.0"\n',
            "lib/shop/__init__.py": "",
        },
        r"^ValueError: |Unable to determine which files|^ERROR Backend",
        label_alt="configuration",
        note="hatchling finds no package named after the project (the code is under lib/)",
    ),
    Scenario(
        "r6-sphinx-toctree-warning",
        "build",
        "sphinx-build -W -b html docs docs/_build/html",
        r6project()
        | {
            "docs/conf.py": 'project = "shop"\nextensions = ["sphinx.ext.autodoc"]\n',
            "docs/index.rst": "Shop\n====\n\n.. toctree::\n\n   install\n",
            "docs/install.rst": "Install\n=======\n\npip install shop\n",
            "docs/changelog.rst": "Changelog\n=========\n\n0.1.0\n-----\n\nFirst release.\n",
        },
        r"WARNING: |ERROR: |[Bb]uild finished with problems",
        job="docs",
    ),
    Scenario(
        "r6-gcc-link-undefined",
        "build",
        "mkdir -p build\ngcc -O2 -o build/pricecalc csrc/main.c csrc/prices.c",
        r6project()
        | {
            "csrc/main.c": '#include <stdio.h>\n\ndouble shop_tax(double amount);\ndouble shop_total(const double *xs, int n);\n\nint main(void) {\n    double xs[] = {1.5, 2.5};\n    printf("%.2f\\n", shop_tax(shop_total(xs, 2)));\n    return 0;\n}\n',
            "csrc/prices.c": "double shop_total(const double *xs, int n) {\n    double t = 0;\n    for (int i = 0; i < n; i++) t += xs[i];\n    return t;\n}\n",
        },
        r"undefined reference|^collect2: error",
    ),
]

STATUS_ANY = """\
import http.server
import sys

STATUS = int(sys.argv[2])


class Failing(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(STATUS)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(b"<html><body><h1>Bad Gateway</h1></body></html>\\n")

    def log_message(self, *args):
        pass


http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Failing).serve_forever()
"""


def served(script_name: str, port: int, then: str, *args: str) -> str:
    extra = "".join(f" {a}" for a in args)
    return f"python scripts/{script_name} {port}{extra} >/dev/null 2>&1 &\ntrap 'kill $!' EXIT\nsleep 1\n{then}"


R6_NETWORK = [
    Scenario(
        "r6-pip-index-dns",
        "network",
        "python -m pip install --retries 1 --timeout 5 --index-url https://pypi.corp.example.invalid/simple shop-sdk==3.2.0",
        r6project(),
        r"NameResolutionError|Failed to resolve|Name or service not known|^ERROR: (?:Could not find a version|No matching distribution)",
        label_alt="configuration",
        note="the private index's host does not resolve from the runner",
    ),
    Scenario(
        "r6-curl-dns-download",
        "network",
        "mkdir -p data\ncurl -fsSL --retry 2 --retry-delay 1 https://downloads.example.invalid/geo/countries.csv -o data/countries.csv",
        r6project(),
        r"^curl: \(\d+\) ",
        job="integration",
    ),
    Scenario(
        "r6-requests-connection-refused",
        "network",
        "python scripts/seed_search.py",
        r6project()
        | script(
            "scripts/seed_search.py",
            """\
            import requests

            print("seeding the search index at http://127.0.0.1:9271")
            requests.put("http://127.0.0.1:9271/products", json={"settings": {}}, timeout=5).raise_for_status()
            """,
        ),
        r"^requests\.exceptions\.ConnectionError: ",
        label_alt="environment",
        note="the search service container the job needs is not running (nothing listens on the port)",
    ),
    Scenario(
        "r6-requests-tls-verify",
        "network",
        served("serve_tls.py", 8664, "python scripts/fetch_catalog.py"),
        r6project()
        | {"scripts/serve_tls.py": TLS_SERVER}
        | script(
            "scripts/fetch_catalog.py",
            """\
            import requests

            print("downloading the catalog")
            r = requests.get("https://localhost:8664/catalog.json", timeout=5)
            print(len(r.content))
            """,
        ),
        r"^requests\.exceptions\.SSLError: |CERTIFICATE_VERIFY_FAILED",
        before=[MAKE_CERT + " 2>/dev/null"],
        note="the server's certificate is self-signed (a local server stands in for it)",
    ),
    Scenario(
        "r6-git-clone-503",
        "network",
        served(
            "upstream.py",
            8665,
            "git clone --depth 1 http://127.0.0.1:8665/acme/fixtures.git tests/fixtures/data",
            "503",
        ),
        r6project() | {"scripts/upstream.py": STATUS_ANY},
        r"^fatal: ",
        label_alt="infrastructure",
    ),
    Scenario(
        "r6-requests-http-502",
        "network",
        served("upstream.py", 8666, "python -m shop.sync_rates", "502"),
        r6project(
            src={
                "src/shop/sync_rates.py": 'import requests\n\nURL = "http://127.0.0.1:8666/v1/rates?base=EUR"\n\nif __name__ == "__main__":\n    print("fetching exchange rates")\n    response = requests.get(URL, timeout=10)\n    response.raise_for_status()\n    print(response.json())\n'
            }
        )
        | {"scripts/upstream.py": STATUS_ANY},
        r"^requests\.exceptions\.HTTPError: ",
        env={"PYTHONPATH": "src"},
        label_alt="infrastructure",
        note="the rates API answers 502 Bad Gateway (a local server stands in for it)",
    ),
    pytest_case(
        "r6-pytest-live-api-dns",
        "network",
        "pytest -q -m 'not slow'",
        r6project(
            test_module(
                """\
            import requests


            def test_rates_api_alive():
                r = requests.get("https://api.rates.example.invalid/v1/ping", timeout=5)
                assert r.status_code == 200
            """,
                "tests/test_live.py",
            )
        ),
        ["tests/test_live.py::test_rates_api_alive"],
        error=SUMMARY + r"|^E\s+requests\.exceptions\.ConnectionError: ",
        first=None,
        label_alt="test",
        note="a test that calls a live API; its host does not resolve",
    ),
]

R6_TIMEOUT = [
    Scenario(
        "r6-gnu-timeout-crawl",
        "timeout",
        "timeout 4 python scripts/warm_cache.py",
        r6project()
        | script(
            "scripts/warm_cache.py",
            """\
            import time

            for n in range(1, 200):
                print(f"warming page {n}/199", flush=True)
                time.sleep(1)
            """,
        ),
        r"(?!)",
        runner_error=True,
        note="GNU timeout stops the step (exit 124); nothing else says so",
    ),
    Scenario(
        "r6-step-timeout-minutes",
        "timeout",
        "python -m pytest -v tests/integration",
        r6project(
            {
                "tests/integration/__init__.py": "",
                "tests/integration/test_sync.py": textwrap.dedent("""\
            import time


            def test_quick_sync():
                assert True


            def test_full_sync():
                while True:  # waits for a warehouse that never answers
                    time.sleep(1)
            """),
            }
        ),
        r"(?!)",
        cut=4,
        env={"PYTHONUNBUFFERED": "1"},
        runner="##[error]The action 'Run python -m pytest -v tests/integration' has timed out after 20 minutes.",
        runner_error=True,
        note="the step's timeout-minutes ends it: the runner's own line (the run was stopped after seconds; the wording is the runner's)",
    ),
    Scenario(
        "r6-job-timeout-runner",
        "timeout",
        "python scripts/backfill.py",
        r6project()
        | script(
            "scripts/backfill.py",
            """\
            import time

            print("backfilling order history")
            for month in range(1, 1000):
                print(f"month {month}: 1200 orders", flush=True)
                time.sleep(0.5)
            """,
        ),
        r"(?!)",
        cut=4,
        runner="##[error]The job running on runner GitHub Actions 1000000123 has exceeded the maximum execution time of 30 minutes.\n##[error]The operation was canceled.",
        runner_error=True,
        job="backfill",
        note="the job's timeout-minutes: the runner's lines (the run was stopped after seconds)",
    ),
    pytest_case(
        "r6-pytest-session-timeout",
        "timeout",
        "pytest -v --session-timeout=5",
        r6project(
            test_module(
                """\
            import time

            import pytest


            @pytest.mark.parametrize("region", ["eu", "us", "ap", "sa", "af"])
            def test_region_report(region):
                time.sleep(2)
            """,
                "tests/test_reports.py",
            )
        ),
        [],
        error=r"session-timeout: .* exceeded",
        first=None,
        note="pytest-timeout's --session-timeout ends the whole run",
    ),
    pytest_case(
        "r6-pytest-timeout-thread-dump",
        "timeout",
        "pytest -q --timeout=3 --timeout-method=thread",
        r6project(
            test_module(
                """\
            import threading


            def test_lock_released():
                lock = threading.Lock()
                lock.acquire()
                with lock:  # never released: the test hangs
                    pass
            """,
                "tests/test_locks.py",
            )
        ),
        ["tests/test_locks.py::test_lock_released"],
        error=r"^\++ Timeout \++$",
        first=None,
        label_alt="test",
        note="the thread method dumps the stacks and exits the whole process: no summary",
    ),
    Scenario(
        "r6-timeout-sigint-pytest",
        "timeout",
        "timeout --signal=INT 6 pytest -v",
        r6project(
            test_module(
                """\
            import time


            def test_import_big_feed():
                for _ in range(120):
                    time.sleep(0.5)
            """,
                "tests/test_feed.py",
            )
        ),
        r"KeyboardInterrupt",
        runner_error=True,
        env={"PYTHONUNBUFFERED": "1"},
    ),
]

R6_CONFIGURATION = [
    Scenario(
        "r6-pytest-strict-config-unknown",
        "configuration",
        "pytest -q",
        r6project(extra='timout = 60\naddopts = "--strict-config --strict-markers"\n'),
        r"^ERROR: |[Uu]nknown config option",
    ),
    Scenario(
        "r6-pyproject-toml-invalid",
        "configuration",
        "pytest -q",
        r6project(extra='addopts = "-ra\nmarkers = ["slow: long tests"]\n'),
        r"^ERROR: |pyproject\.toml",
        note="an unterminated string in pyproject.toml's [tool.pytest.ini_options]",
    ),
    Scenario(
        "r6-flake8-bad-option-value",
        "configuration",
        "flake8 src",
        r6project() | {"setup.cfg": "[flake8]\nmax-line-length = eighty-eight\n"},
        r"^\w*Error: |invalid int value|^flake8: error",
    ),
    Scenario(
        "r6-tox-env-not-found",
        "configuration",
        "tox -e py312-django50",
        r6project()
        | {
            "tox.ini": "[tox]\nenvlist = py312\nskipsdist = true\n\n[testenv]\ndeps = pytest\ncommands = pytest -q\n"
        },
        r"provided environments not found|py312-django50|HandledError",
        job="test (py312-django50)",
        note="the workflow's matrix names a tox env the tox.ini does not define",
    ),
    Scenario(
        "r6-missing-secret-env",
        "configuration",
        "python -m shop.payments --dry-run",
        r6project(
            src={
                "src/shop/payments.py": 'import os\n\nSTRIPE_KEY = os.environ["STRIPE_API_KEY"]\n\nif __name__ == "__main__":\n    print("dry run with key", STRIPE_KEY[:4] + "...")\n'
            }
        ),
        r"^KeyError: ",
        env={"PYTHONPATH": "src", "STRIPE_API_KEY": ""},
        label_alt="environment",
        note="secrets are not passed to workflows from forks: the variable is unset",
    ),
    Scenario(
        "r6-pytest-unknown-cli-option",
        "configuration",
        "pytest -q -p no:cacheprovider --randomly-seed=1234",
        r6project(),
        r"^ERROR: |unrecognized arguments",
        label_alt="dependency",
        note="the workflow passes pytest-randomly's option; the plugin is not installed",
    ),
    Scenario(
        "r6-yaml-config-mapping",
        "configuration",
        "python scripts/check_feeds.py",
        r6project()
        | script(
            "scripts/check_feeds.py",
            """\
            import yaml

            with open("config/feeds.yml") as fh:
                feeds = yaml.safe_load(fh)
            for feed in feeds["feeds"]:
                print("feed", feed["name"])
            """,
        )
        | {
            "config/feeds.yml": "feeds:\n  - name: google\n    url: https://example.com/google.xml\n  - name: meta\n    url: https://example.com/meta.xml: daily\n"
        },
        r"^yaml\.\w+\.\w+Error: ",
    ),
    Scenario(
        "r6-mypy-exclude-bad-regex",
        "configuration",
        "mypy src",
        r6project(extra='\n[tool.mypy]\nexclude = ["build/(", "docs/"]\n'),
        r"^error: |invalid regular expression",
    ),
    Scenario(
        "r6-ruff-config-unknown-field",
        "configuration",
        "ruff check src",
        r6project(extra="\n[tool.ruff]\nline-lenght = 100\n"),
        r"^(?:ruff failed|error|Cause|\s+unknown field)|line-lenght",
        job="lint",
    ),
]

R6_ENVIRONMENT = [
    Scenario(
        "r6-requires-python-too-new",
        "environment",
        "python -m pip install .",
        {
            "pyproject.toml": SETUPTOOLS_BACKEND
            + '[project]\nname = "shop"\nversion = "0.1.0"\nrequires-python = ">=3.11"\n',
            "src/shop/__init__.py": "",
        },
        r"requires a different Python|^ERROR: ",
        venv="py39",
        job="test (3.9)",
        label_alt="configuration",
        note="the matrix still lists Python 3.9; the package now needs 3.11",
    ),
    Scenario(
        "r6-ctypes-missing-library",
        "environment",
        "python -m shop.render",
        r6project(
            src={
                "src/shop/render.py": 'import ctypes\nimport ctypes.util\n\nname = ctypes.util.find_library("gdal") or "libgdal.so.34"\ngdal = ctypes.CDLL(name)\nprint("GDAL", gdal.GDALVersionInfo(b"RELEASE_NAME"))\n'
            }
        ),
        r"^OSError: ",
        env={"PYTHONPATH": "src"},
        label_alt="dependency",
        note="a system library (libgdal) the runner image does not have",
    ),
    Scenario(
        "r6-command-not-found",
        "environment",
        "shellcheck scripts/*.sh",
        r6project() | {"scripts/deploy.sh": "#!/bin/sh\necho deploying $1\n"},
        r"command not found",
        before=["ruff check src"],
    ),
    Scenario(
        "r6-ascii-stdout-encoding",
        "environment",
        "python -m shop.receipt",
        r6project(
            src={
                "src/shop/receipt.py": 'from shop.cart import total\n\nprint(f"Total: {total([4.5, 8.0]):.2f} \\u20ac")\n'
            }
        ),
        r"^UnicodeEncodeError: ",
        env={"PYTHONPATH": "src", "PYTHONIOENCODING": "ascii"},
        label_alt="configuration",
        note="the job's stdout encoding is ASCII; the receipt prints a euro sign",
    ),
    Scenario(
        "r6-script-not-executable",
        "environment",
        "./scripts/release.sh 0.1.0",
        r6project()
        | {"scripts/release.sh": '#!/usr/bin/env bash\nset -euo pipefail\necho "releasing $1"\n'},
        r"Permission denied",
        label_alt="configuration",
        note="the script lost its executable bit (committed without +x)",
    ),
    Scenario(
        "r6-read-only-filesystem",
        "environment",
        "python scripts/build_index.py",
        r6project()
        | script(
            "scripts/build_index.py",
            """\
            from pathlib import Path

            out = Path("var/index")
            print("writing the search index to", out)
            (out / "products.idx").write_text("sku\\n" * 100)
            """,
        ),
        r"^OSError: |Read-only file system",
        mounts={"var/index": "ro,size=64k"},
        note="the output directory is on a read-only mount (a read-only tmpfs stands in for it)",
    ),
    Scenario(
        "r6-interpreter-not-on-path",
        "environment",
        "python3.13 -m pytest -q",
        r6project(),
        r"command not found",
        job="test (3.13)",
        label_alt="configuration",
        note="the step calls a Python the setup-python step did not install",
    ),
]

R6_INFRASTRUCTURE = [
    Scenario(
        "r6-runner-lost-communication",
        "infrastructure",
        "pytest -v",
        r6project(
            test_module(
                """\
            import time

            import pytest


            @pytest.mark.parametrize("shard", range(8))
            def test_render_shard(shard):
                time.sleep(1)
            """,
                "tests/test_render.py",
            )
        ),
        r"(?!)",
        cut=4,
        env={"PYTHONUNBUFFERED": "1"},
        runner="##[error]The hosted runner: GitHub Actions 1000000117 lost communication with the server. Anything in your workflow that terminates the runner process, starves it for CPU/Memory, or blocks its network access can cause this error.",
        runner_error=True,
        note="the runner's message (GitHub shows it as an annotation; here it ends the log); the run was stopped after seconds",
    ),
    Scenario(
        "r6-enospc-tmpfs",
        "infrastructure",
        "python scripts/export_catalog.py",
        r6project()
        | script(
            "scripts/export_catalog.py",
            """\
            import json

            rows = [{"sku": f"SKU-{n:06d}", "name": "widget " * 8, "price": n / 100} for n in range(5000)]
            print("exporting", len(rows), "rows to build/export/")
            with open("build/export/catalog.json", "w") as fh:
                json.dump(rows, fh)
            """,
        ),
        r"No space left on device",
        mounts={"build/export": "size=64k"},
        note="a real write to a 64 KiB tmpfs stands in for the runner's full disk",
    ),
    Scenario(
        "r6-pip-enospc-target",
        "infrastructure",
        "python -m pip install --target build/site requests",
        r6project(),
        r"No space left on device",
        mounts={"build/site": "size=64k"},
        label_alt="environment",
    ),
    pytest_case(
        "r6-oom-killed-pytest",
        "infrastructure",
        "pytest -v",
        r6project(
            test_module(
                """\
            def test_load_full_catalog():
                rows = []
                for n in range(50_000_000):
                    rows.append({"sku": n, "name": f"product {n}"})
                assert len(rows) == 50_000_000
            """,
                "tests/test_catalog.py",
            )
        ),
        [],
        error=r"Killed",
        first=None,
        memory="200M",
        env={"PYTHONUNBUFFERED": "1"},
        runner_error=True,
        label_alt="test",
        note="the kernel's OOM killer ends pytest (exit 137); a 200 MB memory cgroup stands in for the runner's memory",
    ),
    Scenario(
        "r6-operation-canceled",
        "infrastructure",
        "python -m pytest -q tests",
        r6project(
            test_module(
                """\
            import time

            import pytest


            @pytest.mark.parametrize("n", range(30))
            def test_slow_report(n):
                time.sleep(0.5)
            """,
                "tests/test_slow.py",
            )
        ),
        r"(?!)",
        cut=4,
        env={"PYTHONUNBUFFERED": "1"},
        runner="##[error]The operation was canceled.",
        runner_error=True,
        label_alt="timeout",
        note="the run was cancelled (a newer push, or by hand): the runner's line; stopped after seconds",
    ),
    Scenario(
        "r6-runner-shutdown-signal",
        "infrastructure",
        "python scripts/train_ranker.py",
        r6project()
        | script(
            "scripts/train_ranker.py",
            """\
            import time

            for epoch in range(1, 100):
                print(f"epoch {epoch}: loss={1 / epoch:.4f}", flush=True)
                time.sleep(1)
            """,
        ),
        r"(?!)",
        cut=4,
        runner="##[error]The runner has received a shutdown signal. This can happen when the runner service is stopped, or a manually started runner is canceled.\n##[error]The operation was canceled.",
        runner_error=True,
        job="train (self-hosted, gpu)",
    ),
]

R6 = (
    R6_TEST
    + R6_LINT
    + R6_TYPE
    + R6_DEPENDENCY
    + R6_BUILD
    + R6_NETWORK
    + R6_TIMEOUT
    + R6_CONFIGURATION
    + R6_ENVIRONMENT
    + R6_INFRASTRUCTURE
)
for _s in R6:
    if _s.venv == "tools":
        _s.venv = "r6"
later(6, "held-out", *R6)


# --------------------------------------------------------------------------- running


def ensure_venv(name: str) -> Path:
    path = VENVS / name
    if not (path / "bin" / "python").exists():
        version, packages = VENV_SPECS[name]
        subprocess.run([f"{PYTHONS[version]}/bin/python3", "-m", "venv", str(path)], check=True)
        subprocess.run([str(path / "bin" / "pip"), "install", "-q", *packages], check=True)
    return path


def python_version(venv: str) -> str:
    return Path(PYTHONS[VENV_SPECS[venv][0]]).name


def run_step(
    s: Scenario, command: str, cwd: Path, venv: Path, main: bool = False
) -> tuple[int, str]:
    TEMP.mkdir(parents=True, exist_ok=True)
    script = TEMP / f"{SCRIPT_ID}.sh"
    script.write_text(command + "\n")
    env = {k: v for k, v in os.environ.items() if k.startswith(("PIP_", "LANG", "LC_"))}
    env |= {
        "PIP_CONFIG_FILE": os.devnull,  # the plain index, as on a runner
        "PIP_FIND_LINKS": "",
        "PATH": f"{venv}/bin:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(HOME),
        "VIRTUAL_ENV": str(venv),
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "RUNNER_TEMP": str(TEMP),
        "PYTHONHASHSEED": "0",
        "TMPDIR": str(TEMP),
        "SSL_CERT_FILE": "/etc/ssl/certs/ca-certificates.crt",
    }
    env |= s.env
    env = {k: v for k, v in env.items() if v != ""}
    if main and (s.cut or s.memory):
        return _run_limited(s, script, cwd, env)
    proc = subprocess.run(
        ["bash", "-e", str(script)],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=600,
    )
    return proc.returncode, proc.stdout.decode("utf-8", "replace")


def _run_limited(s: Scenario, script: Path, cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """The failing step in a memory cgroup (the kernel's OOM killer ends it), or stopped by
    SIGTERM to its process group after `cut` seconds, as the runner stops a cancelled job."""
    import signal

    group = None
    if s.memory:
        group = Path("/sys/fs/cgroup/memory") / f"truegreen-live-{os.getpid()}"
        group.mkdir(exist_ok=True)
        (group / "memory.limit_in_bytes").write_text(s.memory)
        swap = group / "memory.memsw.limit_in_bytes"
        if swap.exists():
            swap.write_text(s.memory)

    def enter() -> None:
        if group is not None:
            (group / "cgroup.procs").write_text(str(os.getpid()))

    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(
            ["bash", "-e", str(script)],
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=enter,
        )
        try:
            code = proc.wait(timeout=s.cut or 600)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            code = 128 + signal.SIGTERM
        if group is not None:
            group.rmdir()
        out.seek(0)
        return code, out.read().decode("utf-8", "replace")


_STABLE = [
    (re.compile(r"\b0x[0-9a-fA-F]{6,}\b"), "0x7f3a2c1b9e40"),
    (re.compile(r"(?<![\w.])\d+\.\d{2,}(?=\s?(?:s|seconds|sec)\b)"), "0.42"),
    (re.compile(r"(?<=s )\(\d+:\d\d:\d\d\)"), "(0:00:00)"),
    (
        re.compile(r"\b\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+(?:\+00:00)?"),
        "2026-12-03 10:00:00.000000+00:00",
    ),
    (re.compile(r"(line \d+: +)\d+( (?:Killed|Segmentation fault|Aborted))"), r"\g<1>2417\2"),
    (re.compile(r"pytest-of-\w+/pytest-\d+"), "pytest-of-runner/pytest-0"),
    (re.compile(r"(?<=\d\.\d\d)=setup\[[\d.]+\]\+cmd\[[\d.]+\]"), "=setup[0.30]+cmd[0.12]"),
    (re.compile(r"\bin \d+ms\b"), "in 41ms"),
]


def stable(text: str, cwd: Path, venv: Path, version: str) -> str:
    pyloc = f"/opt/hostedtoolcache/Python/{version}/x64"
    for old, new in (
        (str(cwd), RUNNER_ROOT),
        (str(TEMP), RUNNER_TEMP),
        (str(venv), pyloc),
        (PYTHONS[VENV_SPECS["tools"][0]], pyloc),
        (PYTHONS[VENV_SPECS["pytest8"][0]], pyloc),
        (PYTHONS[VENV_SPECS["py39"][0]], pyloc),
        (str(HOME), "/home/runner"),
        (str(SCRATCH), "/home/runner/work"),
        ("/root", "/home/runner"),
    ):
        text = text.replace(old, new)
    for pattern, repl in _STABLE:
        text = pattern.sub(repl, text)  # type: ignore[arg-type]
    return text


class Wrapper:
    """A GitHub Actions job log: fixed, increasing timestamps on every line."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.t = START

    def add(self, text: str) -> int:
        for line in text.split("\n"):
            self.t += timedelta(microseconds=13_700 + 900 * (len(self.lines) % 7))
            stamp = self.t.strftime("%Y-%m-%dT%H:%M:%S.%f") + "0Z"
            self.lines.append(f"{stamp} {line}")
        return len(self.lines)

    def step(self, command: str, version: str) -> None:
        first = command.splitlines()[0]
        pyloc = f"/opt/hostedtoolcache/Python/{version}/x64"
        self.add(f"##[group]Run {first}")
        self.add(command)
        self.add("shell: /usr/bin/bash -e {0}")
        self.add("env:")
        for key in ("pythonLocation", "Python_ROOT_DIR", "Python2_ROOT_DIR", "Python3_ROOT_DIR"):
            self.add(f"  {key}: {pyloc}")
        self.add(f"  PKG_CONFIG_PATH: {pyloc}/lib/pkgconfig")
        self.add(f"  LD_LIBRARY_PATH: {pyloc}/lib")
        self.add("##[endgroup]")

    def output(self, text: str) -> tuple[int, int]:
        """Add a step's output; return the log line numbers (1-based) of its first and last line."""
        text = text[:-1] if text.endswith("\n") else text
        start = len(self.lines) + 1
        if text:
            self.add(text)
        return start, len(self.lines)


HEAD = """\
Current runner version: '2.330.0'
##[group]Runner Image Provisioner
Hosted Compute Agent
Version: 20261118.431
Azure Region: eastus2
##[endgroup]
##[group]Operating System
Ubuntu
24.04.3
LTS
##[endgroup]
##[group]Runner Image
Image: ubuntu-24.04
Version: 20261124.1.0
Included Software: https://github.com/actions/runner-images/blob/ubuntu24/20261124.1/images/ubuntu/Ubuntu2404-Readme.md
##[endgroup]
##[group]GITHUB_TOKEN Permissions
Contents: read
Metadata: read
##[endgroup]
Secret source: Actions
Prepare workflow directory
Prepare all required actions
Getting action download info
Download action repository 'actions/checkout@v4' (SHA:11bd71901bbe5b1630ceea73d27597364c9af683)
Download action repository 'actions/setup-python@v5' (SHA:a26af69be951a213d495a4c3e4e4022e16d87065)
Complete job name: {job}
##[group]Run actions/checkout@v4
with:
  repository: acme/proj
  token: ***
  ssh-strict: true
  ssh-user: git
  persist-credentials: true
  clean: true
  fetch-depth: 1
##[endgroup]
Syncing repository: acme/proj
##[group]Getting Git version info
Working directory is '/home/runner/work/proj/proj'
[command]/usr/bin/git version
git version 2.52.0
##[endgroup]
Temporarily overriding HOME='/home/runner/work/_temp/2a0c8f51-7d3e-4b8e-9f0a-5c1e6d2b7a93' before making global git config changes
[command]/usr/bin/git config --global --add safe.directory /home/runner/work/proj/proj
Deleting the contents of '/home/runner/work/proj/proj'
##[group]Initializing the repository
[command]/usr/bin/git init /home/runner/work/proj/proj
Initialized empty Git repository in /home/runner/work/proj/proj/.git/
[command]/usr/bin/git remote add origin https://github.com/acme/proj
##[endgroup]
##[group]Fetching the repository
[command]/usr/bin/git -c protocol.version=2 fetch --no-tags --prune --no-recurse-submodules --depth=1 origin +4f1c2a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39:refs/remotes/origin/main
From https://github.com/acme/proj
 * [new ref]         4f1c2a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 -> origin/main
##[endgroup]
##[group]Checking out the ref
[command]/usr/bin/git checkout --progress --force -B main refs/remotes/origin/main
Switched to a new branch 'main'
branch 'main' set up to track 'origin/main'.
##[endgroup]
[command]/usr/bin/git log -1 --format=%H
4f1c2a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39
##[group]Run actions/setup-python@v5
with:
  python-version: {short}
  check-latest: false
  token: ***
  update-environment: true
  allow-prereleases: false
  freethreaded: false
##[endgroup]
##[group]Installed versions
Successfully set up CPython ({version})
##[endgroup]"""

TAIL = """\
Post job cleanup.
[command]/usr/bin/git version
git version 2.52.0
Temporarily overriding HOME='/home/runner/work/_temp/9b4e2f10-3c6d-4a7e-8b1f-0d2c5e6a7f84' before making global git config changes
[command]/usr/bin/git config --global --add safe.directory /home/runner/work/proj/proj
[command]/usr/bin/git config --local --name-only --get-regexp core\\.sshCommand
[command]/usr/bin/git submodule foreach --recursive sh -c "git config --local --name-only --get-regexp 'core\\.sshCommand' && git config --local --unset-all 'core.sshCommand' || :"
[command]/usr/bin/git config --local --name-only --get-regexp http\\.https\\:\\/\\/github\\.com\\/\\.extraheader
http.https://github.com/.extraheader
[command]/usr/bin/git config --local --unset-all http.https://github.com/.extraheader
Cleaning up orphan processes"""


def _continues(lines: list[str], k: int) -> bool:
    """Line k goes on a run of lines with the same first word (pytest's `E` lines)."""
    return k > 0 and lines[k - 1].split(" ", 1)[0] == lines[k].split(" ", 1)[0]


class Unusable(Exception):
    """The scenario did not fail as it should (a step before it failed, or it passed)."""


def generate(s: Scenario, dest: Path = OUT) -> dict:
    venv = ensure_venv(s.venv)
    version = python_version(s.venv)
    cwd = WORK / s.name
    shutil.rmtree(cwd, ignore_errors=True)
    for rel, text in s.files.items():
        path = cwd / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    subprocess.run(["git", "init", "-q", str(cwd)], check=True)
    if s.git_add:
        subprocess.run(["git", "-C", str(cwd), "add", "-A"], check=True)
    mounted = []
    try:
        for rel, options in s.mounts.items():
            (cwd / rel).mkdir(parents=True, exist_ok=True)
            subprocess.run(
                ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(cwd / rel)], check=True
            )
            mounted.append(cwd / rel)
        return _generate(s, dest, venv, version, cwd)
    finally:
        for path in reversed(mounted):
            subprocess.run(["umount", str(path)], check=True)


_COMMAND = re.compile(r"^::(error|warning|notice)(?: [^:]*)?::(.*)$|^::(group|endgroup)::(.*)$")


def _commands(text: str) -> str:
    """Workflow commands in a step's output as the runner shows them: `##[error]message`."""

    def one(line: str) -> str:
        m = _COMMAND.match(line)
        if not m:
            return line
        if m.group(1):  # the message's escapes decoded, as the runner does
            message = m.group(2).replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")
            return f"##[{m.group(1)}]{message}"
        return f"##[{m.group(3)}]{m.group(4)}"

    return "\n".join(one(line) for line in text.split("\n"))


def _generate(s: Scenario, dest: Path, venv: Path, version: str, cwd: Path) -> dict:
    log = Wrapper()

    def shown(out: str) -> str:
        text = stable(out, cwd, venv, version)
        return _commands(text) if s.commands else text

    log.add(
        HEAD.replace("{job}", s.job or f"test ({version[:4]})")
        .replace("{short}", version[:4])
        .replace("{version}", version)
    )
    for command in s.before:
        code, out = run_step(s, command, cwd, venv)
        if code != 0:
            raise Unusable(f"{s.name}: the step before, {command!r}, failed ({code}):\n{out}")
        log.step(command, version)
        log.output(shown(out))
    for command in s.tolerated:
        code, out = run_step(s, command, cwd, venv)
        log.step(command, version)
        log.output(shown(out))
        if code != 0:
            log.add(f"##[error]Process completed with exit code {code}.")
    code, out = run_step(s, s.command, cwd, venv, main=True)
    if code == 0:
        raise Unusable(f"{s.name}: {s.command!r} passed:\n{out}")
    log.step(s.command, version)
    first, last = log.output(shown(out))
    if s.runner is None:
        exit_line = log.add(f"##[error]Process completed with exit code {code}.")
        runner_lines = [exit_line]
    else:
        start = len(log.lines) + 1
        log.add(s.runner)
        runner_lines = [
            start + k for k, line in enumerate(s.runner.split("\n")) if line.startswith("##[error]")
        ]
    for command in s.always:
        later_code, out = run_step(s, command, cwd, venv)
        if later_code != 0:
            raise Unusable(f"{s.name}: the step after, {command!r}, failed ({later_code}):\n{out}")
        log.step(command, version)
        log.output(shown(out))
    log.add(TAIL)
    body = [line.split(" ", 1)[1] for line in log.lines[first - 1 : last]]
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in body]
    every = re.compile(s.error)
    firsts = re.compile(s.first) if s.first else None
    error_lines = []
    for k, text in enumerate(plain):
        if every.search(text) or (firsts and firsts.search(text) and not _continues(plain, k)):
            error_lines.append(first + k)
    if s.runner_error:
        error_lines.extend(runner_lines)
    if not error_lines:
        raise Unusable(f"{s.name}: no error line found by {s.error!r}:\n{out}")
    (dest / f"{s.name}.log").write_text("\n".join(log.lines) + "\n")
    entry: dict = {
        "file": f"{s.name}.log",
        "class": s.cls,
        "wrapper": "gha-live",
        "command": s.command,
        "exit_code": code,
        "error_lines": error_lines,
        "failing_tests": list(s.failing_tests),
        "half": s.half,
        "round": s.round,
    }
    if s.label_alt:
        entry["label_alt"] = s.label_alt
    if s.note:
        entry["label_note"] = s.note
    if s.tolerated:
        entry["tolerated_steps"] = list(s.tolerated)
    if s.always:
        entry["always_steps"] = list(s.always)
    return entry


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", help="regenerate only these scenarios")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--out", type=Path, default=OUT, help="write there (to compare a new run)")
    args = ap.parse_args()
    if args.list:
        for s in SCENARIOS:
            print(f"{s.name:32} {s.cls:15} {s.command.splitlines()[0]}")
        return
    names = [s.name for s in SCENARIOS]
    assert len(set(names)) == len(names), "scenario names must be unique"
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    HOME.mkdir(parents=True, exist_ok=True)
    labels_path = out / "labels.json"
    old = (
        {x["file"]: x for x in json.loads(labels_path.read_text())} if labels_path.exists() else {}
    )
    entries: list[dict] = []
    failed: list[str] = []
    for s in SCENARIOS:
        if args.only and s.name not in args.only:
            if f"{s.name}.log" in old:
                entries.append(old[f"{s.name}.log"])
            continue
        print(f"{s.name} ...", file=sys.stderr, flush=True)
        try:
            entries.append(generate(s, out))
        except Unusable as exc:
            failed.append(s.name)
            print(exc, file=sys.stderr)
    labels_path.write_text(json.dumps(entries, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(entries)} logs in {out}; not produced: {failed or 'none'}", file=sys.stderr)


if __name__ == "__main__":
    main()
