"""Is this a test path? The one rule, decided from a path alone.

DESIGN.md: the tests are the files pytest collects, and the data files under the test
directory are what existing tests read (``tamper.test_data_changed``). A path (relative
to the repository root, forward slashes; backslashes are read as slashes) is:

* a **test module** (:func:`is_test_module`): a Python file pytest collects with its
  default ``python_files``, ``test_*.py`` or ``*_test.py``, wherever it is. ``conftest.py``
  is not one.
* **test code** (:func:`is_test_code`): a Python file that belongs to the tests, not to
  the code under test: a test module, a ``conftest.py``, or any ``.py`` file under a
  test directory (a directory named one of :data:`TEST_DIRS`, at any depth: the helpers
  the tests import). Test code is never mutated for strength, never ranked by localize,
  and never the project frame a failure's signature names.
* **test data** (:func:`is_test_data`): a file that is not Python (source or bytecode,
  nothing in ``__pycache__``) under a test directory. The tamper layer leaves out
  documentation there and also counts a data file elsewhere that a base test names.

So ``tests/test_data.json`` is test data, ``test_data.json`` at the root is neither (not
Python, not under a test directory), ``tests/helpers.py`` is test code but not a test
module, and ``src/pkg/testing.py`` is the code under test.

A project that changes ``python_files`` is not read here: the rule is pytest's default.
The tracer (``localize/_tracer/truegreen_trace.py``, stdlib-only, run where truegreen is
not installed) keeps a copy of :func:`is_test_code`; tests/test_testpaths.py runs both on
the same paths.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from truegreen.errors import UsageError

#: directory names whose contents belong to the tests
TEST_DIRS = frozenset({"tests", "test", "testing"})


def _parts(path: str) -> list[str]:
    return path.replace("\\", "/").split("/")


def is_test_module(path: str) -> bool:
    """A file pytest collects tests from: ``test_*.py`` or ``*_test.py``."""
    name = _parts(path)[-1]
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def is_conftest(path: str) -> bool:
    return _parts(path)[-1] == "conftest.py"


def in_test_dir(path: str) -> bool:
    """Whether a directory on the path (not the file itself) is a test directory."""
    return any(part in TEST_DIRS for part in _parts(path)[:-1])


def is_test_code(path: str) -> bool:
    """A Python file of the tests: a test module, a conftest.py, or one in a test directory."""
    return path.endswith(".py") and (is_test_module(path) or is_conftest(path) or in_test_dir(path))


def is_test_data(path: str) -> bool:
    """A file that is not Python (source or bytecode), under a test directory."""
    return (
        not path.endswith((".py", ".pyc"))
        and "__pycache__" not in _parts(path)
        and in_test_dir(path)
    )


#: an absolute path's start: ``/``, ``\\``, or a drive (``C:``)
_ABSOLUTE = re.compile(r"^(?:[/\\]|[A-Za-z]:)")


def test_id_problem(test_id: str) -> str | None:
    """What keeps ``test_id`` from being given to pytest as a test (None: nothing).

    A test id is a path relative to the repository root (a directory, a test file) or a
    node id (``tests/test_x.py::TestX::test_y[param]``): it must not be empty, must not
    start with ``-`` (pytest would read it as one of its options: ``--collect-only``,
    ``--rootdir=/tmp``, ``-p no:python``) or ``@`` (a file of arguments), must hold no line
    break (many ids go to pytest through such a file, one a line), and its path, the part
    before the first ``::``, must stay inside the repository (relative, no ``..``). What
    follows ``::`` (names, parameters) may hold anything else: ``-``, spaces, ``/``, ``=``.
    """
    if not test_id.strip():
        return "is empty"
    if test_id.startswith("-"):
        return "starts with '-': pytest would read it as an option, not a test"
    if test_id.startswith("@"):
        return "starts with '@': pytest would read it as a file of arguments, not a test"
    if any(c in test_id for c in "\n\r\0"):
        return "holds a line break or a NUL character: no test id does"
    path = test_id.partition("::")[0]
    if _ABSOLUTE.match(path) or ".." in _parts(path):
        return "its path must be relative to the repository root, inside it"
    return None


def check_test_ids(test_ids: Iterable[str], field: str = "test_ids") -> None:
    """Refuse the first of ``test_ids`` that is not a test id (:func:`test_id_problem`),
    with a :class:`~truegreen.errors.UsageError` about ``field``."""
    for test_id in test_ids:
        problem = test_id_problem(test_id)
        if problem is not None:
            raise UsageError(
                f"{test_id!r} is not a test id: {problem}",
                hint="give pytest node ids or test paths relative to the repository root, "
                "e.g. tests/test_x.py::test_y or tests/ (pytest's own options are not passed on)",
                field=field,
            )
