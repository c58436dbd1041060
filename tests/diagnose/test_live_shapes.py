"""Shapes of today's tools that the live corpus (tests/diagnose/live) showed the classifier
misread, each on a small GitHub Actions log written for this test in the tool's format."""

from __future__ import annotations

import pytest

from truegreen.diagnose import diagnose_text

_HEAD = "##[group]Run actions/checkout@v4\nwith:\n  fetch-depth: 1\n##[endgroup]\nSyncing repository: acme/app\n"


def _gha(command: str, body: str, code: int = 1) -> str:
    """A job log whose last step runs ``command``, prints ``body`` and exits with ``code``;
    the body starts at line 10."""
    return (
        f"{_HEAD}##[group]Run {command}\n{command}\nshell: /usr/bin/bash -e {{0}}\n##[endgroup]\n"
        f"{body}\n##[error]Process completed with exit code {code}.\n"
    )


def _doc(log: str) -> dict:
    return diagnose_text(log).document()


def _top(doc: dict, n: int = 3) -> list[int]:
    return [e["line"] for e in doc["evidence"][:n]]


@pytest.mark.parametrize(
    ("command", "body", "code"),
    [
        (
            "tox -e docs",
            "ROOT: HandledError| provided environments not found in configuration file:\ndocs",
            254,
        ),
        ("nox -s docs", "nox > Sessions not found: docs", 3),
        (
            'echo "release"\n: "${TWINE_PASSWORD:?}"',
            "release\n/home/runner/work/_temp/a1b2.sh: line 2: TWINE_PASSWORD: parameter null or"
            " not set",
            1,
        ),
        ("./deploy.sh", "./deploy.sh: line 7: DEPLOY_HOST: unbound variable", 1),
        (
            "ruff check .",
            "ruff failed\n  Cause: Unknown rule selector `ABC9` in `select` from `/w/ruff.toml`",
            2,
        ),
    ],
)
def test_a_task_or_setting_the_job_names_but_does_not_define_is_configuration(command, body, code):
    doc = _doc(_gha(command, body, code))
    assert doc["class"] == "configuration", doc["evidence"][:3]
    first_body_line = 10 + command.count("\n")
    assert any(n >= first_body_line for n in _top(doc))


def test_python_dash_m_of_a_module_that_is_not_installed_is_a_dependency_failure():
    body = "/opt/hostedtoolcache/Python/3.12.1/x64/bin/python: No module named mypy"
    doc = _doc(_gha("python -m mypy src", body))
    assert doc["class"] == "dependency"
    assert 10 in _top(doc)


def test_a_strict_xfail_that_passed_is_the_line_of_its_failure_block():
    body = (
        "..F                                                                      [100%]\n"
        "=================================== FAILURES ===================================\n"
        "_________________________________ test_known __________________________________\n"
        "[XPASS(strict)] issue 12 is not fixed yet\n"
        "1 failed, 2 passed in 0.11s"
    )
    doc = _doc(_gha("pytest -q", body))
    assert doc["class"] == "test"
    assert 13 in _top(doc)


_COLLECTION_ERROR = """\
==================================== ERRORS ====================================
___________________ ERROR collecting tests/test_orders.py ___________________
ImportError while importing test module '/home/runner/work/app/app/tests/test_orders.py'.
Hint: make sure your test modules/packages have valid Python names.
Traceback:
tests/test_orders.py:1: in <module>
    from {module} import {name}
E   ImportError: cannot import name '{name}' from '{module}' ({path})
=========================== short test summary info ============================
ERROR tests/test_orders.py
1 error in 0.12s"""


@pytest.mark.parametrize(
    ("module", "path", "cls"),
    [
        ("app.orders", "/home/runner/work/app/app/src/app/orders.py", "test"),
        (
            "attr.validators",
            "/opt/hostedtoolcache/Python/3.12.1/x64/lib/python3.12/site-packages/attr/validators.py",
            "dependency",
        ),
    ],
)
def test_cannot_import_name_is_read_by_the_file_python_names(module, path, cls):
    body = _COLLECTION_ERROR.format(module=module, name="total_due", path=path)
    assert _doc(_gha("pytest -q", body, 2))["class"] == cls


