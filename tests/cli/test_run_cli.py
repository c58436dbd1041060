"""`truegreen run` and `doctor` from the command line, bad inputs included."""

from __future__ import annotations

import json
import sys

import pytest

from tests.conftest import cli, live_processes_with
from truegreen.model.documents import validate


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
    assert code == 0
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
    assert code == 0  # a reproduction: the test errors in collection
    assert "ERROR" in out and "No module named 'no_such_module'" in out
    assert "a test module could not be collected" in out
    assert "called wrongly" not in out
