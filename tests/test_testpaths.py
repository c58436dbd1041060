""" "Is this a test path?" decided once (truegreen.testpaths), and the tracer's stdlib-only
copy agreeing with it on every path."""

from __future__ import annotations

import pytest

from truegreen.errors import UsageError
from truegreen.localize._tracer import truegreen_trace as tracer
from truegreen.localize.spectrum import is_source
from truegreen.testpaths import (
    check_test_ids,
    is_test_code,
    is_test_data,
    is_test_module,
)
from truegreen.testpaths import test_id_problem as problem_of  # not a test: not test_*
from truegreen.verify.tamper import ChangeSnapshot, analyze

#: path -> (a test module, test code, test data)
CASES = {
    "tests/test_x.py": (True, True, False),
    "test_x.py": (True, True, False),
    "pkg/x_test.py": (True, True, False),
    "mytests/test_x.py": (True, True, False),
    "conftest.py": (False, True, False),
    "tests/conftest.py": (False, True, False),
    "tests/helpers.py": (False, True, False),
    "tests/unit/deep/factories.py": (False, True, False),
    "src/pkg/testing/fixtures.py": (False, True, False),
    "src/pkg/tests/__init__.py": (False, True, False),
    "src\\pkg\\tests\\helpers.py": (False, True, False),
    "src/pkg/testing.py": (False, False, False),
    "src/pkg/test.py": (False, False, False),
    "tests.py": (False, False, False),
    "src/pkg/contest.py": (False, False, False),
    "src/pkg/latest_test_results.py": (False, False, False),
    "mytests/helper.py": (False, False, False),
    "Tests/helper.py": (False, False, False),
    "test_x.pyi": (False, False, False),
    # the case two copies of the rule disagreed on: not Python, not under a test directory
    "test_data.json": (False, False, False),
    "tests/test_data.json": (False, False, True),
    "tests/data/coupons.json": (False, False, True),
    "pkg/testing/golden.txt": (False, False, True),
    "tests/README.md": (False, False, True),
    "tests/__pycache__/test_x.cpython-311.pyc": (False, False, False),
    "data/test_data.csv": (False, False, False),
}


@pytest.mark.parametrize("path", CASES)
def test_the_rule(path: str) -> None:
    module, code, data = CASES[path]
    assert (is_test_module(path), is_test_code(path), is_test_data(path)) == (module, code, data)


@pytest.mark.parametrize("path", CASES)
def test_the_tracers_copy_agrees(path: str) -> None:
    assert tracer._is_test_rel(path) == is_test_code(path)


@pytest.mark.parametrize("path", CASES)
def test_localize_ranks_only_python_that_is_not_test_code(path: str) -> None:
    assert is_source(path) == (path.endswith(".py") and not CASES[path][1])


def test_a_test_module_is_test_code_and_test_code_is_never_data() -> None:
    for path, (module, code, data) in CASES.items():
        assert not module or code, path
        assert not (code and data), path


TEST = "import json\n\n\ndef test_a():\n    assert json.loads('1') == 1\n"


@pytest.mark.parametrize(
    ("path", "flagged"),
    [("tests/test_data.json", True), ("test_data.json", False), ("tests/data/x.csv", True)],
)
def test_the_tamper_layer_counts_test_data_by_the_rule(path: str, flagged: bool) -> None:
    base = {"tests/test_a.py": TEST.encode(), path: b"[1, 2]\n"}
    head = {**base, path: b"[1, 3]\n"}
    codes = {r.code for r in analyze(ChangeSnapshot(base, head))}
    assert ("tamper.test_data_changed" in codes) is flagged


@pytest.mark.parametrize(
    "test_id",
    [
        "tests",
        "tests/",
        "tests/test_x.py",
        "test_x.py::test_y",
        "tests/test_x.py::TestX::test_y",
        # parameters may hold anything but a line break: '-', spaces, '/', '=', '::', '..'
        "tests/test_x.py::test_y[-1]",
        "tests/test_x.py::test_y[a b/c=d-e]",
        "tests/test_x.py::test_y[--collect-only]",
        "tests/test_x.py::test_y[../../etc]",
        "tests/test_x.py::test_y[x::y]",
        "tests/test-data/test_x.py",
    ],
)
def test_paths_and_node_ids_are_test_ids(test_id: str) -> None:
    assert problem_of(test_id) is None
    check_test_ids([test_id])


@pytest.mark.parametrize(
    ("test_id", "problem"),
    [
        ("--collect-only", "starts with '-'"),
        ("--rootdir=/tmp", "starts with '-'"),
        ("-p", "starts with '-'"),
        ("-k", "starts with '-'"),
        ("-", "starts with '-'"),
        ("@args.txt", "file of arguments"),
        ("", "is empty"),
        ("   ", "is empty"),
        ("tests/test_x.py::t\n--rootdir=/tmp", "line break"),
        ("tests/test_x.py\0", "NUL"),
        ("/etc/passwd", "relative to the repository root"),
        ("/abs/tests/test_x.py::test_y", "relative to the repository root"),
        ("../other/tests", "relative to the repository root"),
        ("tests/../../x.py::t", "relative to the repository root"),
        ("..\\x.py::t", "relative to the repository root"),
        ("C:/x/test_x.py", "relative to the repository root"),
    ],
)
def test_options_argfiles_and_paths_outside_are_refused(test_id: str, problem: str) -> None:
    found = problem_of(test_id)
    assert found is not None and problem in found
    with pytest.raises(UsageError) as info:
        check_test_ids(["tests/test_ok.py", test_id], "scope")
    assert info.value.field == "scope"
    assert info.value.message.startswith(f"{test_id!r} is not a test id: ")
    assert "e.g. tests/test_x.py::test_y" in (info.value.hint or "")
