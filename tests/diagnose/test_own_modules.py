"""An import of the project's OWN module that fails is the project's problem, not a
dependency's: which top-level modules and packages are the project's, learned from the
paths a log shows under its root (the rootdir's name without a version, traceback files,
`src/NAME/...`, `NAME.py` at the root, test ids), and the class and next step that follow.
Each log is written for the test in the shape pytest 8/9 and Python print (the first two as
pytest printed them for a copy of packaging 24.2's sdist and of parse)."""

from __future__ import annotations

import pytest

from truegreen.diagnose import diagnose_text
from truegreen.diagnose.classify import _VERSION_SUFFIX, _own_module
from truegreen.diagnose.exceptions import exception_class, own_missing_module


def _collect_error(rootdir: str, module: str, message: str, extra: str = "") -> str:
    """pytest's output for a test module whose import failed (an error in collection)."""
    return (
        "============================= test session starts ==============================\n"
        "platform linux -- Python 3.11.7, pytest-9.2.0, pluggy-1.7.0\n"
        f"rootdir: {rootdir}\n"
        "configfile: pyproject.toml\n"
        "collected 12 items / 1 error\n\n"
        "==================================== ERRORS ====================================\n"
        "______________________ ERROR collecting tests/test_own.py ______________________\n"
        f"ImportError while importing test module '{rootdir}/tests/test_own.py'.\n"
        "Hint: make sure your test modules/packages have valid Python names.\n"
        "Traceback:\n"
        "/root/.pyenv/versions/3.11.7/lib/python3.11/importlib/__init__.py:126: in import_module\n"
        "    return _bootstrap._gcd_import(name[level:], package, level)\n"
        "tests/test_own.py:1: in <module>\n"
        f"    import {module}\n"
        f"E   ModuleNotFoundError: {message}\n"
        f"{extra}"
        "=========================== short test summary info ============================\n"
        "ERROR tests/test_own.py\n"
        "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!\n"
        "=============================== 1 error in 0.53s ===============================\n"
    )


def _doc(text: str) -> dict:
    return diagnose_text(text).document()


# --- the reported cases -------------------------------------------------------------------


def test_an_sdist_directory_s_version_is_not_part_of_the_project_s_name():
    # packaging-24.2 (src layout): no path of the log names src/packaging
    log = _collect_error(
        "/tmp/r/packaging-24.2", "packaging.nosuch", "No module named 'packaging.nosuch'"
    )
    doc = _doc(log)
    assert doc["class"] == "test"
    assert "pin " not in doc["next_step"]
    assert doc["next_step"].startswith("fix the import of packaging.nosuch:")
    assert "python -m pytest tests/test_own.py" in doc["next_step"]


def test_a_single_module_project_is_known_from_its_module_at_the_root():
    # parse: parse.py at the root, a checkout whose directory says nothing; another test's
    # traceback passes through parse.py
    other = (
        "___________________________ test_two ___________________________\n"
        "tests/test_parse.py:9: in test_two\n"
        '    assert parse("{a} and {b}", "x and y") == {"a": "x", "b": "y"}\n'
        "parse.py:90: in parse\n"
        "    values = values[1:]\n"
        "E   IndexError: list index out of range\n"
    )
    log = _collect_error(
        "/build/checkout",
        "parse.nosuch",
        "No module named 'parse.nosuch'; 'parse' is not a package",
        extra=other,
    )
    doc = _doc(log)
    assert doc["class"] == "test"
    assert doc["next_step"].startswith("fix the import of parse.nosuch:")


def test_the_single_module_project_in_a_directory_of_its_version():
    log = _collect_error(
        "/tmp/r/parse-1.20.2",
        "parse.nosuch",
        "No module named 'parse.nosuch'; 'parse' is not a package",
    )
    assert _doc(log)["class"] == "test"


def test_the_project_s_own_package_missing_altogether_says_to_make_it_importable():
    log = _collect_error("/tmp/r/packaging-24.2", "packaging", "No module named 'packaging'")
    doc = _doc(log)
    assert doc["class"] == "test"
    assert "make the project's own package packaging importable" in doc["next_step"]
    assert "pip install -e ." in doc["next_step"]


# --- where the project's names are learned from -------------------------------------------


def test_a_failing_test_id_under_a_package_names_the_project():
    # the tests live inside the package (mypkg/tests/...): the test id shows it
    log = _collect_error("/x/checkout", "mypkg.nosuch", "No module named 'mypkg.nosuch'")
    log = log.replace("tests/test_own.py", "mypkg/tests/test_own.py")
    assert _doc(log)["class"] == "test"


