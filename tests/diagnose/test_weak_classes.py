"""Mechanisms for the classes the live corpus found weakest (configuration, environment,
timeout), each on a small GitHub Actions step written for this test in the shape the tool
prints (not copied from any corpus), with a case that looks like the class and is not."""

from __future__ import annotations

import pytest

from truegreen.diagnose import diagnose_text
from truegreen.diagnose.exceptions import exception_class, wrapped_exception


def _gha(*steps: tuple[str, str, int | None]) -> str:
    out = []
    for cmd, body, code in steps:
        out += [f"##[group]Run {cmd}", *cmd.splitlines(), "shell: /usr/bin/bash -e {0}"]
        out += ["##[endgroup]", body.rstrip("\n")]
        if code:
            out.append(f"##[error]Process completed with exit code {code}.")
    return "\n".join(out) + "\n"


def _doc(cmd: str, body: str, code: int | None = 1) -> dict:
    return diagnose_text(_gha((cmd, body, code))).document()


def _first(doc: dict) -> str:
    return str(doc["evidence"][0]["text"]) if doc["evidence"] else ""


# --- the line that failed reads a setting ------------------------------------------------


def test_a_conversion_error_on_a_line_that_reads_the_environment_is_configuration():
    body = (
        "Traceback (most recent call last):\n"
        '  File "/w/src/app/server.py", line 4, in <module>\n'
        '    WORKERS = int(os.environ.get("APP_WORKERS", "2"))\n'
        "              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "ValueError: invalid literal for int() with base 10: 'many'\n"
    )
    doc = _doc("python -m app.server --check", body)
    assert doc["class"] == "configuration"
    assert _first(doc).startswith("ValueError: invalid literal")


def test_the_same_error_on_a_line_that_reads_data_is_not_configuration():
    body = (
        "Traceback (most recent call last):\n"
        '  File "/w/scripts/report.py", line 9, in <module>\n'
        "    total += int(row[2])\n"
        "ValueError: invalid literal for int() with base 10: 'n/a'\n"
    )
    assert _doc("python scripts/report.py", body)["class"] != "configuration"


def test_a_test_that_reads_the_environment_and_fails_its_assertion_is_a_test_failure():
    body = (
        "=================================== FAILURES ===================================\n"
        "__________________________________ test_port __________________________________\n\n"
        "    def test_port():\n"
        '        port = int(os.environ.get("PORT", "80"))\n'
        ">       assert port == 8080\n"
        "E       assert 80 == 8080\n\n"
        "tests/test_cfg.py:5: AssertionError\n"
        "=========================== short test summary info ============================\n"
        "FAILED tests/test_cfg.py::test_port - assert 80 == 8080\n"
        "1 failed, 1 passed in 0.05s\n"
    )
    assert _doc("python -m pytest -q", body)["class"] == "test"


@pytest.mark.parametrize(
    ("exc", "msg", "source", "cls"),
    [
        ("KeyError", "'port'", 'PORT = settings["port"]', "configuration"),
        (
            "TypeError",
            "int() argument must be ... not 'NoneType'",
            'int(os.getenv("N"))',
            "configuration",
        ),
        ("KeyError", "'port'", 'PORT = row["port"]', None),
        (
            "FileNotFoundError",
            "[Errno 2] No such file or directory: 'config/app.yaml'",
            None,
            "configuration",
        ),
        ("FileNotFoundError", "[Errno 2] No such file or directory: '.env'", None, "configuration"),
        ("FileNotFoundError", "[Errno 2] No such file or directory: 'README.md'", None, None),
    ],
)
def test_a_programs_exception_by_what_its_line_reads(exc, msg, source, cls):
    assert exception_class(exc, msg, in_test=False, source=source) == cls


# --- an exception a tool names in its own error line --------------------------------------


def test_a_tool_naming_the_exception_it_stopped_on_is_classed_by_that_exception():
    assert wrapped_exception(
        "ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied: '/usr/x'"
    ) == ("OSError", "[Errno 13] Permission denied: '/usr/x'")
    assert wrapped_exception("ERROR: Could not install packages") is None
    body = (
        "ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied: "
        "'/usr/local/lib/python3.12/site-packages/shop'\n"
        "Consider using the `--user` option or check the permissions.\n"
    )
    assert _doc("pip install .", body)["class"] == "environment"


