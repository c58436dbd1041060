"""One failure, one signature: ``truegreen run`` (from the probe's record of the exception)
and ``truegreen diagnose`` (from the traceback pytest printed) give the same failure the same
signature, whatever flags the log was written with; a different failure gets another one.

The same fixture project is run once through the runner, and by plain pytest with the flags
CI jobs use; each output is diagnosed and its signatures compared, test by test."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import TARGET_PYTHON, git, write_files
from truegreen.diagnose import diagnose_text
from truegreen.run.interpreter import resolve
from truegreen.run.pytest_run import PytestRequest, run_pytest

PROJECT = {
    "pyproject.toml": """
        [tool.pytest.ini_options]
        pythonpath = ["src", "."]
    """,
    "src/calc/__init__.py": "",
    "src/calc/ops.py": """
        class CalcError(Exception):
            pass


        class Boom(Exception):
            pass


        def add(a, b):
            return a + b + 1


        def parse(text):
            if not text.isdigit():
                raise ValueError(f"not a number: {text!r}")
            return int(text)


        def lookup(table, key):
            return table[key]


        def invert(n):
            try:
                return 1 / n
            except ZeroDivisionError as exc:
                raise CalcError(f"cannot invert {n}") from exc


        def explain():
            raise ValueError("three lines:\\nsecond line\\n  third, indented")


        def boom():
            raise Boom("it went boom")
    """,
    "tests/__init__.py": "",
    "tests/helpers.py": """
        def assert_sum(got, want):
            assert got == want
    """,
    "tests/test_kinds.py": """
        import logging
        import pathlib

        import pytest

        from calc.ops import add, boom, explain, invert, lookup, parse
        from tests.helpers import assert_sum


        def check_total(got, want):
            assert got == want


        def check_hidden(x):
            __tracebackhide__ = True
            assert x == 1


        def test_plain_assert():
            assert add(1, 2) == 3


        def test_assert_message():
            result = add(2, 2)
            assert result == 4, "add is off by one"


        def test_raises_value_error():
            parse("abc")


        def test_helper_in_test_module():
            check_total(add(1, 1), 2)


        def test_helper_not_rewritten():
            assert_sum(add(1, 1), 2)


        def test_key_error():
            lookup({"a": 1}, "b")


        def test_key_error_other_key():
            lookup({"a": 1}, "c")


        @pytest.mark.parametrize("a,b,want", [(1, 2, 3), (2, 3, 5)])
        def test_param(a, b, want):
            assert add(a, b) == want


        def test_list_compare():
            assert [add(1, 1), 2, 3] == [2, 2, 3]


        def test_strings_compare():
            assert "the quick brown fox jumps" == "the quick brown fox jumped"


        def test_chained_project_error():
            invert(0)


        def test_multiline_message():
            explain()


        def test_not_named_error():
            boom()


        def test_note():
            exc = ValueError("boom")
            exc.add_note("while reading item seven")
            raise exc


        def test_hidden_helper():
            check_hidden(2)


        def test_logs_a_traceback_then_fails():
            try:
                1 / 0
            except ZeroDivisionError:
                logging.getLogger("calc").exception("while dividing")
            assert add(2, 2) == 4


        def test_missing_file():
            (pathlib.Path(__file__).parent / "data" / "missing.txt").read_text()


        @pytest.fixture
        def broken():
            raise RuntimeError("fixture broke")


        def test_setup_error(broken):
            pass


        def test_passes():
            assert parse("12") == 12


        # headers longer than the terminal (COLUMNS=80): one underscore each side
        class TestRelativeDeltaWeeksPropertySetter:
            def test_minus_height_days_set_minus_one_week_then_compare(self):
                assert add(-8, 0) == -8


        def test_a_module_level_test_whose_name_alone_is_longer_than_the_terminal_is_wide():
            parse("eight")
    """,
}

#: the flags CI jobs run pytest with (the default report is --tb=auto)
FLAGS = [
    [],
    ["-q"],
    ["-v"],
    ["--tb=short"],
    ["--tb=long"],
    ["--tb=native"],
    ["-rA"],
    ["-q", "-rA"],
    ["--tb=short", "-rA"],
    ["--tb=long", "-rA"],
    ["--tb=native", "-rA"],
]

#: a native traceback prints the frames ``__tracebackhide__`` hides from every other format
NATIVE_SHOWS_HIDDEN = "tests/test_kinds.py::test_hidden_helper"
#: -q prints no ``rootdir:`` line: outside a CI checkout, an absolute path in a message
#: cannot be made relative to the root as run makes it
NEEDS_ROOTDIR = "tests/test_kinds.py::test_missing_file"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The fixture project and the signatures ``truegreen run`` gives its failures."""
    root = tmp_path_factory.mktemp("signatures") / "calc"
    write_files(root, PROJECT)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    interp = resolve(str(TARGET_PYTHON), root)
    run = run_pytest(PytestRequest(repo=root, interpreter=interp, test_ids=("tests",)))
    sigs = {t.id: t.signature for t in run.tests if t.outcome in ("failed", "error")}
    assert all(sigs.values()) and len(sigs) == 21, sigs
    return root, sigs


