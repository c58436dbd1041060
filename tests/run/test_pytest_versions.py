"""The probe is stdlib-only and works with pytest 7, 8 and 9 (the project's own pytest)."""

from __future__ import annotations

import pytest

from tests.conftest import venv_with
from truegreen.run.interpreter import resolve
from truegreen.run.pytest_run import PytestRequest, run_pytest


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["pytest>=7.4,<8", "pytest>=8.3,<9"])
def test_probe_under_older_pytest(spec, make_project):
    python = venv_with(spec)
    root = make_project(
        {
            "tests/test_v.py": """
        import pytest
        def test_pass():
            pass
        def test_fail():
            assert 1 == 2
        @pytest.mark.xfail
        def test_xfail():
            assert False
        @pytest.fixture
        def boom():
            raise RuntimeError("x")
        def test_error(boom):
            pass
        def check(x):
            __tracebackhide__ = True
            assert x == 1
        def test_hidden():
            check(2)
    """
        }
    )
    interp = resolve(str(python), root)
    assert interp.pytest.split(".")[0] == spec.split(">=")[1][0]
    run = run_pytest(
        PytestRequest(repo=root, interpreter=interp, test_ids=("tests/test_v.py",), sandbox="none")
    )
    assert run.complete
    assert {t.id.split("::")[1]: t.outcome for t in run.tests} == {
        "test_pass": "passed",
        "test_fail": "failed",
        "test_xfail": "xfailed",
        "test_error": "error",
        "test_hidden": "failed",
    }
    assert run.by_id()["tests/test_v.py::test_fail"].signature.startswith("AssertionError@")
    # the probe reads __tracebackhide__ under each pytest: the signature names the test
    hidden = run.by_id()["tests/test_v.py::test_hidden"]
    assert hidden.signature.startswith("AssertionError@tests/test_v.py:test_hidden#")
    assert hidden.legacy_signature.startswith("AssertionError@tests/test_v.py:check#")


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["pytest>=7.4,<8", "pytest>=8.3,<9"])
def test_selection_gate_under_older_pytest(spec, make_project, tmp_path):
    """The selection plugin's gate (verify/_regress/truegreen_select.py): started on the
    suite's arguments, told its files, it collects those alone under each pytest."""
    import json
    import threading

    from truegreen.verify import pipeline, selection

    python = venv_with(spec)
    root = make_project(
        {
            "tests/conftest.py": "",
            "tests/a/test_x.py": "def test_x():\n    pass\n",
            "tests/b/test_broken.py": "import no_such_module_xyz\n",
        }
    )
    gate = tmp_path / "collect.json"
    got = {}
    request = PytestRequest(
        repo=root,
        interpreter=resolve(str(python), root),
        args=("tests",),
        plugins=(selection.SELECT_PLUGIN,),
        pythonpath=(selection.RECORD_DIR,),
        env={pipeline.GATE_VAR: str(gate), pipeline.GATE_WAIT_VAR: "60"},
        sandbox="none",
    )
    thread = threading.Thread(target=lambda: got.update(run=run_pytest(request)))
    thread.start()
    gate.write_text(json.dumps({"files": ["tests/a/test_x.py"]}))
    thread.join(120)
    run = got["run"]
    assert run.complete
    assert [(t.id, t.outcome) for t in run.tests] == [("tests/a/test_x.py::test_x", "passed")]
    assert run.collection_errors == ()