def test_the_words_of_a_wrapped_exception_are_read_not_the_wrappers():
    # "Could not install packages ... could not find" is not a package that cannot be found
    body = (
        "ERROR: Could not install packages due to an OSError: Could not find a suitable TLS CA "
        "certificate bundle, invalid path: /etc/ssl/corp.pem\n"
    )
    doc = _doc("python -m pip install --cert /etc/ssl/corp.pem attrs", body)
    assert doc["class"] == "configuration"
    assert doc["confidence"] <= 0.45  # only its words say so


# --- signal exit statuses and waits that run out ------------------------------------------


def test_sigalrm_is_a_timeout():
    body = "/home/runner/work/_temp/x.sh: line 1:  2553 Alarm clock             python export.py\n"
    doc = _doc("python export.py", body, 142)
    assert doc["class"] == "timeout"
    assert "Alarm clock" in _first(doc)


def test_a_failing_test_named_after_an_alarm_clock_is_a_test_failure():
    body = (
        "FAILED tests/test_clock.py::test_alarm_clock - AssertionError: assert 3 == 4\n"
        "1 failed in 0.02s\n"
    )
    assert _doc("python -m pytest -q", body)["class"] == "test"


@pytest.mark.parametrize(
    "last",
    [
        "postgres did not become ready within 30 seconds",
        "ERROR: job 42 still pending after 300 seconds, giving up",
    ],
)
def test_a_wait_that_ran_out_is_a_timeout_and_its_line_is_the_evidence(last):
    body = "waiting for postgres (1/3)\nwaiting for postgres (2/3)\nwaiting for postgres (3/3)\n"
    doc = _doc("./ci/wait-for-db.sh", body + last + "\n")
    assert doc["class"] == "timeout"
    assert doc["confidence"] <= 0.45
    assert _first(doc) == last


def test_a_test_asserting_on_a_timeout_message_is_a_test_failure():
    body = (
        "FAILED tests/test_wait.py::test_message - AssertionError: assert "
        "'did not become ready within 5 seconds' == 'ready'\n1 failed in 0.03s\n"
    )
    assert _doc("python -m pytest -q", body)["class"] == "test"


@pytest.mark.parametrize(
    ("cmd", "body"),
    [
        (
            "go test ./...",
            "panic: test timed out after 10m0s\n\trunning tests:\n\t\tTestSync (10m0s)\nFAIL\tgithub.com/x/app\t600.012s\n",
        ),
        (
            "python -m pytest",
            "tests/test_a.py::test_x PASSED\n##[error]The action 'Run python -m pytest' has timed out after 10 minutes.\n",
        ),
        ("./run.sh", "ERROR: Job failed: execution took longer than 1h0m0s seconds\n"),
    ],
)
def test_runners_time_limits_are_a_timeout(cmd, body):
    assert _doc(cmd, body)["class"] == "timeout"


def test_a_go_test_failure_without_its_time_limit_is_a_test_failure():
    body = "--- FAIL: TestSync (0.01s)\n    sync_test.go:12: got 3, want 4\nFAIL\tgithub.com/x/app\t0.012s\n"
    assert _doc("go test ./...", body)["class"] == "test"


# --- a program the step needs is missing --------------------------------------------------


def test_a_hook_whose_executable_is_missing_is_the_environment_not_lint():
    body = (
        "policy check.............................................................Failed\n"
        "- hook id: policy\n- exit code: 1\n\nExecutable `policy-check` not found\n"
    )
    doc = _doc("pre-commit run --all-files", body)
    assert doc["class"] == "environment"
    assert "Executable `policy-check` not found" in [e["text"] for e in doc["evidence"][:3]]


