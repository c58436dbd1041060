"""`truegreen run` and `doctor` from the command line, bad inputs included."""

from __future__ import annotations

import json
import sys

import pytest

from tests.conftest import cli, live_processes_with
from truegreen.model.documents import validate


@pytest.mark.slow
def test_run_json_is_one_document_with_the_rerun_command(make_project, capsys):
    root = make_project({"tests/test_a.py": "def test_a():\n    assert 1 + 1 == 3\n"})
    code, out, _ = cli(
        capsys,
        "run",
        "tests/test_a.py::test_a",
        "--repo",
        str(root),
        "--python",
        sys.executable,
        "--repeat",
        "2",
        "--json",
    )
    assert code == 1  # the reproduced test fails: pytest's status
    doc = json.loads(out)
    assert doc["schema"] == "truegreen.run/1"
    validate(doc)
    assert doc["command"][1:3] == ["-m", "pytest"]
    assert doc["command"][-1] == "tests/test_a.py::test_a"
    (test,) = doc["tests"]
    assert test["outcome"] == "failed"
    assert test["outcomes"] == ["failed", "failed"]
    assert test["stable"] is True
    assert test["signature"].startswith("AssertionError@tests/test_a.py:test_a#")
    assert "assert" in test["excerpt"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "t::x", "--repo", "/no/such/dir"], "does not exist"),
        (["run", "t::x", "--python", "/no/such/python"], "does not exist"),
        (["run", "tests/test_a.py::test_nope"], "does not exist"),
        (["run", "tests/test_a.py::test_a", "--repeat", "0"], ""),
    ],
)
def test_bad_input_is_one_line_and_exit_2(make_project, capsys, monkeypatch, args, message):
    root = make_project({"tests/test_a.py": "def test_a():\n    pass\n"})
    monkeypatch.chdir(root)
    code, out, err = cli(capsys, *args)
    assert code == 2
    assert out == ""
    assert message in err
    assert "Traceback" not in err


def test_python_without_pytest_is_refused(make_project, capsys, tmp_path):
    import venv

    env_dir = tmp_path / "bare"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    root = make_project({"tests/test_a.py": "def test_a():\n    pass\n"})
    code, _, err = cli(
        capsys,
        "run",
        "tests/test_a.py::test_a",
        "--repo",
        str(root),
        "--python",
        str(env_dir / "bin" / "python"),
    )
    assert code == 2
    assert "has no pytest" in err and "pip install pytest" in err


def test_doctor_reports_what_is_missing(make_project, capsys):
    root = make_project({"tests/test_a.py": "def test_a():\n    pass\n"})
    code, out, _ = cli(capsys, "doctor", "--repo", str(root), "--json")
    assert code == 0
    doc = json.loads(out)
    names = {c["name"]: c for c in doc["checks"]}
    assert names["git"]["status"] == "ok"
    assert names["project interpreter"]["status"] == "ok"


def test_version(capsys):
    code, out, _ = cli(capsys, "--version")
    assert code == 0 and out.startswith("truegreen ")


def test_run_past_its_timeout_exits_2_and_leaves_nothing(make_project, capsys, process_tag):
    root = make_project(
        {"tests/test_slow.py": "import time\n\n\ndef test_slow():\n    time.sleep(60)\n"}
    )
    args = ("tests/test_slow.py::test_slow", "--repo", str(root), "--python", sys.executable)
    code, out, err = cli(capsys, "run", *args, "--sandbox", "none", "--timeout", "1")
    assert code == 2
    assert "NO_REPORT" in out  # what was seen is still shown
    assert "passed its deadline and was killed after 1 s" in err and "--timeout" in err
    assert live_processes_with(process_tag) == []
    code, out, err = cli(capsys, "run", *args, "--sandbox", "none", "--timeout", "1", "--json")
    assert code == 2 and json.loads(out)["complete"] is False


def test_run_of_a_module_that_cannot_be_imported_says_so(make_project, capsys):
    root = make_project({"tests/test_b.py": "import no_such_module\n\n\ndef test_b():\n    pass\n"})
    code, out, err = cli(
        capsys, "run", "tests/test_b.py::test_b", "--repo", str(root), "--python", sys.executable
    )
    assert code == 1  # a reproduction: the test errors in collection, which is not a pass
    assert "ERROR" in out and "No module named 'no_such_module'" in out
    assert "a test module could not be collected" in out
    assert "called wrongly" not in out


RUN_EXIT = """
import os
from pathlib import Path

import pytest


def test_pass():
    pass


def test_fail():
    assert False


def test_error(broken):
    pass


@pytest.fixture
def broken():
    raise RuntimeError("setup")


def test_skip():
    pytest.skip("not here")


@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False


@pytest.mark.xfail(reason="fixed since")
def test_xpass():
    pass


def test_exit():
    os._exit(3)


class TestGroup:
    def test_one(self):
        pass

    @pytest.mark.parametrize("x", [1, 2])
    def test_p(self, x):
        pass


def test_flaky():
    # fails on the first run only: `run` runs in the repository (this test's tmp_path)
    marker = Path("flaky-marker")
    if not marker.exists():
        marker.write_text("x")
        assert False
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("ids", "code"),
    [
        (["test_pass"], 0),
        (["test_pass", "test_skip", "test_xfail", "test_xpass"], 0),  # none is a failure
        (["test_pass", "test_fail"], 1),
        (["test_error"], 1),
        (["test_exit"], 1),  # no_report: never a pass
        # a class, a parametrized function: the tests they stand for, all passing
        (["TestGroup", "TestGroup::test_p"], 0),
    ],
)
def test_run_exits_as_pytest_does(make_project, capsys, ids, code):
    root = make_project({"tests/test_e.py": RUN_EXIT})
    args = [f"tests/test_e.py::{name}" for name in ids]
    common = ("--repo", str(root), "--python", sys.executable, "--sandbox", "none")
    got, out, err = cli(capsys, "run", *args, *common)
    assert got == code, out + err
    got, out, _ = cli(capsys, "run", *args, *common, "--json")
    assert got == code and json.loads(out)["schema"] == "truegreen.run/1"


@pytest.mark.slow
def test_a_test_that_fails_in_one_of_the_repeats_exits_1(make_project, capsys):
    root = make_project({"tests/test_e.py": RUN_EXIT})
    code, out, _ = cli(
        capsys, "run", "tests/test_e.py::test_flaky", "--repo", str(root),
        "--python", sys.executable, "--sandbox", "none", "--repeat", "2", "--json",
    )  # fmt: skip
    (test,) = json.loads(out)["tests"]
    assert test["outcomes"] == ["failed", "passed"]
    assert code == 1


def test_a_run_where_no_test_ran_is_an_error_not_a_pass(make_project, capsys):
    root = make_project(
        {
            "tests/test_none.py": "def helper():\n    pass\n",
            "tests/test_a.py": "def test_a():\n    pass\n",
        }
    )
    code, out, err = cli(
        capsys, "run", "tests/test_none.py", "--repo", str(root), "--python", sys.executable,
        "--sandbox", "none",
    )  # fmt: skip
    assert code == 2
    assert "no test ran for tests/test_none.py" in err and "nothing was reproduced" in err
    assert "--collect-only" in err
