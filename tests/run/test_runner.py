"""The supervised runner against real pytest runs of fixture projects."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.conftest import TARGET_PYTHON, live_processes_with
from truegreen.errors import UsageError
from truegreen.run.interpreter import resolve
from truegreen.run.pytest_run import PROBE_TB_VAR, PytestRequest, UnknownTestError, run_pytest
from truegreen.run.results import PytestRun


def run(root: Path, *ids: str, timeout: float = 60, **kw: object) -> PytestRun:
    interp = resolve(str(TARGET_PYTHON), root)
    return run_pytest(
        PytestRequest(repo=root, interpreter=interp, test_ids=ids, timeout=timeout, **kw)
    )  # type: ignore[arg-type]


def outcomes(result: PytestRun) -> dict[str, str]:
    return {t.id: t.outcome for t in result.tests}


def test_odd_parametrize_ids_pass_through_unharmed(make_project):
    root = make_project(
        {
            "tests/test_odd.py": """
        import pytest
        @pytest.mark.parametrize("v", ["a b", "high[edge] x::y", "semi;colon"], ids=lambda v: v)
        def test_clamp(v):
            assert v != "semi;colon"
    """
        }
    )
    ids = [
        "tests/test_odd.py::test_clamp[a b]",
        "tests/test_odd.py::test_clamp[high[edge] x::y]",
        "tests/test_odd.py::test_clamp[semi;colon]",
    ]
    result = run(root, *ids)
    assert outcomes(result) == dict(zip(ids, ["passed", "passed", "failed"], strict=True))
    assert result.complete


def test_unittest_classes_fixture_errors_xfail_and_skip(make_project):
    root = make_project(
        {
            "tests/test_kinds.py": """
        import unittest, pytest

        class TestCase(unittest.TestCase):
            def test_ok(self):
                self.assertEqual(1, 1)
            def test_bad(self):
                self.assertEqual(1, 2)

        @pytest.fixture
        def broken():
            raise RuntimeError("fixture exploded")

        def test_setup_error(broken):
            pass

        @pytest.fixture
        def bad_teardown():
            yield
            raise RuntimeError("teardown exploded")

        def test_teardown_error(bad_teardown):
            pass

        @pytest.mark.xfail(reason="known")
        def test_xfail():
            assert False

        @pytest.mark.xfail(reason="fixed already")
        def test_xpass():
            pass

        @pytest.mark.xfail(reason="strict", strict=True)
        def test_xpass_strict():
            pass

        @pytest.mark.skip(reason="not today")
        def test_skip():
            pass
    """
        }
    )
    result = run(root, "tests/test_kinds.py")
    got = outcomes(result)
    p = "tests/test_kinds.py::"
    assert got == {
        p + "TestCase::test_ok": "passed",
        p + "TestCase::test_bad": "failed",
        p + "test_setup_error": "error",
        p + "test_teardown_error": "error",
        p + "test_xfail": "xfailed",
        p + "test_xpass": "xpassed",
        p + "test_xpass_strict": "failed",
        p + "test_skip": "skipped",
    }
    by = result.by_id()
    assert by[p + "test_setup_error"].phase == "setup"
    assert by[p + "test_setup_error"].signature is not None
    assert "RuntimeError" in (by[p + "test_setup_error"].signature or "")
    assert by[p + "test_teardown_error"].phase == "teardown"
    assert by[p + "test_skip"].reason == "not today"


def test_collection_error_is_an_error_never_a_pass(make_project):
    root = make_project(
        {
            "tests/test_ok.py": "def test_fine():\n    pass\n",
            "tests/test_broken.py": "import no_such_module_xyz\n\ndef test_never():\n    pass\n",
        }
    )
    result = run(root, "tests/test_broken.py::test_never", "tests/test_ok.py::test_fine")
    got = outcomes(result)
    assert got["tests/test_broken.py::test_never"] == "error"
    assert result.collection_errors
    broken = result.by_id()["tests/test_broken.py::test_never"]
    assert broken.phase == "collect"
    assert "ModuleNotFoundError" in (broken.signature or "")


def test_os_exit_in_a_test_is_no_report(make_project):
    root = make_project(
        {
            "tests/test_exit.py": """
        import os
        def test_first():
            pass
        def test_exits():
            os._exit(0)
    """
        }
    )
    result = run(root, "tests/test_exit.py")
    assert result.exit_code == 0  # the process claims success...
    assert not result.complete  # ...but never finished the session
    assert set(outcomes(result).values()) == {"no_report"}  # so nothing counts as a pass
    assert result.by_id()["tests/test_exit.py::test_first"].observed == "passed"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes.
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
def test_a_hanging_test_is_killed_at_the_deadline_with_its_children(
    make_project, tmp_path, process_tag
):
    pidfile = tmp_path / "child.pid"
    root = make_project(
        {
            "tests/test_hang.py": f"""
        import os, time
        def test_hangs():
            pid = os.fork()
            if pid == 0:
                os.setsid()  # try to escape the process group
                time.sleep(600)
                os._exit(0)
            open({str(pidfile)!r}, "w").write(str(pid))
            time.sleep(600)
    """
        }
    )
    start = time.monotonic()
    result = run(root, "tests/test_hang.py::test_hangs", timeout=3)
    assert time.monotonic() - start < 30
    assert result.timed_out
    assert outcomes(result) == {"tests/test_hang.py::test_hangs": "no_report"}
    child = int(pidfile.read_text())
    for _ in range(50):
        if not _alive(child):
            break
        time.sleep(0.05)
    assert not _alive(child)
    assert live_processes_with(process_tag) == []


@pytest.mark.slow
def test_a_child_forked_by_a_passing_test_does_not_outlive_the_run(make_project, tmp_path):
    pidfile = tmp_path / "child.pid"
    root = make_project(
        {
            "tests/test_fork.py": f"""
        import os, time
        def test_forks_and_passes():
            pid = os.fork()
            if pid == 0:
                time.sleep(600)
                os._exit(0)
            open({str(pidfile)!r}, "w").write(str(pid))
    """
        }
    )
    result = run(root, "tests/test_fork.py::test_forks_and_passes", timeout=60)
    assert outcomes(result) == {"tests/test_fork.py::test_forks_and_passes": "passed"}
    child = int(pidfile.read_text())
    for _ in range(50):
        if not _alive(child):
            break
        time.sleep(0.05)
    assert not _alive(child)


@pytest.mark.slow
def test_fifty_megabytes_of_output_is_captured_in_bounded_memory(make_project):
    root = make_project(
        {
            "tests/test_loud.py": """
        import sys
        def test_loud():
            chunk = "x" * 1023 + "\\n"
            for _ in range(50 * 1024):
                sys.stdout.write(chunk)
            assert False, "after the noise"
    """
        }
    )
    result = run(root, "tests/test_loud.py::test_loud", timeout=120, capture_limit=1024 * 1024)
    assert outcomes(result) == {"tests/test_loud.py::test_loud": "failed"}
    assert len(result.stdout_tail) < 10_000
    t = result.by_id()["tests/test_loud.py::test_loud"]
    assert len(t.excerpt) <= 3000
    assert t.signature and t.signature.startswith("AssertionError@")


def test_addopts_asking_for_a_missing_plugin_does_not_stop_the_run(make_project):
    root = make_project(
        {
            "pyproject.toml": '[tool.pytest.ini_options]\naddopts = "-p no_such_plugin_xyz --no-such-flag -k nothing"\n',
            "tests/test_a.py": "def test_a():\n    pass\n",
        }
    )
    result = run(root, "tests/test_a.py::test_a")
    assert outcomes(result) == {"tests/test_a.py::test_a": "passed"}


@pytest.mark.slow
def test_addopts_that_make_the_tests_run_are_kept_and_narrowing_ones_are_not(make_project):
    root = make_project(
        {
            # two test modules with one basename need importlib mode; the pytester fixture
            # needs -p pytester; the project's own plugin module gives a fixture
            "pyproject.toml": "[tool.pytest.ini_options]\naddopts = "
            '"--import-mode=importlib -p pytester -p tests.helpers -p no:warnings '
            '-k nothing --deselect tests/a/test_same.py::test_a -x --strict-markers"\n',
            "tests/helpers.py": "import pytest\n\n@pytest.fixture\ndef answer():\n    return 42\n",
            "tests/a/test_same.py": "def test_a(pytester, answer):\n    assert answer == 42\n",
            "tests/b/test_same.py": "import pytest\n\n@pytest.mark.undeclared\ndef test_b():\n    pass\n",
        }
    )
    result = run(root, "tests/a/test_same.py::test_a")
    assert outcomes(result)["tests/a/test_same.py::test_a"] == "passed", result.stdout_tail
    for kept in ("--import-mode=importlib", "pytester", "tests.helpers", "--strict-markers"):
        assert kept in result.command
    for dropped in ("no:warnings", "nothing", "--deselect", "-x"):
        assert dropped not in result.command
    # --strict-markers kept: an undeclared marker is an error, as in the project's own runs
    strict = run(root, "tests/b/test_same.py::test_b")
    assert "'undeclared' not found in `markers`" in strict.stdout_tail


@pytest.mark.slow
def test_the_same_failure_gives_the_same_signature_and_a_different_one_differs(make_project):
    root = make_project(
        {
            "pkg/__init__.py": "",
            "pkg/core.py": """
            import tempfile
            def load(n):
                path = tempfile.mkdtemp()
                raise ValueError(f"bad record {n} at {path} id={id(path):#x}")
            def other():
                raise KeyError("missing")
        """,
            "tests/test_sig.py": """
            import random
            from pkg.core import load, other
            def test_load():
                load(random.randint(0, 10**6))
            def test_other():
                other()
        """,
        }
    )
    first = run(root, "tests/test_sig.py")
    second = run(root, "tests/test_sig.py")
    a, b = first.by_id(), second.by_id()
    sig = a["tests/test_sig.py::test_load"].signature
    assert sig == b["tests/test_sig.py::test_load"].signature
    assert sig is not None and sig.startswith("ValueError@pkg/core.py:load#")
    assert a["tests/test_sig.py::test_other"].signature != sig


@pytest.mark.slow
def test_under_xdist_the_probe_still_reports_every_test(make_project):
    root = make_project(
        {
            "tests/test_x.py": """
        import pytest
        @pytest.mark.parametrize("i", range(6))
        def test_i(i):
            assert i != 3
    """
        }
    )
    result = run(root, "tests/test_x.py", controlled=False, args=("-p", "xdist", "-n", "2"))
    got = outcomes(result)
    assert len(got) == 6
    assert got["tests/test_x.py::test_i[3]"] == "failed"
    assert sorted(result.collected) == sorted(got)
    assert result.complete


@pytest.mark.slow
def test_an_unknown_test_id_is_a_usage_error(make_project):
    root = make_project({"tests/test_a.py": "def test_a():\n    pass\n"})
    with pytest.raises(UnknownTestError, match="test_nope"):
        run(root, "tests/test_a.py::test_nope")
    with pytest.raises(UnknownTestError, match=r"missing\.py"):
        run(root, "tests/missing.py::test_a")


def test_secrets_in_the_environment_do_not_reach_tests(make_project, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secretsecret")
    monkeypatch.setenv("PYTEST_ADDOPTS", "-k nothing")
    root = make_project(
        {
            "tests/test_env.py": """
        import os
        def test_env():
            assert "GITHUB_TOKEN" not in os.environ
            assert "PYTEST_ADDOPTS" not in os.environ
    """
        }
    )
    assert outcomes(run(root, "tests/test_env.py::test_env")) == {
        "tests/test_env.py::test_env": "passed"
    }


def test_bad_interpreters_are_refused_with_a_clear_message(tmp_path):
    not_python = tmp_path / "fake-python"
    not_python.write_text("#!/bin/sh\necho hello\n")
    not_python.chmod(0o755)
    with pytest.raises(UsageError, match="not a working Python"):
        resolve(str(not_python), tmp_path)
    with pytest.raises(UsageError, match="does not exist"):
        resolve(str(tmp_path / "nope"), tmp_path)


@pytest.mark.slow
@pytest.mark.autoload  # pytest-timeout stops the test
def test_a_timeout_has_one_signature_wherever_the_test_was_stopped(make_project):
    from truegreen.run.signature import Frame, make_signature

    test = Frame("tests/test_hang.py", 7, "test_hangs")
    a = [test, Frame("pkg/core.py", 3, "spin"), Frame("pkg/core.py", 9, "_len")]
    b = [test, Frame("pkg/core.py", 3, "spin"), Frame("pkg/text.py", 4, "_strip")]
    msg = "Timeout (>0.5s) from pytest-timeout."
    assert make_signature("Failed", msg, a) == make_signature("Failed", msg, b)
    assert make_signature("Failed", msg, a).startswith("Failed@tests/test_hang.py:test_hangs#")
    # any other failure keeps the deepest project frame
    assert make_signature("Failed", "boom", a) != make_signature("Failed", "boom", b)
    assert make_signature("ValueError", msg, a) != make_signature("ValueError", msg, b)

    root = make_project(
        {
            "pkg/__init__.py": "",
            "pkg/core.py": """
            def one(n):
                return sum(range(n))
            def two(n):
                return len(str(n)) * n
            def spin():
                while True:
                    one(500)
                    two(500)
            """,
            "tests/test_hang.py": """
            import pytest
            from pkg.core import spin

            @pytest.mark.timeout(0.3)
            def test_hangs():
                spin()
            """,
        }
    )
    sigs = {run(root, "tests/test_hang.py").by_id()["tests/test_hang.py::test_hangs"].signature}
    sigs.add(run(root, "tests/test_hang.py").by_id()["tests/test_hang.py::test_hangs"].signature)
    assert len(sigs) == 1
    assert next(iter(sigs)).startswith("Failed@tests/test_hang.py:test_hangs#")


def test_outcomes_only_run_formats_no_traceback_but_keeps_signatures_and_collection_errors(
    make_project,
):
    """TRUEGREEN_PROBE_TB=no (the regression layer's suite runs): a failure carries its
    signature, exception and crash line but no formatted traceback; a module that cannot be
    collected still says why."""
    root = make_project(
        {
            "tests/test_a.py": """
        def helper(x):
            return x + 1

        def test_fails():
            assert helper(1) == 3, "helper is off"
    """,
            "tests/test_broken.py": "import no_such_module_xyz\n",
        }
    )
    plain = run(root, args=("--continue-on-collection-errors", "tests"))
    quiet = run(
        root,
        args=("--continue-on-collection-errors", "tests"),
        env={PROBE_TB_VAR: "no"},
    )
    for result in (plain, quiet):
        assert outcomes(result) == {"tests/test_a.py::test_fails": "failed"}
        t = result.by_id()["tests/test_a.py::test_fails"]
        assert t.signature and t.signature.startswith("AssertionError@")
        assert t.exc_type == "AssertionError" and "helper is off" in (t.message or "")
        (error,) = result.collection_errors
        assert "no_such_module_xyz" in error.excerpt
    assert (
        'assert helper(1) == 3, "helper is off"'
        in plain.by_id()["tests/test_a.py::test_fails"].excerpt
    )
    assert "assert helper(1) == 3" not in quiet.by_id()["tests/test_a.py::test_fails"].excerpt