def test_a_program_missing_in_an_earlier_step_that_went_on_does_not_explain_a_lint_failure():
    log = _gha(
        ("./ci/tools.sh", "./ci/tools.sh: line 3: shellcheck: command not found\nready", None),
        (
            "ruff check .",
            "src/app/x.py:3:1: F401 [*] `os` imported but unused\nFound 1 error.\n"
            "[*] 1 fixable with the `--fix` option.",
            1,
        ),
    )
    assert diagnose_text(log).document()["class"] == "lint"


@pytest.mark.parametrize(
    ("cmd", "body", "code"),
    [
        ("git lfs pull", "git: 'lfs' is not a git command. See 'git --help'.\n", 1),
        (
            "cargo build",
            'error: linker `cc` not found\n  |\n  = note: No such file or directory (os error 2)\n\nerror: could not compile `app` (bin "app") due to 1 previous error\n',
            101,
        ),
        ("./ci/run", "/usr/bin/env: 'python2': bad interpreter: No such file or directory\n", 126),
        ("git status --short", "fatal: detected dubious ownership in repository at '/w'\n", 128),
        (
            "pip install -r requirements.txt",
            "error: externally-managed-environment\n\n× This environment is externally managed\n",
            1,
        ),
        (
            "npm run build",
            "Error: error:0308010C:digital envelope routines::unsupported\n  code: 'ERR_OSSL_EVP_UNSUPPORTED'\n",
            1,
        ),
        (
            "npm test",
            "Error: ENOSPC: System limit for number of file watchers reached, watch '/w/src'\n",
            1,
        ),
        (
            "npm install",
            "npm error code EBADENGINE\nnpm error engine Unsupported engine\nnpm error notsup Not compatible with your version of node/npm: web@1.0.0\n",
            1,
        ),
        (
            "python3 app.py",
            "Traceback (most recent call last):\n  File \"/w/app.py\", line 1, in <module>\n    import tomllib\nModuleNotFoundError: No module named 'tomllib'\n",
            1,
        ),
    ],
)
def test_the_environment_the_job_runs_in(cmd, body, code):
    assert _doc(cmd, body, code)["class"] == "environment"


@pytest.mark.parametrize(
    ("cmd", "body", "cls"),
    [
        # a full disk is not the watcher limit
        ("npm test", "Error: ENOSPC: no space left on device, write\n", "infrastructure"),
        # a package of the index missing in a script is a dependency, not the interpreter
        (
            "python3 app.py",
            "Traceback (most recent call last):\n  File \"/w/app.py\", line 1, in <module>\n    import requests\nModuleNotFoundError: No module named 'requests'\n",
            "dependency",
        ),
        # Node's loader not finding a package is a dependency; a relative file is not
        (
            "node scripts/build.mjs",
            "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'esbuild' imported from /w/scripts/build.mjs\n",
            "dependency",
        ),
    ],
)
def test_what_looks_like_the_environment_and_is_not(cmd, body, cls):
    assert _doc(cmd, body)["class"] == cls


def test_a_relative_module_node_cannot_find_is_no_missing_package():
    body = "Error [ERR_MODULE_NOT_FOUND]: Cannot find package './lib' imported from /w/x.mjs\n"
    assert _doc("node x.mjs", body)["class"] != "dependency"


# --- configuration: files, options, settings the job gives --------------------------------


@pytest.mark.parametrize(
    ("cmd", "body", "code"),
    [
        ("nox -s tests", "nox > Failed to load Noxfile /w/noxfile.py, no such file exists.\n", 2),
        (
            "tox -e py312",
            "py312: commands[0]> make test\npy312: failed with make is not allowed, use allowlist_externals to allow it\n  py312: FAIL code 1 (0.42 seconds)\n",
            1,
        ),
        (
            "npm run build",
            "npm error code EJSONPARSE\nnpm error JSON.parse Invalid package.json: JSONParseError: Expected double-quoted property name\n",
            1,
        ),
        (
            "python -m app.cli --config ci.toml",
            "Usage: python -m app.cli [OPTIONS]\n\nError: Invalid value for '--config': Path 'ci.toml' does not exist.\n",
            2,
        ),
        ("coverage report --fail-under=90", "Couldn't read config file .coveragerc\n", 1),
        (
            "docker compose up -d",
            "validating /w/compose.yml: services.web.ports must be a array\n",
            15,
        ),
        ("ansible-playbook site.yml", "ERROR! the field 'hosts' is required but was not set\n", 4),
        (
            'VERSION=$(git describe --tags --abbrev=0)\necho "releasing $VERSION"',
            "fatal: No names found, cannot describe anything.\n",
            128,
        ),
    ],
)
def test_configuration_the_job_gives(cmd, body, code):
    assert _doc(cmd, body, code)["class"] == "configuration"


