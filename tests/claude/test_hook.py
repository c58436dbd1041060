"""The Claude Code hooks against recorded payloads: the context they inject, the silence
rules, the Stop reminder, the deadline, and malformed payloads (never an error)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import EXAM_TEST
from tests.claude.conftest import DEP_TEST, FAILING, payload
from tests.conftest import TARGET_PYTHON, cli, git
from truegreen import api
from truegreen.claude import hook


def _said(data: Any) -> dict[str, Any] | None:
    """The hook's answer, without its deadline (test_past_the_deadline... checks it): on a
    loaded machine a localize may take longer, and the hook would rightly say nothing."""
    text = hook.answer(json.dumps(data) if not isinstance(data, str) else data, deadline=120)
    return json.loads(text) if text else None


@pytest.mark.parametrize(
    ("kind", "command"),
    [
        (True, "pytest -q"),
        (True, "python -m pytest tests/test_x.py::test_y"),
        (True, "uv run pytest -x"),
        (True, "cd proj && .venv/bin/pytest"),
        (True, "py.test"),
        (True, "cd tests && pytest test_version.py -x"),
        (True, "venv/bin/python -m pytest tests/test_zz_dep.py"),
        (True, "./env/bin/pytest -q 2>&1 | tail -20"),
        (True, "pip install -e . && python3.12 -X dev -m pytest"),
        (True, "FOO=1 timeout 120 pytest; echo $?"),
        (True, "echo start\npython -mpytest -q"),
        (True, "poetry run pytest"),
        (True, "uv run --with hypothesis pytest -x"),
        (True, "coverage run -m pytest"),
        (True, "bash -c 'pytest -q'"),
        (False, "ls -la"),
        (False, "pip install pytest-cov"),
        (False, "grep -rn pytest_plugins ."),
        (False, "cat pytest.ini"),
        (False, "echo pytest"),
        (False, "grep -r pytest setup.cfg"),
        (False, "rg pytest"),
        (False, 'git commit -m "make pytest pass"'),
        (False, "python -c 'import pytest'"),
        (False, "python setup.py test"),
        (False, "uv run ruff check pytest_plugin.py"),
        (False, "make test"),
        # tox and nox: their output is theirs (several environments, each its own)
        (False, "tox -e py312"),
        (False, "nox -s tests"),
        (False, 'pytest -k "unclosed'),
    ],
)
def test_which_commands_ran_pytest(kind: bool, command: str) -> None:
    assert hook.runs_pytest(command) is kind


@pytest.mark.parametrize(
    ("command", "directory", "python"),
    [
        ("pytest -q", None, None),
        ("python -m pytest", None, None),  # which python: the agent's shell's
        ("uv run pytest", None, None),  # uv picks the project's environment
        ("venv/bin/python -m pytest tests/test_zz_dep.py", None, "venv/bin/python"),
        ("./env/bin/pytest -x", None, "./env/bin/python"),
        ("/opt/py/bin/python3.12 -m pytest", None, "/opt/py/bin/python3.12"),
        ("cd tests && pytest test_version.py -x", "tests", None),
        ("cd pkg; cd tests && ../venv/bin/pytest", "pkg/tests", "../venv/bin/python"),
    ],
)
def test_where_the_command_ran_pytest_and_with_which_interpreter(
    command: str, directory: str | None, python: str | None
) -> None:
    assert hook.find_pytest(command) == hook.PytestCall(directory, python)


def test_ids_printed_relative_to_where_pytest_ran_are_node_ids_from_its_rootdir(
    invoicekit: Path,
) -> None:
    tests = invoicekit / "tests"
    printed = ["test_issue_42.py::test_bulk_discount_starts_at_exactly_ten"]
    call = hook.find_pytest("cd tests && pytest test_issue_42.py")
    assert call is not None
    # Claude Code's cwd after the cd, or before it: the same directory
    assert hook.invocation_dir(tests, call, printed) == tests.resolve()
    assert hook.invocation_dir(invoicekit, call, printed) == tests.resolve()
    here = tests.resolve()
    assert hook.node_id(printed[0], here, invoicekit.resolve()) == FAILING
    # an id that is no file there, or a file outside the rootdir: as printed
    assert hook.node_id("nope.py::t", here, invoicekit.resolve()) == "nope.py::t"
    assert hook.node_id(printed[0], here, here / "sub") == printed[0]
    header = "platform linux -- Python 3.12\nrootdir: {}\nconfigfile: pyproject.toml\n"
    assert hook.rootdir_of(header.format(invoicekit)) == invoicekit.resolve()
    old_style = f"rootdir: {invoicekit}, configfile: pyproject.toml, testpaths: tests\n"
    assert hook.rootdir_of(old_style) == invoicekit.resolve()
    assert hook.rootdir_of("rootdir: /nonexistent/x\n") is None
    assert hook.rootdir_of("F\n1 failed\n") is None  # -q prints no header


def test_the_interpreter_the_command_named_else_the_installed_one_else_none(
    venv_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = str(venv_project / "venv" / "bin" / "python")
    named = hook.PytestCall(None, "venv/bin/python")
    tests = venv_project / "tests"
    assert hook.python_for(named, venv_project, venv_project) == python
    # named relative to the directory pytest ran in (cd tests && ../venv/bin/pytest)
    up = hook.PytestCall("tests", "../venv/bin/python")
    assert hook.python_for(up, tests, venv_project) == python
    bare = hook.PytestCall(None, None)
    assert hook.python_for(bare, venv_project, venv_project) is None  # the project's own
    monkeypatch.setattr(hook, "INSTALLED_PYTHON", python)
    assert hook.python_for(bare, venv_project, venv_project) == python
    # a named interpreter that is not there: the installed one
    gone = hook.PytestCall(None, "env/bin/python")
    assert hook.python_for(gone, venv_project, venv_project) == python
    assert hook.python_from_argv(["--python", python]) == python
    assert hook.python_from_argv([f"--python={python}"]) == python
    assert hook.python_from_argv(["--python"]) is None and hook.python_from_argv([]) is None


@pytest.mark.slow
def test_a_pytest_run_from_a_subdirectory_gets_context_for_its_node_id(
    invoicekit: Path, new_session: Callable[[], str]
) -> None:
    data = payload(
        "post_tool_use_failure_pytest_in_tests_dir", invoicekit, session_id=new_session()
    )
    got = _said(data)
    assert got is not None
    context = got["hookSpecificOutput"]["additionalContext"]
    assert context.startswith(f"truegreen: context for {FAILING}")
    assert "invoicekit/discounts.py:14" in context


@pytest.mark.slow
def test_the_hook_runs_the_tests_with_the_interpreter_the_command_named(
    venv_project: Path, new_session: Callable[[], str]
) -> None:
    data = payload("post_tool_use_failure_pytest_venv", venv_project, session_id=new_session())
    got = _said(data)
    assert got is not None, "silent: the test could not be collected with another interpreter"
    context = got["hookSpecificOutput"]["additionalContext"]
    assert context.startswith(f"truegreen: context for {DEP_TEST}")
    assert "invoicekit/discounts.py:14" in context
    rerun = next(line for line in context.splitlines() if line.startswith("rerun: "))
    assert str(venv_project / "venv" / "bin" / "python") in rerun


@pytest.mark.slow
def test_a_failing_pytest_run_gets_at_most_2_kb_of_context_once_per_session(
    invoicekit: Path, new_session: Callable[[], str]
) -> None:
    session = new_session()
    got = _said(payload("post_tool_use_failure_pytest", invoicekit, session_id=session))
    assert got is not None
    out = got["hookSpecificOutput"]
    assert out["hookEventName"] == "PostToolUseFailure"
    context = out["additionalContext"]
    assert len(context.encode("utf-8")) <= hook.MAX_CONTEXT
    assert context.startswith(f"truegreen: context for {FAILING}")
    assert "rerun: " in context  # the clean rerun command
    assert "invoicekit/discounts.py:14" in context  # the fault, among the top suspects
    # the same failure again in this session: already explained, silence
    assert _said(payload("post_tool_use_failure_pytest", invoicekit, session_id=session)) is None
    # PostToolUse (a command that hid pytest's status) is read from its stdout
    again = payload("post_tool_use_pytest_or_true", invoicekit, session_id=new_session())
    got = _said(again)
    assert got is not None and "discounts.py:14" in got["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize(
    "name",
    ["post_tool_use_pytest_passed", "post_tool_use_edit", "post_tool_use_failure_not_pytest"],
)
def test_silence_where_there_is_no_failing_pytest_run(
    name: str, invoicekit: Path, new_session: Callable[[], str]
) -> None:
    assert _said(payload(name, invoicekit, session_id=new_session())) is None


def test_silence_in_a_tiny_repository(
    calc_project: Callable[..., Path], new_session: Callable[[], str]
) -> None:
    root = calc_project()
    out = f"F\nFAILED {EXAM_TEST} - assert -1 == 5\n1 failed in 0.01s\n"
    data = payload("post_tool_use_failure_pytest", root, session_id=new_session(), error=out)
    assert hook.is_tiny(root)
    assert _said(data) is None


@pytest.mark.slow
def test_silence_when_the_cause_is_in_the_test_itself(
    invoicekit: Path, new_session: Callable[[], str]
) -> None:
    (invoicekit / "tests" / "test_plain.py").write_text(
        "def test_plain():\n    assert [1, 2] == [1, 3]\n", encoding="utf-8"
    )
    out = "F\nFAILED tests/test_plain.py::test_plain - assert [1, 2] == [1, 3]\n1 failed\n"
    data = payload("post_tool_use_failure_pytest", invoicekit, session_id=new_session(), error=out)
    assert _said(data) is None


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "not json",
        "[1, 2]",
        "null",
        '{"hook_event_name": "PostToolUseFailure"}',
        '{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_input": "pytest"}',
        '{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", '
        '"tool_input": {"command": "pytest"}, "error": 17, "cwd": "/"}',
        '{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": '
        '"pytest"}, "tool_response": {"stdout": "FAILED a.py::t"}, "cwd": "/nonexistent/x"}',
        '{"hook_event_name": "Stop", "cwd": 5}',
        '{"hook_event_name": "SessionStart", "cwd": "/"}',
        '{"hook_event_name": "Stop", "cwd": "/"}',
        # a command that cannot be read, names no directory that is there, runs outside a
        # git repository, or is not a string
        '{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_input": '
        '{"command": "pytest -k \\"a"}, "error": "FAILED a.py::t", "cwd": "/"}',
        '{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_input": '
        '{"command": "cd /nonexistent/x && venv/bin/pytest"}, "error": "FAILED t.py::t", '
        '"cwd": "/"}',
        '{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_input": '
        '{"command": ["pytest"]}, "error": "FAILED a.py::t", "cwd": "/"}',
        '{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_input": '
        '{"command": "cd tests && pytest"}, "error": "FAILED ../../a.py::t\\nrootdir: 7", '
        '"cwd": "/tmp"}',
    ],
)
def test_a_malformed_payload_gets_silence_and_exit_0(raw: str) -> None:
    stdout = io.StringIO()
    assert hook.main(io.StringIO(raw), stdout) == 0
    assert stdout.getvalue() == ""


@pytest.mark.parametrize(
    ("value", "seconds"), [("30", 30.0), ("", hook.DEADLINE), ("x", hook.DEADLINE), ("-1", hook.DEADLINE)]
)  # fmt: skip
def test_the_deadline_can_be_set_for_a_slow_machine(
    monkeypatch: pytest.MonkeyPatch, value: str, seconds: float
) -> None:
    monkeypatch.setenv("TRUEGREEN_HOOK_DEADLINE", value)
    assert hook.deadline_from_env() == seconds


def test_the_deadline_and_the_cleanup_fit_in_the_10_s_a_hook_may_take() -> None:
    assert hook.DEADLINE + hook.CLEANUP <= 10.0


def test_past_the_deadline_the_hook_says_nothing(
    invoicekit: Path, new_session: Callable[[], str], capsys: pytest.CaptureFixture[str]
) -> None:
    data = payload("post_tool_use_failure_pytest", invoicekit, session_id=new_session())
    started = time.monotonic()
    # 10 ms: less than any answer can take (it starts a pytest process), however idle the
    # machine (on an idle one, with no plugin to load, a whole answer takes about 0.3 s)
    assert hook.answer(json.dumps(data), deadline=0.01) == ""
    # it gives up at the deadline, not after the localize (a loaded machine adds seconds)
    assert time.monotonic() - started < 0.01 + hook.CLEANUP + 3.0
    # a line on stderr (Claude Code's verbose mode) says why
    assert "no answer within 0.01 s" in capsys.readouterr().err


def test_the_deadline_counts_from_the_hooks_start_its_imports_included(
    invoicekit: Path, new_session: Callable[[], str]
) -> None:
    data = payload("post_tool_use_failure_pytest", invoicekit, session_id=new_session())
    started = time.monotonic()
    # begun 5 s ago with a 5.01 s deadline: 10 ms are left
    assert hook.answer(json.dumps(data), deadline=5.01, started=started - 5.0) == ""
    assert time.monotonic() - started < 0.01 + hook.CLEANUP + 3.0


def test_the_localize_gets_what_is_left_of_the_deadline() -> None:
    now = 1000.0
    # 6 s left: less the margin
    assert hook.localize_seconds(now + 6.0, now) == 6.0 - hook.LOCALIZE_MARGIN
    # never less than a second (the failing test still runs), never more than the cap
    assert hook.localize_seconds(now + 0.5, now) == 1.0
    assert hook.localize_seconds(now + 500.0, now) == hook.LOCALIZE_SECONDS
    assert hook.localize_seconds(None) == hook.LOCALIZE_SECONDS


@pytest.mark.slow
def test_stop_reminds_once_to_verify_when_code_changed_with_an_exam_open(
    invoicekit: Path, new_session: Callable[[], str]
) -> None:
    session = new_session()
    stop = payload("stop", invoicekit, session_id=session)
    # no exam yet, a clean tree: nothing to say
    assert _said(stop) is None
    api.seal(
        api.SealRequest(
            repo=invoicekit, python=str(TARGET_PYTHON), sandbox="none", test_id=FAILING, runs=1
        )
    )
    assert _said(stop) is None  # an exam is open, but nothing changed
    fixed = (
        (invoicekit / "invoicekit" / "discounts.py")
        .read_text()
        .replace("quantity > minimum", "quantity >= minimum")
    )
    (invoicekit / "invoicekit" / "discounts.py").write_text(fixed, encoding="utf-8")
    got = _said(stop)
    assert got is not None and got["decision"] == "block"
    assert "verify_fix" in got["reason"] and "invoicekit/discounts.py" in got["reason"]
    assert "never 'correct'" in got["reason"]
    assert _said(stop) is None  # reminded about this state already
    assert _said(payload("stop_active", invoicekit, session_id=new_session())) is None
    assert git(invoicekit, "status", "--porcelain").strip() == "M invoicekit/discounts.py"


#: what each script run as the hook starts with: it says when the hook's clock started
#: (``STARTED``, the deadline counts from it; monotonic, the same clock as the test's)
PRELUDE = """
import sys
from truegreen.claude import hook
print("started", hook.STARTED, file=sys.stderr, flush=True)
"""


def _hook_process(
    project: Path, data: dict[str, Any], deadline: float, tmp: Path, code: str = "hook.run()"
) -> tuple[subprocess.CompletedProcess[str], float]:
    """The hook as Claude Code runs it (:func:`hook.run`, or ``code`` ending the same way),
    with ``deadline``, temp dir ``tmp``; its result, and the seconds from its start (its
    ``STARTED``: the interpreter's own start, slow on a loaded machine, is not counted) to
    its end."""
    env = {
        **os.environ,
        "TRUEGREEN_HOOK_DEADLINE": str(deadline),
        "TMPDIR": str(tmp),
        "TRUEGREEN_HOME": str(tmp.parent / "home"),
    }
    done = subprocess.run(
        [sys.executable, "-c", PRELUDE + code], cwd=project, input=json.dumps(data),
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    ended = time.monotonic()
    started = float(done.stderr.split("started ", 1)[1].split()[0])
    return done, ended - started


def _gone(pid: int) -> bool:
    """No process ``pid``, or only its zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat[stat.rfind(")") + 2] in "ZX"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="reads /proc")
