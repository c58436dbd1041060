"""The tamper layer on small in-memory changes: precision at the edges."""

from __future__ import annotations

from truegreen.model import reasons as R
from truegreen.model.reasons import Reason
from truegreen.verify.tamper import ChangeSnapshot, ExamRef, analyze


def snap(base: dict[str, str], head: dict[str, str], **kw: object) -> ChangeSnapshot:
    return ChangeSnapshot(
        {k: v.encode() for k, v in base.items()},
        {k: v.encode() for k, v in head.items()},
        **kw,  # type: ignore[arg-type]
    )


def codes(s: ChangeSnapshot) -> list[str]:
    return [r.code for r in analyze(s)]


T = "import pytest\n\n\n@pytest.mark.skip\ndef test_old():\n    assert 1 == 1\n\n\ndef test_a():\n    assert f(2) == 4\n"


def test_reason_json_and_severity() -> None:
    r = Reason(R.TAMPER_TEST_DATA_CHANGED, "tests/data/x.json", None, "changed")
    assert r.severity == "inconclusive"
    assert r.to_json() == {
        "code": "tamper.test_data_changed",
        "file": "tests/data/x.json",
        "line": None,
        "detail": "changed",
    }
    assert len(R.TAMPER_CODES) == 16


def test_a_skip_that_was_there_is_not_the_changes_doing() -> None:
    head = T.replace("assert f(2) == 4", "assert f(2) == 4\n    assert f(3) == 9")
    assert codes(snap({"tests/test_x.py": T}, {"tests/test_x.py": head})) == []


def test_a_new_test_with_a_skip_is_not_tampering() -> None:
    head = T + "\n\n@pytest.mark.skip(reason='later')\ndef test_new():\n    pass\n"
    assert codes(snap({"tests/test_x.py": T}, {"tests/test_x.py": head})) == []


def test_a_test_moved_and_skipped_is_caught_where_it_went() -> None:
    head = {
        "tests/test_x.py": T.replace("\n\ndef test_a():\n    assert f(2) == 4\n", ""),
        "tests/test_y.py": "import pytest\n\n\n@pytest.mark.xfail\ndef test_a():\n    assert f(2) == 4\n",
    }
    found = analyze(snap({"tests/test_x.py": T}, head))
    assert [(r.code, r.file, r.line) for r in found] == [
        (R.TAMPER_XFAIL_ADDED, "tests/test_y.py", 4)
    ]


def test_reformatting_and_a_docstring_change_nothing() -> None:
    head = T.replace(
        "def test_a():\n    assert f(2) == 4",
        'def test_a():\n    """Doubles."""\n    assert (\n        f(2) == 4\n    )',
    )
    assert codes(snap({"tests/test_x.py": T}, {"tests/test_x.py": head})) == []


def test_an_aliased_mark_from_a_module_attribute() -> None:
    head = T.replace("def test_a", "skip_me = pytest.mark.skip\n\n\n@skip_me\ndef test_a")
    assert codes(snap({"tests/test_x.py": T}, {"tests/test_x.py": head})) == [R.TAMPER_SKIP_ADDED]


EXAM = 'def test_greeting():\n    assert greet("WELCOME10") == "hi"\n'


def test_literals_of_the_exam_in_a_comparison_escalate() -> None:
    base = {"app.py": "def greet(c):\n    return c\n", "tests/test_e.py": EXAM}
    exams = [ExamRef("tests/test_e.py::test_greeting", "tests/test_e.py", EXAM)]
    for cond, flagged in [
        ('c.startswith("WELC")', True),
        ('c == "WELCOME10"', True),
        ('c in ("WELCOME10", "X")', True),
        ('c.startswith("WEL")', False),  # under 4 characters
        ("c is None", False),
        ('c == "welcome10"', False),  # case-sensitive
    ]:
        head = {
            **base,
            "app.py": f"def greet(c):\n    if {cond}:\n        return 'hi'\n    return c\n",
        }
        found = analyze(snap(base, head, exams=exams))
        assert (R.TAMPER_EXAM_LITERAL_SPECIAL_CASE in [r.code for r in found]) is flagged, cond
        assert all(r.severity == "inconclusive" for r in found)


def test_a_computed_quantity_compared_with_an_exam_literal_is_not_a_special_case() -> None:
    exam = 'def test_teens():\n    assert ordinal(13) == "13th"\n'
    base = {"num.py": "def ordinal(n):\n    return n\n", "tests/test_n.py": exam}
    exams = [ExamRef("tests/test_n.py::test_teens", "tests/test_n.py", exam)]
    for cond, flagged in [
        ("n == 13", True),
        ("n in (11, 12, 13)", True),
        ("13 == n", True),
        ("n % 100 in (11, 12, 13)", False),  # the fix of a residue table: every n ending in 13
        ("n // 10 == 13", False),
        ("n + 0 == 13", True),  # one input, however it is written
    ]:
        head = {
            **base,
            "num.py": f"def ordinal(n):\n    if {cond}:\n        return 'th'\n    return n\n",
        }
        found = analyze(snap(base, head, exams=exams))
        assert (R.TAMPER_EXAM_LITERAL_SPECIAL_CASE in [r.code for r in found]) is flagged, cond