def test_the_words_a_script_echoes_are_no_command():
    # "checking ..." is a message, not a check: the URL curl got is what is wrong
    cmd = 'echo "checking the staging API"\ncurl -fsS "$API_URL/health"'
    body = "checking the staging API\ncurl: (3) URL using bad/illegal format or missing URL\n"
    doc = _doc(cmd, body, 3)
    assert doc["class"] == "configuration"
    assert doc["step"]["tool"] is None


def test_a_git_command_on_the_checkout_does_not_hide_a_network_error():
    body = "fatal: unable to access 'https://git.invalid/x.git/': Could not resolve host: git.invalid\n"
    assert _doc("git fetch --tags && git describe --tags", body, 128)["class"] == "network"


def test_a_finding_in_a_config_module_is_still_lint():
    body = "src/app/config.py:3:1: F401 [*] `os` imported but unused\nFound 1 error.\n"
    assert _doc("ruff check .", body)["class"] == "lint"


# --- a checker's verdict on a file is not a test ------------------------------------------


def test_a_checkers_verdict_on_a_file_is_not_a_test_failure():
    body = (
        "Checking dist/shop-0.1.0-py3-none-any.whl: FAILED\n"
        "ERROR    `long_description` has syntax errors in markup and would not be rendered on PyPI.\n"
    )
    assert _doc("twine check --strict dist/*", body)["class"] == "build"


def test_a_verbose_test_line_that_ends_in_failed_is_still_a_test_failure():
    body = "running 3 tests\n  parses the header ... ok\n  rounds totals FAILED\n"
    assert _doc("./run-tests", body)["class"] == "test"


# --- who the job is: its token, its permissions -------------------------------------------


@pytest.mark.parametrize(
    ("cmd", "body", "code"),
    [
        (
            "git push origin HEAD:main",
            "remote: Permission to acme/app.git denied to github-actions[bot].\nfatal: unable to access 'https://github.com/acme/app/': The requested URL returned error: 403\n",
            128,
        ),
        (
            "gh release create v1.0.0",
            "HTTP 403: Resource not accessible by integration (https://api.github.com/repos/acme/app/releases)\n",
            1,
        ),
        (
            "python -m twine upload dist/*",
            "Uploading distributions to https://upload.pypi.org/legacy/\nERROR    HTTPError: 403 Forbidden from https://upload.pypi.org/legacy/\n         Invalid or non-existent authentication information.\n",
            1,
        ),
        (
            "docker login ghcr.io -u bot --password-stdin",
            "Error: Cannot perform an interactive login from a non TTY device\n",
            1,
        ),
    ],
)
def test_a_server_refusing_the_jobs_credentials_is_configuration_not_the_network(cmd, body, code):
    assert _doc(cmd, body, code)["class"] == "configuration"


def test_a_server_that_cannot_be_reached_is_still_the_network():
    body = "fatal: unable to access 'https://github.com/acme/app/': Failed to connect to github.com port 443: Connection timed out\n"
    assert _doc("git push origin HEAD:main", body, 128)["class"] == "network"


def test_a_test_that_asserts_on_a_403_response_is_a_test_failure():
    body = (
        "FAILED tests/test_api.py::test_admin_only - AssertionError: assert 403 == 200\n"
        "FAILED tests/test_api.py::test_token - AssertionError: got status 403\n"
        "2 failed, 10 passed in 0.31s\n"
    )
    assert _doc("python -m pytest -q", body)["class"] == "test"