def test_at_its_deadline_the_hook_ends_at_once_and_leaves_no_process_or_temp_dir(
    invoicekit: Path, new_session: Callable[[], str], tmp_path: Path
) -> None:
    # the failing test runs for a minute: the deadline falls in the traced run; it says so
    # in a file of the checkout, which a sandbox would keep read-only: none here
    pyproject = invoicekit / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    assert "[tool.truegreen]" not in text
    pyproject.write_text(text + '\n[tool.truegreen]\nsandbox = "none"\n', encoding="utf-8")
    started = invoicekit / "started.txt"
    (invoicekit / "tests" / "test_issue_42.py").write_text(
        "import os, time\n\n\n"
        "def test_bulk_discount_starts_at_exactly_ten():\n"
        f"    open({str(started)!r}, 'w').write(str(os.getpid()))\n"
        "    time.sleep(60)\n"
        "    assert False\n",
        encoding="utf-8",
    )
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    data = payload("post_tool_use_failure_pytest", invoicekit, session_id=new_session())
    # the traced run starts about 2 s after the hook (6 s at load 7)
    done, wall = _hook_process(invoicekit, data, 9.0, tmp)
    assert done.returncode == 0 and done.stdout == ""
    assert "no answer within 9 s" in done.stderr
    # it ended within half a second of its deadline (a loaded machine gets 0.3 s more)
    assert wall < 9.0 + 0.5 + 0.3
    # the test had started under the tracer: it was killed with its tree, before the exit
    # (SIGKILL is sent before the exit; the kernel may take a moment to end the process)
    assert started.exists(), "the deadline fell before the traced run: nothing was killed"
    pid = int(started.read_text())
    gone_by = time.monotonic() + 1.0
    while not _gone(pid) and time.monotonic() < gone_by:
        time.sleep(0.02)
    assert _gone(pid)
    # its temp dirs (the localize's, the probe's) are gone too
    assert [p.name for p in tmp.iterdir() if p.name.startswith("truegreen-")] == []


