""" "Is this a test path?" decided once (truegreen.testpaths), and the tracer's stdlib-only
copy agreeing with it on every path."""

from __future__ import annotations

import pytest

from truegreen.localize._tracer import truegreen_trace as tracer
from truegreen.localize.spectrum import is_source
from truegreen.testpaths import is_test_code, is_test_data, is_test_module
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