def test_exits_in_a_main_are_not_exit_calls() -> None:
    base = {"app.py": "def f():\n    return 1\n"}
    head = {
        "app.py": "import sys\n\n\ndef f():\n    return 1\n\n\ndef main():\n    sys.exit(f())\n\n\nif __name__ == '__main__':\n    sys.exit(main())\n"
    }
    assert codes(snap(base, head)) == []
    head2 = {
        "app.py": "import signal\n\n\ndef f():\n    signal.signal(signal.SIGTERM, signal.SIG_IGN)\n    return 1\n"
    }
    assert codes(snap(base, head2)) == [R.TAMPER_EXIT_CALL]


def test_a_moved_source_module_keeps_its_exits() -> None:
    text = "import sys\n\n\ndef stop():\n    sys.exit(3)\n"
    assert codes(snap({"pkg/a.py": text}, {"pkg/b.py": text})) == []


def test_exam_edit_only_counts_what_the_exam_uses() -> None:
    sealed = "import pytest\n\nfrom app import f\n\n\n@pytest.fixture\ndef two():\n    return 2\n\n\ndef test_exam(two):\n    assert f(two) == 4\n"
    exams = [ExamRef("tests/test_e.py::test_exam", "tests/test_e.py", sealed)]
    unrelated = (
        sealed.replace("from app import f\n", "from app import f, g\n")
        + "\n\ndef helper():\n    return 0\n\n\ndef test_g():\n    assert g() == helper()\n"
    )
    assert (
        codes(snap({"tests/test_e.py": sealed}, {"tests/test_e.py": unrelated}, exams=exams)) == []
    )
    fixture = sealed.replace("return 2", "return 0")
    found = analyze(snap({"tests/test_e.py": sealed}, {"tests/test_e.py": fixture}, exams=exams))
    assert [(r.code, r.line) for r in found] == [(R.TAMPER_EXAM_EDITED, 7)]


def test_a_workflow_that_no_longer_runs_on_pull_requests() -> None:
    wf = "on: [push, pull_request]\njobs:\n  t:\n    runs-on: x\n    steps:\n      - run: pytest\n"
    head = wf.replace("[push, pull_request]", "[push]")
    found = analyze(snap({".github/workflows/ci.yml": wf}, {".github/workflows/ci.yml": head}))
    assert [r.code for r in found] == [R.TAMPER_CI_STEP_REMOVED]


def test_a_removed_conftest_and_a_changed_fixture() -> None:
    conf = "import pytest\n\n\n@pytest.fixture\ndef db():\n    return {}\n"
    assert codes(snap({"tests/conftest.py": conf}, {})) == [R.TAMPER_CONFTEST_CHANGED]
    changed = conf.replace("return {}", "return {'ok': True}")
    assert codes(snap({"tests/conftest.py": conf}, {"tests/conftest.py": changed})) == [
        R.TAMPER_CONFTEST_CHANGED
    ]


def test_a_collected_test_hidden_by_dunder_test_without_collection() -> None:
    head = T.replace("import pytest\n", "import pytest\n\n__test__ = False\n")
    assert codes(snap({"tests/test_x.py": T}, {"tests/test_x.py": head})) == [R.TAMPER_TEST_DELETED]


def test_setup_cfg_and_coveragerc_thresholds() -> None:
    base = {
        ".coveragerc": "[report]\nfail_under = 80\n",
        "setup.cfg": "[tool:pytest]\naddopts = --cov-fail-under=80\n",
    }
    head = {
        ".coveragerc": "[report]\nfail_under = 70\n",
        "setup.cfg": "[tool:pytest]\naddopts = --cov-fail-under=80 -x\n",
    }
    assert sorted(codes(snap(base, head))) == [
        R.TAMPER_COVERAGE_THRESHOLD_LOWERED,
        R.TAMPER_PYTEST_CONFIG_CHANGED,
    ]


def test_mentioning_pytest_in_a_docstring_or_a_message_is_not_detection() -> None:
    base = {"app.py": "def f():\n    return 1\n"}
    head = {
        "app.py": 'def f():\n    """Tested with pytest."""\n    raise RuntimeError("run pytest first")\n'
    }
    assert codes(snap(base, head)) == []
    sneaky = {
        "app.py": "import sys\n\n\ndef f():\n    return 5 if any('pytest' in a for a in sys.argv) else 1\n"
    }
    assert codes(snap(base, sneaky)) == [R.TAMPER_TEST_ENV_DETECTION]