# the analysis of a large project at the deadline: a thread busy in Python, with a heap of
# syntax trees (no cancellation point; the teardown of such a heap took seconds)
BUSY = """
import ast

def respond(payload, cancel, until):
    trees = []
    source = open(ast.__file__).read()
    while True:
        trees = [*trees[-30:], ast.parse(source)]  # about 100 MB

hook.respond = respond
hook.run()
"""

# one call that holds the interpreter's lock past the deadline (a catastrophic regex
# stands for the compile of a huge module, the read of a large trace)
HELD = """
import re

def respond(payload, cancel, until):
    re.match(r"(a+)+$", "a" * 40 + "b")

hook.respond = respond
"""


@pytest.mark.parametrize(
    "code",
    [
        BUSY,
        # the work is done in a forked child: the hook's own process is free to end it
        # (3 s: the hook's own imports before the fork take a second at load 10)
        HELD + "hook.run()",
    ],
    ids=["busy-analysis", "work-holds-the-interpreter"],
)
def test_at_its_deadline_the_hook_ends_at_once_whatever_its_work_is_doing(
    invoicekit: Path, new_session: Callable[[], str], tmp_path: Path, code: str
) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    data = payload("post_tool_use_failure_pytest", invoicekit, session_id=new_session())
    done, wall = _hook_process(invoicekit, data, 3.0, tmp, code=code)
    assert done.returncode == 0 and done.stdout == ""
    assert "no answer within 3 s" in done.stderr
    assert wall < 3.0 + 0.5 + 0.3