def pytest_output(root: Path, *flags: str, ci: bool = False) -> str:
    """What ``python -m pytest FLAGS`` prints in ``root`` (on a CI runner with ``ci``)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST_", "TRUEGREEN_")) and k not in ("CI", "COV_CORE_SOURCE")
    }
    env["COLUMNS"] = "80"
    if ci:
        env["CI"] = "true"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", *flags],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


def diagnosed(log: str) -> dict[str, str]:
    doc = diagnose_text(log).document()
    return {s["test"]: s["signature"] for s in doc["signatures"]}


@pytest.mark.slow
@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: " ".join(f) or "default")
def test_diagnose_gives_each_failure_the_signature_run_gives_it(project, flags):
    root, want = project
    got = diagnosed(pytest_output(root, *flags))
    if "--tb=native" in flags:
        want = {t: s for t, s in want.items() if t != NATIVE_SHOWS_HIDDEN}
    if "-q" in flags:
        want = {t: s for t, s in want.items() if t != NEEDS_ROOTDIR}
    assert {t: got.get(t) for t in want} == want


def test_a_github_actions_log_gives_the_signatures_run_gives(project):
    """Timestamps on every line, the checkout under /home/runner/work, CI set (pytest cuts
    no explanation), -q (no rootdir line to make paths relative with)."""
    root, want = project
    out = pytest_output(root, "-q", ci=True).replace(str(root), "/home/runner/work/calc/calc")
    log = "\n".join(
        [
            "2024-05-01T10:00:00.0000000Z ##[group]Run python -m pytest -q",
            "2024-05-01T10:00:00.0000000Z python -m pytest -q",
            "2024-05-01T10:00:00.0000000Z shell: /usr/bin/bash -e {0}",
            "2024-05-01T10:00:00.0000000Z ##[endgroup]",
            *(f"2024-05-01T10:00:01.{i:07d}Z {line}" for i, line in enumerate(out.splitlines())),
            "2024-05-01T10:00:02.0000000Z ##[error]Process completed with exit code 1.",
        ]
    )
    doc = diagnose_text(log).document()
    assert doc["class"] == "test"
    assert {s["test"]: s["signature"] for s in doc["signatures"]} == want


def test_a_different_failure_gets_a_different_signature(project):
    root, want = project
    got = diagnosed(pytest_output(root))
    # the same frame (calc/ops.py:lookup) and type, another key
    key_b = got["tests/test_kinds.py::test_key_error"]
    key_c = got["tests/test_kinds.py::test_key_error_other_key"]
    assert key_b.split("#")[0] == key_c.split("#")[0] == "KeyError@src/calc/ops.py:lookup"
    assert key_b != key_c
    # every kind is told apart; only the two cases of one parametrized test fail alike
    # (the numbers in a message are normalized)
    params = {t for t in want if "test_param[" in t}
    assert len({want[t] for t in params}) == 1
    others = [s for t, s in want.items() if t not in params]
    assert len(set(others)) == len(others)
    assert [got[t] for t in want] == list(want.values())


def test_a_log_without_tracebacks_names_the_failures_without_signatures(project):
    """``--tb=line`` shows where each exception was raised but not in which function: a
    signature without its frame would never compare with run's, so there is none."""
    root, want = project
    doc = diagnose_text(pytest_output(root, "--tb=line", "-rf")).document()
    assert doc["class"] == "test"
    assert set(want) - {t for t in want if "test_setup_error" in t} <= set(doc["failing_tests"])
    assert doc["signatures"] == []


@pytest.mark.slow
def test_the_explanation_of_a_comparison_does_not_count(project):
    """``-v`` prints a full diff, CI an untruncated one, the default a shorter one: the
    ``assert`` line is what every one of them shows."""
    root, want = project
    test = "tests/test_kinds.py::test_list_compare"
    default, verbose = pytest_output(root), pytest_output(root, "-vv")
    assert "Use -v to get more diff" in default and "Full diff" in verbose
    assert diagnosed(default)[test] == diagnosed(verbose)[test] == want[test]
    assert re.match(r"AssertionError@tests/test_kinds.py:test_list_compare#", want[test])