def test_a_build_that_needs_the_tags_a_shallow_checkout_lacks_is_configuration():
    body = (
        "* Building sdist...\nTraceback (most recent call last):\n"
        '  File "/tmp/env/lib/python3.12/site-packages/setuptools_scm/_get_version_impl.py", line 163, in _version_missing\n'
        "    raise LookupError(error_msg)\n"
        "LookupError: setuptools-scm was unable to detect version for /home/runner/work/app/app.\n\n"
        "ERROR Backend subprocess exited when trying to invoke build_sdist\n"
    )
    doc = _doc("python -m build", body)
    assert doc["class"] == "configuration"
    assert "unable to detect version" in _first(doc)


def test_a_build_that_fails_on_its_own_code_is_still_a_build_failure():
    body = (
        "  Building wheel for fastsum (pyproject.toml): finished with status 'error'\n"
        "  error: subprocess-exited-with-error\n"
        "      src/fastsum.c:4:5: error: unknown type name 'sizet'\n"
        "      error: command '/usr/bin/gcc' failed with exit code 1\n"
    )
    assert _doc("python -m pip install .", body)["class"] == "build"


@pytest.mark.parametrize(
    ("cmd", "body", "cls"),
    [
        (
            "alembic upgrade head",
            "FAILED: No config file 'alembic.ini' found, or file has no '[alembic]' section\n",
            "configuration",
        ),
        (
            "terraform plan",
            '│ Error: No value for required variable\n│ \n│ The root module input variable "region" is not set, and has no default value.\n',
            "configuration",
        ),
        (
            "python -m pytest -q",
            "FAILED tests/test_tz.py::test_local - zoneinfo._common.ZoneInfoNotFoundError: 'No time zone found with key Europe/Paris'\n1 failed in 0.1s\n",
            "environment",
        ),
        (
            "java -jar tool.jar",
            "Error: LinkageError occurred while loading main class Tool\n\tjava.lang.UnsupportedClassVersionError: Tool has been compiled by a more recent version of the Java Runtime (class file version 65.0)\n",
            "environment",
        ),
        (
            "./gradlew build",
            "ERROR: JAVA_HOME is set to an invalid directory: /usr/lib/jvm/java-21\n",
            "environment",
        ),
    ],
)
def test_more_settings_and_runtimes(cmd, body, cls):
    assert _doc(cmd, body)["class"] == cls


def test_a_step_time_limit_and_an_action_that_cannot_be_resolved():
    timed = "tests/test_a.py::test_x PASSED\n##[error]The action has timed out.\n"
    assert _doc("python -m pytest -v", timed, None)["class"] == "timeout"
    log = "##[error]Unable to resolve action `acme/setup-tool@v9`, unable to find version `v9`\n"
    assert diagnose_text(log).document()["class"] == "configuration"


@pytest.mark.parametrize(
    ("msg", "cls"),
    [
        ("[Errno 110] Connection timed out", "network"),  # a connect that was never answered
        ("", "timeout"),  # asyncio.wait_for, a time limit of the program's own
    ],
)
def test_a_timeout_error_is_a_time_limit_unless_it_is_a_connection_left_unanswered(msg, cls):
    assert exception_class("TimeoutError", msg, in_test=False) == cls


def test_a_step_without_the_checkout_it_needs_is_configuration():
    body = "fatal: not a git repository (or any of the parent directories): .git\n"
    assert _doc("git rev-parse HEAD", body, 128)["class"] == "configuration"


def test_a_check_that_generated_files_are_committed_is_not_configuration_nor_a_test_run():
    # `test -z` is the shell's builtin, and `git status` here is a check, not the checkout
    cmd = 'make generate\ntest -z "$(git status --porcelain)" || { git status --short; exit 1; }'
    doc = _doc(cmd, " M src/app/_generated.py\n")
    assert doc["class"] not in ("configuration", "test")


@pytest.mark.parametrize(
    ("exc", "msg", "cls"),
    [
        (
            "requests.exceptions.HTTPError",
            "403 Client Error: Forbidden for url: https://api.x/y",
            "configuration",
        ),
        ("urllib.error.HTTPError", "HTTP Error 401: Unauthorized", "configuration"),
        (
            "requests.exceptions.HTTPError",
            "503 Server Error: Service Unavailable for url: x",
            "network",
        ),
    ],
)
def test_an_http_error_refusing_credentials_is_configuration_a_server_error_is_the_network(
    exc, msg, cls
):
    assert exception_class(exc, msg) == cls