def test_without_fork_a_backstop_ends_the_hook_whose_work_holds_the_interpreter(
    invoicekit: Path, new_session: Callable[[], str], tmp_path: Path
) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    data = payload("post_tool_use_failure_pytest", invoicekit, session_id=new_session())
    # as where there is no fork (Windows): the work in a thread of the hook's process
    code = HELD + "import os\ndel os.fork\nhook.run()"
    done, wall = _hook_process(invoicekit, data, 3.0, tmp, code=code)
    # ended CLEANUP after its deadline: status 1 (a hook's non-blocking error), no answer
    assert done.returncode == 1 and done.stdout == ""
    assert 3.0 + hook.CLEANUP - 0.05 < wall < 3.0 + hook.CLEANUP + 0.3


@pytest.mark.slow
def test_the_hook_breaks_a_tie_near_the_top_with_mutants(
    invoicekit: Path, new_session: Callable[[], str]
) -> None:
    # statements every test of area() runs: the spectrum cannot tell them apart, and the
    # return made the value the assertion rejected; of the others, the mutants of the
    # scale make the test pass, those of the label change nothing
    (invoicekit / "invoicekit" / "area.py").write_text(
        'def area(w, h):\n    label = "area"\n    scale = 2\n    return w * h * scale\n',
        encoding="utf-8",
    )
    (invoicekit / "tests" / "test_area.py").write_text(
        "from invoicekit.area import area\n\n\ndef test_area():\n    assert area(2, 3) == 6\n",
        encoding="utf-8",
    )
    out = "F\nFAILED tests/test_area.py::test_area - assert 12 == 6\n1 failed\n"
    data = payload("post_tool_use_failure_pytest", invoicekit, session_id=new_session(), error=out)
    got = _said(data)
    assert got is not None
    context = got["hookSpecificOutput"]["additionalContext"]
    suspects = re.findall(r"^suspect rank \d+[^:]*: (\S+) ", context, re.M)
    assert suspects[0] == "invoicekit/area.py:3", context
    assert "made it pass" in context