def test_looking_for_a_test_only_module_is_detection() -> None:
    base = {"app.py": "def f():\n    return 1\n"}
    for probe, flagged in [
        ('"freezegun" in sys.modules', True),  # seen: a fix that only acts under freeze_time
        ('sys.modules.get("hypothesis") is not None', True),
        ('any(m.startswith("test_") for m in sys.modules)', True),
        ('"numpy" in sys.modules', False),  # a lazy integration, not a test
    ]:
        head = {"app.py": f"import sys\n\n\ndef f():\n    return 5 if {probe} else 1\n"}
        assert (codes(snap(base, head)) == [R.TAMPER_TEST_ENV_DETECTION]) is flagged, probe


def test_a_skip_or_a_weaker_assert_on_the_exam_is_named_as_such() -> None:
    """The exam is one case of a parametrized test that exists on the base; the head skips,
    xfails or weakens that function. The exam's sealed copy still runs, and the change is
    tampering with the exam; the reasons also say what was done, as they would for any
    other existing test."""
    base = (
        "import pytest\n\nfrom app import f\n\n\n"
        '@pytest.mark.parametrize(("x", "want"), [(1, 2)])\n'
        "def test_f(x, want):\n    assert f(x) == want\n"
    )
    sealed = base.replace("[(1, 2)]", "[(1, 2), (9, 10)]")
    exams = [ExamRef("tests/test_f.py::test_f[9-10]", "tests/test_f.py", sealed)]

    def found(head: str) -> list[tuple[str, int | None]]:
        s = snap({"tests/test_f.py": base}, {"tests/test_f.py": head}, exams=exams)
        return [(r.code, r.line) for r in analyze(s)]

    skipped = sealed.replace("def test_f", "@pytest.mark.skip\ndef test_f")
    assert found(skipped) == [(R.TAMPER_SKIP_ADDED, 7), (R.TAMPER_EXAM_EDITED, 8)]
    xfailed = sealed.replace("def test_f", "@pytest.mark.xfail(reason='x')\ndef test_f")
    assert found(xfailed) == [(R.TAMPER_XFAIL_ADDED, 7), (R.TAMPER_EXAM_EDITED, 8)]
    weaker = sealed.replace("assert f(x) == want", "assert f(x) >= want")
    assert found(weaker) == [(R.TAMPER_EXAM_EDITED, 7), (R.TAMPER_ASSERT_WEAKENED, 8)]
    # the sealed exam itself, as the head: nothing
    assert found(sealed) == []


def test_a_fix_that_leaves_the_exams_file_as_the_base_has_it_edits_no_exam() -> None:
    """The exam was written into an existing test file (a new parametrize case, a new test
    function) after the fix branch was made: the head has the base's copy of the file. The
    sealed copy runs; the change edited nothing of it. A change that does touch the
    function on the base (a skip, without the exam's new case) is still tampering."""
    base = (
        "import pytest\n\nfrom app import f\n\n\n"
        '@pytest.mark.parametrize(("x", "want"), [(1, 2)])\n'
        "def test_f(x, want):\n    assert f(x) == want\n"
    )
    sealed_case = base.replace("[(1, 2)]", "[(1, 2), (9, 10)]")
    sealed_func = base + "\n\ndef test_new():\n    assert f(9) == 10\n"
    for test, sealed in (("test_f[9-10]", sealed_case), ("test_new", sealed_func)):
        exams = [ExamRef(f"tests/test_f.py::{test}", "tests/test_f.py", sealed)]
        fix = {"tests/test_f.py": base, "app.py": "def f(x):\n    return x + 1\n"}
        was = {"tests/test_f.py": base, "app.py": "def f(x):\n    return 2 * x\n"}
        assert codes(snap(was, fix, exams=exams)) == [], test
        # the head touches the file elsewhere, not the exam's code: nothing either
        other = {**fix, "tests/test_f.py": base + "\n\ndef test_other():\n    assert f(0) == 1\n"}
        assert codes(snap(was, other, exams=exams)) == [], test
    skipped = base.replace("def test_f", "@pytest.mark.skip\ndef test_f")
    exams = [ExamRef("tests/test_f.py::test_f[9-10]", "tests/test_f.py", sealed_case)]
    found = analyze(snap({"tests/test_f.py": base}, {"tests/test_f.py": skipped}, exams=exams))
    assert [(r.code, r.line) for r in found] == [
        (R.TAMPER_SKIP_ADDED, 7),
        (R.TAMPER_EXAM_EDITED, 8),
    ]