def test_the_source_listing_of_a_pytest_failure_block_is_code_not_evidence():
    body = """\
=================================== FAILURES ===================================
_________________________________ test_codec __________________________________

    def load(name):
        \"\"\"Load a codec.

        The name is presented to dlopen() as a file argument.
        \"\"\"
>       return ctypes.CDLL(name)
E       OSError: libcodec.so.2: cannot open shared object file: No such file or directory

/opt/hostedtoolcache/Python/3.12.1/x64/lib/python3.12/ctypes/__init__.py:379: OSError
=========================== short test summary info ============================
FAILED tests/test_codec.py::test_codec - OSError: libcodec.so.2: cannot open shared object
1 failed in 0.12s"""
    doc = _doc(_gha("pytest -q", body))
    assert doc["class"] == "environment"
    assert 16 not in [e["line"] for e in doc["evidence"]]  # the docstring's dlopen() line
    assert 19 in _top(doc)  # the E line


def test_the_diagnostic_above_a_location_pointer_is_evidence():
    body = """\
E711 Comparison to `None` should be `cond is None`
 --> src/app/util.py:11:13
   |
11 |     if data == None:
   |             ^^^^^^^
help: Replace with `cond is None`

Found 1 error.
No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option)."""
    doc = _doc(_gha("ruff check .", body))
    assert doc["class"] == "lint"
    assert 10 in _top(doc)


def test_a_verbose_test_that_never_reported_is_the_one_running_when_the_process_ended():
    body = """\
collecting ... collected 3 items

tests/test_a.py::test_fast PASSED                                        [ 33%]
tests/test_a.py::test_waits_for_peer{space}
+++++++++++++++++++++++++++++++++++ Timeout ++++++++++++++++++++++++++++++++++++
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~ Stack of MainThread (140302) ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
  File "/home/runner/work/app/app/tests/test_a.py", line 9, in test_waits_for_peer
    time.sleep(30)
+++++++++++++++++++++++++++++++++++ Timeout ++++++++++++++++++++++++++++++++++++""".format(
        space=" "
    )
    doc = _doc(_gha("pytest -v --timeout=5 --timeout-method=thread", body))
    assert doc["failing_tests"] == ["tests/test_a.py::test_waits_for_peer"]
    assert doc["class"] == "timeout"


def test_a_test_whose_session_finished_is_not_taken_for_one_cut_short():
    body = """\
tests/test_a.py::test_prints hello from the test
PASSED
tests/test_a.py::test_b FAILED                                           [100%]
=========================== short test summary info ============================
FAILED tests/test_a.py::test_b - assert 1 == 2
========================= 1 failed, 1 passed in 0.05s ========================="""
    doc = _doc(_gha("pytest -v -s", body))
    assert doc["failing_tests"] == ["tests/test_a.py::test_b"]


@pytest.mark.parametrize(
    ("command", "body", "cls", "line"),
    [
        (
            "pip check",
            "pytest 8.3.3 requires pluggy, which is not installed.\nrequests 2.31.0 has requirement"
            " idna<4, but you have idna 4.1.",
            "dependency",
            10,
        ),
        (
            "pylint --output-format=parseable src",
            "************* Module app.util\nsrc/app/util.py:12: [E0602(undefined-variable), load]"
            " Undefined variable 'x'",
            "lint",
            11,
        ),
        (
            "python -m pytest -o faulthandler_timeout=60 -v",
            "tests/test_a.py::test_sync Timeout (0:01:00)!\nThread 0x00007f3a2c1b9e40 (most recent"
            ' call first):\n  File "/w/tests/test_a.py", line 5 in test_sync',
            "timeout",
            10,
        ),
    ],
)
def test_more_tool_shapes(command, body, cls, line):
    doc = _doc(_gha(command, body))
    assert doc["class"] == cls, doc["evidence"][:3]
    assert line in _top(doc)


