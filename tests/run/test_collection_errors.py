"""A test whose module (or a conftest.py on its path) cannot be imported: the run says
which file failed and its error, under every pytest, never "test id does not exist".

Found with a generated, git-ignored ``pkg/_version.py`` missing: pytest 7 answers a node
id in a module that fails to import with "ERROR: not found" (exit 4), and a conftest.py
that fails to import stops pytest before any plugin is configured (the probe wrote
nothing, and the test looked like a crash).
"""

from __future__ import annotations

import pytest

from tests.conftest import TARGET_PYTHON, venv_with
from truegreen.run.interpreter import resolve
from truegreen.run.pytest_run import (
    PytestRequest,
    UnknownTestError,
    conftest_errors,
    covers,
    run_pytest,
)

#: a package whose __init__ imports a module that is not there (git ignores it)
PKG = {
    "pkg/__init__.py": "from pkg._version import version\n",
    "tests/test_core.py": "import pkg\n\n\ndef test_core():\n    assert pkg.version\n",
}
MISSING = "ModuleNotFoundError: No module named 'pkg._version'"


def _run(root, *ids, python=TARGET_PYTHON):
    interp = resolve(str(python), root)
    return run_pytest(PytestRequest(repo=root, interpreter=interp, test_ids=ids, timeout=120))


@pytest.mark.slow
@pytest.mark.parametrize("pytest_spec", [None, "pytest>=7.4,<8"])
def test_an_id_in_a_module_that_cannot_be_imported_is_that_error(make_project, pytest_spec):
    python = TARGET_PYTHON if pytest_spec is None else venv_with(pytest_spec)
    root = make_project(PKG)
    result = _run(root, "tests/test_core.py::test_core", python=python)
    got = result.by_id()["tests/test_core.py::test_core"]
    assert (got.outcome, got.phase, got.exc_type) == ("error", "collect", "ModuleNotFoundError")
    assert got.reason == f"tests/test_core.py could not be collected: {MISSING}"


@pytest.mark.parametrize("pytest_spec", [None, "pytest>=7.4,<8"])
def test_an_unknown_id_is_still_unknown_next_to_a_module_that_cannot_be_imported(
    make_project, pytest_spec
):
    python = TARGET_PYTHON if pytest_spec is None else venv_with(pytest_spec)
    root = make_project(PKG)
    with pytest.raises(UnknownTestError, match=r"tests/test_gone\.py"):
        _run(root, "tests/test_core.py::test_core", "tests/test_gone.py::test_x", python=python)


def test_a_conftest_that_cannot_be_imported_is_named_with_its_error(make_project):
    root = make_project({**PKG, "tests/conftest.py": "import pkg\n"})
    result = _run(root, "tests/test_core.py::test_core")
    got = result.by_id()["tests/test_core.py::test_core"]
    assert got.outcome == "error" and got.phase == "collect"
    assert got.reason == f"tests/conftest.py could not be imported: {MISSING}"
    assert [c.nodeid for c in result.collection_errors] == ["tests/conftest.py"]
    assert "import pkg" in result.collection_errors[0].excerpt


def test_conftest_errors_are_read_from_pytests_output():
    text = (
        "ImportError while loading conftest '/r/tests/conftest.py'.\n"
        "tests/conftest.py:1: in <module>\n"
        "    import pkg\n"
        "E   ModuleNotFoundError: No module named 'pkg._version'\n"
        "some later line\n"
    )
    (found,) = conftest_errors(text, "/r")
    assert found.nodeid == "tests/conftest.py"
    assert (
        found.excerpt.splitlines()[-1] == "E   ModuleNotFoundError: No module named 'pkg._version'"
    )
    assert conftest_errors("nothing of the kind\n", "/r") == ()


@pytest.mark.parametrize(
    ("nodeid", "test_id", "expected"),
    [
        # the module itself
        ("tests/test_a.py", "tests/test_a.py::test_x", True),
        ("tests/test_a.py", "tests/test_ab.py::test_x", False),
        # a conftest.py covers the tests below its directory
        ("tests/conftest.py", "tests/sub/test_a.py::t", True),
        ("tests/conftest.py", "other/test_a.py::t", False),
        ("conftest.py", "anything/test_a.py::t", True),
        # a package (its directory or its __init__.py)
        ("tests/sub", "tests/sub/test_a.py::t", True),
        ("tests/sub/__init__.py", "tests/sub/test_a.py::t", True),
        ("tests/sub", "tests/subway/test_a.py::t", False),
        # the session
        ("", "tests/test_a.py::t", True),
    ],
)
def test_which_tests_a_collection_error_covers(nodeid, test_id, expected):
    assert covers(nodeid, test_id) is expected
