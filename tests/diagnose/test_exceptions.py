"""The taxonomy of Python exceptions (exceptions.py) and the mechanisms that use it: a
program's uncaught exception, a chained exception in a test, the order of failing GitHub
Actions steps, GNU timeout's exit statuses, a failing step's words when nothing else says
why, and the confidence of a class that only those say. Each log is written for the test in
the shape the tool prints."""

from __future__ import annotations

import pytest

from truegreen.diagnose import diagnose_text
from truegreen.diagnose.exceptions import exception_class, parse_exception_line


@pytest.mark.parametrize(
    "text,parsed",
    [
        ("json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
         ("json.decoder.JSONDecodeError", "Expecting value: line 1 column 1 (char 0)")),
        ("socket.gaierror: [Errno -2] Name or service not known",
         ("socket.gaierror", "[Errno -2] Name or service not known")),
        ("MemoryError", ("MemoryError", "")),
        ("locale.Error: unsupported locale setting", ("locale.Error", "unsupported locale setting")),
        ("Error: Process completed with exit code 1.", None),  # a tool's prefix
        ("ValueError", None),  # bare: only the few that print no message
        ("collected 3 items", None),
        ("    raise ValueError(msg)", None),
    ],
)  # fmt: skip
def test_an_exception_line_is_read_as_python_prints_it(text, parsed):
    assert parse_exception_line(text) == parsed


@pytest.mark.parametrize(
    "exc,msg,in_test,raised_in,cls",
    [
        # the network: client libraries by their module, the socket layer by its type
        ("requests.exceptions.ConnectionError", "HTTPSConnectionPool(host='x.invalid')", False, None, "network"),
        ("httpx.ConnectError", "[Errno -2] Name or service not known", True, None, "network"),
        ("ssl.SSLCertVerificationError", "certificate verify failed", True, None, "network"),
        ("ConnectionRefusedError", "[Errno 111] Connection refused to 127.0.0.1:5432", True, None, "environment"),
        ("requests.exceptions.MissingSchema", "Invalid URL '/health': No scheme supplied", False, None, "configuration"),
        # time limits
        ("subprocess.TimeoutExpired", "Command 'x' timed out after 5 seconds", False, None, "timeout"),
        ("TimeoutError", "", True, None, "timeout"),
        # configuration: a decoder of a config format, settings libraries, os.environ
        ("tomllib.TOMLDecodeError", "Expected '=' after a key", False, None, "configuration"),
        ("yaml.parser.ParserError", "while parsing a block mapping", False, None, "configuration"),
        ("configparser.NoSectionError", "No section: 'db'", False, None, "configuration"),
        ("ValueError", "invalid literal for int() with base 10: 'x'", False, "/usr/lib/python3.12/configparser.py", "configuration"),
        ("pydantic_settings.exceptions.SettingsError", "error parsing value", False, None, "configuration"),
        ("KeyError", "'DATABASE_URL'", True, None, "configuration"),
        # the same decoder error inside a test is about the test's data
        ("json.decoder.JSONDecodeError", "Expecting value", True, None, "test"),
        # the machine: errno, memory, permissions, locale, encodings, missing programs
        ("OSError", "[Errno 28] No space left on device", False, None, "infrastructure"),
        ("MemoryError", "", False, None, "infrastructure"),
        ("OSError", "[Errno 24] Too many open files: '/tmp/x'", False, None, "environment"),
        ("PermissionError", "[Errno 13] Permission denied: '/var/cache/x'", False, None, "environment"),
        ("locale.Error", "unsupported locale setting", False, None, "environment"),
        ("UnicodeEncodeError", "'ascii' codec can't encode character", False, None, "environment"),
        ("FileNotFoundError", "[Errno 2] No such file or directory: 'convert'", False, "/usr/lib/python3.12/subprocess.py", "environment"),
        # imports: a standard module (the interpreter), a library, the project itself
        ("ModuleNotFoundError", "No module named 'distutils'", True, None, "environment"),
        ("ModuleNotFoundError", "No module named 'attr'", False, None, "dependency"),
        # (the project's own module: its code failed, in a test or a program it ran)
        ("ModuleNotFoundError", "No module named 'shop.cart'", False, None, "test"),
        ("ModuleNotFoundError", "No module named 'shop.cart'; 'shop' is not a package", True, None, "test"),
        ("importlib.metadata.PackageNotFoundError", "No package metadata was found for shop", True, None, "dependency"),
        # a type that says nothing in particular
        ("ValueError", "could not convert string to float: 'x'", False, None, None),
        ("AssertionError", "assert 1 == 2", True, None, "test"),
    ],
)  # fmt: skip
def test_the_taxonomy(exc, msg, in_test, raised_in, cls):
    got = exception_class(exc, msg, {"shop"}, in_test=in_test, raised_in=raised_in)
    assert got == cls


def _gha(*steps: tuple[str, str, int | None]) -> str:
    out = []
    for cmd, body, code in steps:
        out += [f"##[group]Run {cmd}", cmd, "shell: /usr/bin/bash -e {0}", "##[endgroup]", body]
        if code:
            out.append(f"##[error]Process completed with exit code {code}.")
    return "\n".join(out) + "\n"


def _doc(log: str) -> dict:
    return diagnose_text(log).document()