_PIP_BUILD = """\
Obtaining file:///home/runner/work/app/app
  Installing build dependencies: started
  Installing build dependencies: finished with status 'done'
  Getting requirements to build editable: started
  Getting requirements to build editable: finished with status 'error'
  error: subprocess-exited-with-error

  × Getting requirements to build editable did not run successfully.
  │ exit code: 1
  ╰─> [5 lines of output]
      Traceback (most recent call last):
        File "/opt/hostedtoolcache/Python/3.12.1/x64/lib/python3.12/site-packages/pip/hooks.py", line 9, in main
          exec(code, locals())
        File "<string>", line 3, in <module>
      NameError: name 'VERSION' is not defined
      [end of output]

  note: This error originates from a subprocess, and is likely not a problem with pip.
error: subprocess-exited-with-error"""


def test_a_wheel_that_fails_to_build_in_an_install_of_the_project_itself_is_build():
    doc = _doc(_gha("python -m pip install -e .", _PIP_BUILD))
    assert doc["class"] == "build"
    assert 24 in _top(doc)  # the NameError under a frame that shows no source


def test_the_same_failure_installing_a_named_package_stays_dependency():
    doc = _doc(_gha("python -m pip install oldpkg==0.3", _PIP_BUILD))
    assert doc["class"] == "dependency"


def test_a_step_that_printed_nothing_is_explained_by_its_exit_not_by_its_header():
    log = _gha("black --check -q .", "").replace("##[endgroup]\n\n", "##[endgroup]\n")
    doc = _doc(log)
    assert doc["class"] == "lint"
    assert _top(doc, 1) == [10]  # the exit line, not the script or `shell:` above it


# --- round 3 (read as dev after round 4 was written and measured) -----------------------


@pytest.mark.parametrize(
    ("command", "body"),
    [
        (
            "pytest -c ci/pytest.ini",
            "ERROR: Config file '/w/ci/pytest.ini' not found. Check your '-c/--config-file' option.",
        ),
        ("python -m pytest -q", "ERROR: some option pytest does not know about: --frobnicate"),
    ],
)
def test_pytest_exiting_with_its_usage_status_is_configuration(command, body):
    doc = _doc(_gha(command, body, 4))
    assert doc["class"] == "configuration", doc["reasons"]


def test_pytest_exiting_with_1_keeps_its_test_prior():
    doc = _doc(_gha("pytest -q", "ERROR: something pytest printed before failing", 1))
    assert doc["class"] != "configuration"


@pytest.mark.parametrize(
    "body",
    [
        "ERROR: Error importing plugin \"pytest_httpserver\": No module named 'pytest_httpserver'",
        "ImportError: Error importing plugin \"xdist.looponfail\": No module named 'execnet'",
    ],
)
def test_pytest_that_cannot_import_a_plugin_is_a_dependency_failure(body):
    doc = _doc(_gha("pytest", body, 4))
    assert doc["class"] == "dependency", doc["reasons"]


@pytest.mark.parametrize(
    "body",
    [
        "DEPLOY_TOKEN must be set",
        "error: SHOP_API_URL is required.",
        "fatal: GITHUB_TOKEN is not set; cannot publish",
    ],
)
def test_a_script_refusing_to_run_without_a_variable_is_configuration(body):
    doc = _doc(_gha("python scripts/deploy.py", "starting deploy\n" + body))
    assert doc["class"] == "configuration", doc["reasons"]
    assert 11 in _top(doc)


def test_a_test_title_that_says_a_constant_must_be_set_is_not_a_variable():
    body = "Bug #73783: (SIG_IGN needs to be set to prevent syscalls from returning early)\nFAIL"
    doc = _doc(_gha("make test", body))
    assert doc["class"] != "configuration"


@pytest.mark.parametrize(
    ("command", "body"),
    [
        (
            "tox -e py399",
            "py399: failed with could not find python interpreter matching any of the specs py399\n"
            "  py399: FAIL code 1 (0.42 seconds)\n  evaluation failed :( (0.42 seconds)",
        ),
        (
            "nox -s tests",
            "nox > Running session tests\nnox > Session tests failed: Python interpreter 3.99 not found.",
        ),
        ("tox -e py27", "ERROR: InterpreterNotFound: python2.7"),
        (
            "uv venv -p 3.99",
            "error: No interpreter found for Python 3.99 in managed installations or search path",
        ),
    ],
)
def test_an_interpreter_the_environment_manager_cannot_find_is_environment(command, body):
    doc = _doc(_gha(command, body))
    assert doc["class"] == "environment", doc["reasons"]