@pytest.mark.parametrize(
    ("cmd", "body", "code", "cls"),
    [
        (
            "pre-commit run blackk --all-files",
            "No hook with id `blackk` in stage `pre-commit`\n",
            1,
            "configuration",
        ),
        (
            "uv run pytest",
            "error: Failed to parse: `pyproject.toml`\n  Caused by: TOML parse error at line 5, column 1\n",
            2,
            "configuration",
        ),
        (
            "sphinx-build -W docs build",
            "Running Sphinx v8.1.3\n\nConfiguration error:\nThere is a programmable error in your configuration file:\n",
            2,
            "configuration",
        ),
        (
            "docker compose up -d",
            "env file /w/.env not found: stat /w/.env: no such file or directory\n",
            1,
            "configuration",
        ),
        (
            "pnpm install",
            "Error: Unable to locate executable file: pnpm. Please verify either the file path exists.\n",
            1,
            "environment",
        ),
        (
            "sudo apt-get install -y libpq-dev",
            "sudo: a terminal is required to read the password\nsudo: a password is required\n",
            1,
            "environment",
        ),
        (
            "pip install numba==0.58",
            "  error: subprocess-exited-with-error\n  ╰─> [8 lines of output]\n      RuntimeError: Cannot install on Python version 3.13.0; only versions >=3.8,<3.12 are supported.\n      [end of output]\nerror: metadata-generation-failed\n",
            1,
            "environment",
        ),
        # pip skipping versions for the job's Python, then not finding the pinned one: the pin
        (
            "pip install attrs==99.0",
            "ERROR: Ignored the following versions that require a different python version: 26.1 Requires-Python >=3.14\n"
            "ERROR: Could not find a version that satisfies the requirement attrs==99.0 (from versions: 25.3.0, 25.4.0)\n"
            "ERROR: No matching distribution found for attrs==99.0\n",
            1,
            "dependency",
        ),
    ],
)
def test_tools_refusing_what_the_job_gives_them(cmd, body, code, cls):
    assert _doc(cmd, body, code)["class"] == cls


def test_a_service_whose_health_check_never_passed_is_a_wait_that_ran_out():
    body = "dependency failed to start: container app-db-1 is unhealthy\n"
    doc = _doc("docker compose up --wait", body)
    assert doc["class"] == "timeout"
    assert doc["confidence"] <= 0.45


@pytest.mark.parametrize(
    ("cmd", "body", "cls"),
    [
        # a unittest assertion on a 403 status is the test's
        (
            "python -m unittest discover -v",
            "FAIL: test_upload (tests.test_api.ApiTest.test_upload)\n"
            "----------------------------------------------------------------------\n"
            "Traceback (most recent call last):\n"
            '  File "/w/tests/test_api.py", line 12, in test_upload\n'
            "    self.assertEqual(resp.status, 201)\n"
            "AssertionError: 403 != 201\n\nRan 3 tests in 0.01s\n\nFAILED (failures=1)\n",
            "test",
        ),
        # a hook that reported findings is lint, whatever its wrapper says
        (
            "pre-commit run --all-files",
            "ruff.....................................................................Failed\n"
            "- hook id: ruff\n- exit code: 1\n\n"
            "src/app/cli.py:3:1: F401 [*] `subprocess` imported but unused\nFound 1 error.\n",
            "lint",
        ),
        # a test of a CLI's usage message is the test's, not the CLI refusing the job
        (
            "python -m pytest -q",
            "FAILED tests/test_cli.py::test_usage - AssertionError: assert 'Error: No such option: --x' in ''\n"
            "1 failed, 5 passed in 0.20s\n",
            "test",
        ),
    ],
)
def test_tests_and_findings_that_mention_the_weak_classes_words(cmd, body, cls):
    assert _doc(cmd, body)["class"] == cls