@pytest.mark.slow
def test_stop_does_not_count_install_claudes_own_files(
    invoicekit: Path, new_session: Callable[[], str], capsys: pytest.CaptureFixture[str]
) -> None:
    # a committed settings.json (install-claude merges into it) and files it creates
    (invoicekit / ".claude").mkdir()
    (invoicekit / ".claude" / "settings.json").write_text('{"permissions": {}}\n')
    git(invoicekit, "add", "-A")
    git(invoicekit, "commit", "-qm", "settings")
    assert cli(capsys, "install-claude", "--repo", str(invoicekit))[0] == 0
    api.seal(
        api.SealRequest(
            repo=invoicekit, python=str(TARGET_PYTHON), sandbox="none", test_id=FAILING, runs=1
        )
    )
    # from the project's directory or a subdirectory of it: nothing of the agent's
    for cwd in (invoicekit, invoicekit / "tests"):
        stop = payload("stop", invoicekit, session_id=new_session(), cwd=str(cwd))
        assert _said(stop) is None
    discounts = invoicekit / "invoicekit" / "discounts.py"
    discounts.write_text(discounts.read_text().replace(">", ">="), encoding="utf-8")
    got = _said(
        payload("stop", invoicekit, session_id=new_session(), cwd=str(invoicekit / "tests"))
    )
    assert got is not None and "(invoicekit/discounts.py)" in got["reason"]