def test_a_src_layout_file_in_a_program_s_traceback_names_the_project():
    # a script outside pytest: its traceback runs through src/tool/ in the CI checkout
    log = (
        "##[group]Run python -m tool.cli --check\n"
        "python -m tool.cli --check\n"
        "shell: /usr/bin/bash -e {0}\n"
        "##[endgroup]\n"
        "Traceback (most recent call last):\n"
        '  File "/home/runner/work/checkout/checkout/src/tool/cli.py", line 3, in <module>\n'
        "    from tool import nosuch\n"
        '  File "/home/runner/work/checkout/checkout/src/tool/__init__.py", line 1, in <module>\n'
        "    import tool.nosuch\n"
        "ModuleNotFoundError: No module named 'tool.nosuch'\n"
        "##[error]Process completed with exit code 1.\n"
    )
    doc = _doc(log)
    assert doc["class"] == "test"
    assert doc["next_step"] == (
        "fix the import of tool.nosuch: tool is the project's own module, so the module's "
        "name or its file is wrong, not a dependency; then rerun: python -m tool.cli --check"
    )


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("src/packaging/version.py", "packaging"),
        ("packaging/tags.py", "packaging"),
        ("parse.py", "parse"),
        ("./parse.py", "parse"),
        ("test_parse.py", "test_parse"),
        ("tests/test_x.py", None),  # the tests' directory is no module of the project's
        ("src/conftest.py", "conftest"),
        ("docs/conf.py", None),
        ("/usr/lib/python3.11/json/decoder.py", None),  # outside the root
        ("../other/mod.py", None),
        (".venv/lib/python3.11/site-packages/yaml/__init__.py", None),
        ("my-scripts/run.py", None),  # not a module name
        ("data/file.txt", None),
        ("src", None),
        ("", None),
    ],
)  # fmt: skip
def test_the_top_level_module_of_a_path_under_the_root(path, name):
    assert _own_module(path) == name


@pytest.mark.parametrize(
    ("directory", "name"),
    [
        ("packaging-24.2", "packaging"),
        ("attrs-23.1.0rc1", "attrs"),
        ("parse-1.20.2", "parse"),
        ("tool-v2", "tool"),
        ("pkg_1.0.post1", "pkg"),
        ("py3", "py3"),  # no separator: a name, not a version
        ("python-dateutil", "python-dateutil"),
        ("more-itertools-10.5.0", "more-itertools"),
    ],
)  # fmt: skip
def test_a_version_at_the_end_of_a_directory_s_name_is_removed(directory, name):
    assert _VERSION_SUFFIX.sub("", directory) == name


# --- what is still a dependency -------------------------------------------------------------


def test_another_package_missing_is_still_a_dependency():
    log = _collect_error("/tmp/r/packaging-24.2", "pyparsing", "No module named 'pyparsing'")
    doc = _doc(log)
    assert doc["class"] == "dependency"
    assert doc["next_step"].startswith("pin pyparsing ")


def test_a_name_that_only_starts_like_the_project_s_is_not_the_project_s():
    log = _collect_error("/tmp/r/myapp-1.0", "myapp_plugins", "No module named 'myapp_plugins'")
    assert _doc(log)["class"] == "dependency"


def test_a_library_s_frame_does_not_make_its_package_the_project_s():
    lib = (
        "___________________________ test_load ___________________________\n"
        "tests/test_load.py:4: in test_load\n"
        "    yaml.load(s)\n"
        "/opt/venv/lib/python3.11/site-packages/yaml/__init__.py:79: in load\n"
        "    loader = Loader(stream)\n"
        "E   ValueError: bad\n"
    )
    log = _collect_error("/x/app", "yaml.cyaml", "No module named 'yaml.cyaml'", extra=lib)
    assert _doc(log)["class"] == "dependency"


def test_a_standard_module_missing_is_still_the_interpreter_s():
    log = _collect_error("/tmp/r/tomllib-1.0", "distutils", "No module named 'distutils'")
    assert _doc(log)["class"] == "environment"


@pytest.mark.parametrize(
    ("message", "project", "own"),
    [
        ("No module named 'packaging.nosuch'", {"packaging"}, "packaging.nosuch"),
        ("No module named 'parse.x'; 'parse' is not a package", {"parse"}, "parse.x"),
        ("No module named packaging", {"packaging"}, "packaging"),
        ("No module named 'requests'", {"packaging"}, None),
        ("No module named 'packagingx'", {"packaging"}, None),
        ("No module named 'packaging'", set(), None),
        ("cannot import name 'x' from 'packaging'", {"packaging"}, None),
        ("", {"packaging"}, None),
    ],
)  # fmt: skip
def test_own_missing_module(message, project, own):
    assert own_missing_module(message, project) == own


def test_a_program_s_own_module_missing_is_the_project_s_code_too():
    # nothing to install: the project's code failed, whether a test or a program ran it
    for in_test in (True, False):
        cls = exception_class(
            "ModuleNotFoundError", "No module named 'tool.x'", {"tool"}, in_test=in_test
        )
        assert cls == "test"