def test_a_scripts_uncaught_exception_is_classed_by_its_type():
    log = _gha(
        (
            "python -m app.settings",
            'Traceback (most recent call last):\n  File "/w/app/settings.py", line 4, in <module>\n'
            "    SETTINGS = tomllib.loads(text)\n"
            "tomllib.TOMLDecodeError: Invalid value (at line 2, column 9)",
            1,
        )
    )
    doc = _doc(log)
    assert doc["class"] == "configuration"
    assert doc["evidence"][0]["text"].startswith("tomllib.TOMLDecodeError")


def test_an_exception_raised_inside_a_tools_config_reader_is_configuration():
    body = (
        "Traceback (most recent call last):\n"
        '  File "/opt/py/lib/python3.12/site-packages/linty/options.py", line 118, in parse_config\n'
        '    value = cfg.getint("linty", name)\n'
        '  File "/opt/py/lib/python3.12/configparser.py", line 832, in _get\n'
        "    return conv(self.get(section, option, **kwargs))\n"
        "ValueError: invalid literal for int() with base 10: 'long'"
    )
    doc = _doc(_gha(("flake8 src", body, 1)))
    assert doc["class"] == "configuration", doc["reasons"]


def test_a_chained_exception_in_a_test_is_the_one_raised_last_and_its_cause_speaks_for_it():
    log = (
        "=================================== FAILURES ===================================\n"
        "_________________________________ test_dumps __________________________________\n"
        "src/shop/fast.py:2: in <module>\n"
        "    import orjson\n"
        "E   ModuleNotFoundError: No module named 'orjson'\n"
        "\n"
        "The above exception was the direct cause of the following exception:\n"
        "tests/test_fast.py:1: in <module>\n"
        "    from shop.fast import dumps\n"
        "src/shop/fast.py:4: in <module>\n"
        "    raise ImportError('shop.fast needs orjson') from exc\n"
        "E   ImportError: shop.fast needs orjson\n"
        "=========================== short test summary info ============================\n"
        "FAILED tests/test_fast.py::test_dumps - ImportError: shop.fast needs orjson\n"
        "============================== 1 failed in 0.12s ===============================\n"
    )
    doc = _doc(_gha(("pytest -q", log, 1)))
    assert doc["class"] == "dependency", doc["reasons"]
    assert doc["signatures"][0]["exception"] == "ImportError"


def test_of_two_failing_run_steps_the_last_failed_the_job():
    log = _gha(
        ("codespell src", "/w/_temp/x.sh: line 1: codespell: command not found", 127),
        ("ruff check src", "src/a.py:1:8: F401 [*] `os` imported but unused\nFound 1 error.", 1),
        ("actions/upload-artifact@v4", "Error: No files were found with the provided path", 1),
    )
    doc = _doc(log)
    assert doc["class"] == "lint", doc["reasons"]
    assert doc["step"]["command"] == "ruff check src"


@pytest.mark.parametrize("code", [124, 137])
def test_gnu_timeouts_exit_statuses_under_it_are_a_timeout(code):
    doc = _doc(_gha(("timeout -k 5 60 ./scripts/import.sh", "importing batch 1", code)))
    assert doc["class"] == "timeout", doc["reasons"]


def test_an_unknown_tools_words_lean_the_class_with_a_low_confidence():
    log = _gha(
        (
            "./bin/deploy --check",
            "deploy: loading settings\nThe settings file deploy.yaml is malformed (line 3)",
            1,
        )
    )
    doc = _doc(log)
    assert doc["class"] == "configuration", doc["reasons"]
    assert doc["confidence"] <= 0.45


def test_a_linter_that_reports_nothing_of_its_own_yields_to_what_stopped_it():
    body = "linty: loading configuration\nlinty: cannot read the configuration file setup.cfg: missing section [linty]"
    doc = _doc(_gha(("pylint src", body, 1)))
    assert doc["class"] == "configuration", doc["reasons"]
    lint = _doc(_gha(("pylint src", "src/a.py:3:0: W0611: Unused import os (unused-import)", 4)))
    assert lint["class"] == "lint"


def test_npms_error_code_is_followed_by_the_line_that_explains_it():
    body = (
        "npm error code EUSAGE\n"
        "npm error\n"
        "npm error The `npm ci` command can only install with an existing package-lock.json.\n"
        "npm error\n"
        "npm error Clean install a project\n"
        + "".join(f"npm error   --option-{k}\n" for k in range(40))
        + "npm error A complete log of this run can be found in: /home/runner/.npm/_logs/x.log"
    )
    doc = _doc(_gha(("npm ci", body, 1)))
    top = [e["text"] for e in doc["evidence"][:3]]
    assert any("can only install" in t for t in top), top


def test_a_checkers_json_report_is_quoted_by_its_findings():
    findings = "".join(
        f'  {{\n    "code": "F40{k}",\n    "filename": "src/a.py",\n    "message": "unused"\n  }},\n'
        for k in range(3)
    )
    doc = _doc(_gha(("ruff check --output-format=json src", "[\n" + findings + "]", 1)))
    assert doc["class"] == "lint"
    assert all('"code": "F40' in e["text"] for e in doc["evidence"][:3]), doc["evidence"][:3]