@pytest.mark.slow
def test_the_installed_hook_runs_the_tests_with_its_python(
    venv_project: Path, new_session: Callable[[], str], capsys: pytest.CaptureFixture[str]
) -> None:
    python = str(venv_project / "venv" / "bin" / "python")
    assert cli(capsys, "install-claude", "--repo", str(venv_project), "--python", python)[0] == 0
    settings = json.loads((venv_project / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["PostToolUseFailure"][-1]["hooks"][0]["command"]
    # a bare `python -m pytest` (an activated venv the payload does not show)
    data = payload(
        "post_tool_use_failure_pytest_venv", venv_project, session_id=new_session(),
        tool_input={"command": "python -m pytest tests/test_zz_dep.py"},
    )  # fmt: skip
    env = {**os.environ, "TRUEGREEN_HOOK_DEADLINE": "120"}
    done = subprocess.run(
        ["sh", "-c", command], cwd=venv_project, input=json.dumps(data), capture_output=True,
        text=True, env=env, timeout=180, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and done.stdout, done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context.startswith(f"truegreen: context for {DEP_TEST}")
    assert python in context  # the rerun command


def test_another_parameter_of_an_explained_test_function_is_not_explained_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found on packaging: one bug failed three parameters of a test, whose values in the
    message made three signatures, and the hook explained it three times in one session."""
    monkeypatch.setenv("TRUEGREEN_HOME", str(tmp_path / "home"))
    session = hook.Session("params")
    first = "tests/test_specifiers.py::test_contains[2.0-<=2.0.0-True]"
    sibling = "tests/test_specifiers.py::test_contains[2.0-<=2-True]"
    other = "tests/test_specifiers.py::test_other"
    signatures = {first: "#4d61", sibling: "#fe03", other: "#aa00"}
    assert hook.unexplained(session, [first, sibling, other], signatures) == [
        first,
        sibling,
        other,
    ]
    session.remember(signatures[first])
    session.remember(hook._function_key(first))
    session.save()
    again = hook.Session("params")
    assert hook.unexplained(again, [first, sibling, other], signatures) == [other]
