"""`truegreen flaky`: flips across repeats, order dependence, bad inputs."""

from __future__ import annotations

import json
import sys

import pytest

from tests.conftest import cli
from truegreen.flaky import _order_detail
from truegreen.model.documents import validate

FILES = {
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    ".gitignore": "count.txt\n",
    # passes, fails, passes... across runs: a counter kept in a git-ignored file
    "tests/test_flip.py": (
        "from pathlib import Path\n\nCOUNTER = Path(__file__).parent / 'count.txt'\n\n\n"
        "def test_flips():\n"
        "    n = int(COUNTER.read_text()) if COUNTER.exists() else 0\n"
        "    COUNTER.write_text(str(n + 1))\n"
        "    assert n % 2 == 0\n\n\n"
        "def test_stable():\n    assert 1 + 1 == 2\n"
    ),
    # test_needs_state passes only after test_setup_state (the module's order)
    "tests/test_order.py": (
        "STATE = []\n\n\ndef test_setup_state():\n    STATE.append(1)\n\n\n"
        "def test_needs_state():\n    assert STATE == [1]\n\n\n"
        "def test_pollutes():\n    STATE.append(2)\n"
    ),
}


@pytest.mark.slow
def test_a_flipping_and_an_order_dependent_test_are_found(make_project, capsys):
    root = make_project(FILES)
    args = ("--repo", str(root), "--python", sys.executable, "--sandbox", "none")
    code, out, err = cli(capsys, "flaky", *args, "--repeat", "2", "--json")
    assert code == 1, err
    doc = json.loads(out)
    validate(doc)
    assert doc["schema"] == "truegreen.flaky/1"
    assert doc["flaky"] == ["tests/test_flip.py::test_flips"]
    assert doc["order_dependent"] == ["tests/test_order.py::test_needs_state"]
    assert (doc["tests_run"], doc["stable"], doc["unchecked"]) == (5, 3, [])
    flip, order = doc["tests"]
    assert flip["outcomes"] == ["passed", "failed"]
    assert order["outcomes"] == ["passed", "passed"]
    assert (order["reversed"], order["alone"], order["module"]) == ("failed", "failed", "passed")
    assert order["detail"] == "failed alone, passed in its module"
    assert "duration" not in out  # no timings: the same outcomes give the same bytes
    assert "flaky: running the tests 2 times" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--repeat", "1"], "--repeat"),
        (["tests/test_a.py::test_nope"], "test_nope' does not exist"),
        (["--repo", "/no/such/dir"], "does not exist"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(make_project, capsys, monkeypatch, args, message):
    root = make_project({"tests/test_a.py": "def test_a():\n    pass\n"})
    monkeypatch.chdir(root)
    code, out, err = cli(capsys, "flaky", "--python", sys.executable, "--sandbox", "none", *args)
    assert code == 2
    assert out == ""
    assert message in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("together", "backwards", "alone", "module", "detail"),
    [
        # one outcome everywhere: not order-dependent
        ("passed", "passed", "passed", "passed", None),
        ("failed", "failed", "failed", "failed", None),
        ("passed", "passed", None, None, None),
        # a skip is not a failure
        ("passed", "skipped", None, None, None),
        # alone vs its module
        ("passed", "failed", "failed", "passed", "failed alone, passed in its module"),
        ("failed", "failed", "passed", "failed", "passed alone, failed in its module"),
        # alone vs the whole run, its module agreeing with neither side
        ("failed", "failed", "passed", None, "passed alone, failed with the other tests"),
        ("failed", "failed", None, "passed", "passed in its module, failed with the other tests"),
        # only the reverse order shows it
        (
            "passed",
            "failed",
            "passed",
            "passed",
            "passed in pytest's order, failed in the reverse order",
        ),
    ],
)
def test_order_detail(
    together: str, backwards: str, alone: str | None, module: str | None, detail: str | None
) -> None:
    assert _order_detail(together, backwards, alone, module) == detail