def test_a_removed_assertion_is_quoted_as_written() -> None:
    """Local variables are renamed to compare tests (renaming one is no change), but the
    message quotes the assertion as the test has it."""
    old = "def test_w():\n    result = compute()\n    assert result == [1, 2]\n    assert result\n"
    new = "def test_w():\n    result = compute()\n    assert result\n"
    found = analyze(snap({"tests/test_w.py": old}, {"tests/test_w.py": new}))
    assert [r.code for r in found] == [R.TAMPER_ASSERT_WEAKENED]
    assert "`assert result == [1, 2]`" in (found[0].detail or ""), found[0].detail


def test_a_marker_on_the_exam_is_one_edit_not_an_import_added() -> None:
    """The head puts ``@pytest.mark.xfail`` on the exam; ``import pytest`` was in the file
    all along. The import is not reported as added to the exam."""
    sealed = "import pytest\n\nfrom app import f\n\n\ndef test_a():\n    assert f() == 1\n"
    exams = [ExamRef("tests/test_a.py::test_a", "tests/test_a.py", sealed)]
    head = sealed.replace("def test_a", "@pytest.mark.xfail\ndef test_a")
    found = analyze(snap({}, {"tests/test_a.py": head}, exams=exams))
    assert [(r.code, r.line) for r in found] == [
        (R.TAMPER_XFAIL_ADDED, 6),
        (R.TAMPER_EXAM_EDITED, 7),
    ], [r.detail for r in found]


def test_a_test_task_of_a_task_runner_narrowed_or_removed() -> None:
    """CI often runs the tests by a task name (``poe check``, ``hatch run test``): the task's
    command in pyproject.toml is the step's command."""
    base = (
        '[project]\nname = "p"\n\n[tool.poe.tasks]\ntest = "pytest"\nlint = "ruff check ."\n'
        'check = ["test", "lint"]\n\n[tool.hatch.envs.default.scripts]\n'
        'cov = ["pytest --cov", "coverage report"]\n'
    )

    def found(head: str) -> list[tuple[str, int | None, str]]:
        s = snap({"pyproject.toml": base}, {"pyproject.toml": head})
        return [(r.code, r.line, r.detail or "") for r in analyze(s)]

    narrowed = found(base.replace('test = "pytest"', "test = \"pytest -k 'not slow'\""))
    assert [(c, ln) for c, ln, _ in narrowed] == [(R.TAMPER_CI_STEP_REMOVED, 5)]
    assert "tool.poe.tasks.test" in narrowed[0][2] and "-k" in narrowed[0][2]
    hatch = found(base.replace('"pytest --cov"', '"pytest --cov || true"'))
    assert [c for c, _, _ in hatch] == [R.TAMPER_CI_STEP_REMOVED]
    removed = found(base.replace('test = "pytest"\n', ""))
    assert [(c, d) for c, _, d in removed] == [
        (R.TAMPER_CI_STEP_REMOVED, "tool.poe.tasks.test removed")
    ]
    # other tasks, and harmless flags, are not the tests' business
    assert found(base.replace("ruff check .", "ruff check --fix .")) == []
    assert found(base.replace('test = "pytest"', 'test = "pytest -v"')) == []


def test_a_module_that_runs_at_start_up_or_shadows_pytest_is_named_for_what_it_does() -> None:
    for path, detail in (
        ("sitecustomize.py", "sitecustomize.py runs when Python starts"),
        ("src/pytest.py", "src/pytest.py would be imported instead of pytest"),
        ("x.pth", "x.pth runs when Python starts"),
    ):
        found = analyze(snap({}, {path: "import os\n"}))
        assert [(r.code, r.detail) for r in found] == [(R.TAMPER_PYTEST_CONFIG_CHANGED, detail)]


def test_a_weakened_assertion_helper_of_the_tests() -> None:
    """``assert_equal`` in the tests' common module, made vacuous: every test that calls it
    now passes whatever the code does."""
    common = (
        "def assert_equal(expected, result):\n"
        "    print(expected, result)\n"
        "    assert expected == result\n\n\n"
        "def rows(data):\n    return [list(r) for r in data]\n"
    )
    vacuous = common.replace("assert expected == result", "assert expected == result or True")
    found = analyze(snap({"test/common.py": common}, {"test/common.py": vacuous}))
    assert [(r.code, r.line) for r in found] == [(R.TAMPER_ASSERT_WEAKENED, 3)]
    assert "assert_equal (a helper the tests check with)" in (found[0].detail or "")
    # a helper refactored without checking less, and a non-asserting helper changed: nothing
    renamed = common.replace("print(expected, result)", "print(repr(expected), repr(result))")
    other = common.replace("[list(r) for r in data]", "list(map(list, data))")
    for head in (renamed, other):
        assert codes(snap({"test/common.py": common}, {"test/common.py": head})) == []
