"""Regression selection end to end (issue #38): the first verification of a base records
it and runs the whole suite; the next one runs what the change can affect, and still
catches a regression there; ``--regression full`` runs everything."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import cli, git
from tests.verify.conftest import PY, seal_exam
from truegreen.model.documents import validate
from truegreen.sandbox import bwrap
from truegreen.verify import pipeline, selection

FILES = {
    "calc.py": """
        def add(a, b):
            return a - b


        def double(x):
            return x * 2


        def square(x):
            return x * x


        def sign(x):
            if x < 0:
                return -1
            return 1
        """,
    "tests/test_sign.py": """
        from calc import sign


        def test_negative():
            assert sign(-2) == -1


        def test_positive():
            assert sign(5) == 1
        """,
    "tests/test_double.py": """
        from calc import double


        def test_double():
            assert double(4) == 8
        """,
    "tests/test_square.py": """
        import pytest

        from calc import square


        @pytest.mark.parametrize("x", [1, 2, 3])
        def test_square(x):
            assert square(x) == x * x
        """,
}
EXAM = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def _branch(root: Path, name: str, old: str, new: str) -> None:
    git(root, "checkout", "-q", "-b", name, "main")
    text = (root / "calc.py").read_text()
    (root / "calc.py").write_text(text.replace("a - b", "a + b").replace(old, new))
    git(root, "commit", "-q", "-am", name)
    git(root, "checkout", "-q", "main")


@pytest.mark.slow
def test_the_second_verification_of_a_base_runs_what_the_change_can_affect(
    capsys, tmp_path: Path, make_project, monkeypatch
):
    root = make_project(FILES)
    _branch(root, "fix", "x * 2", "x * 2")
    _branch(root, "breaks-square", "x * x", "x * x + (x == 3)")
    common = ["--repo", str(root), "--python", PY, "--sandbox", "none", "--runs", "1"]
    seal_exam(capsys, root, tmp_path / "exam.py", EXAM)

    def verify(head: str, *extra: str) -> dict:
        code, out, err = cli(
            capsys, "verify", *common, "--base", "main", "--head", head, "--no-strength",
            "--json", *extra,
        )  # fmt: skip
        doc = json.loads(out)
        validate(doc)
        return doc

    first = verify("fix")
    assert first["decision"] == "approve", first["reasons"]
    assert first["regression"]["selection"]["mode"] == "full"
    assert first["regression"]["selection"]["base_record"] == "recorded"
    assert first["regression"]["compared"] == 6

    clean = verify("fix")
    sel = clean["regression"]["selection"]
    assert (sel["mode"], sel["base_record"], sel["tests"], sel["of"]) == (
        "selected",
        "reused",
        0,
        6,
    ), sel
    assert clean["decision"] == "approve"

    # the tamper analysis starts once the plan is made (beside it, it would slow the plan,
    # which the head's run waits for), while the head's tests run
    order: list[str] = []
    plan, start = selection.plan, pipeline._Tamper.start

    def logged_plan(*args, **kwargs):
        order.append("plan")
        return plan(*args, **kwargs)

    def logged_start(self):
        order.append("tamper")
        start(self)

    monkeypatch.setattr(selection, "plan", logged_plan)
    monkeypatch.setattr(pipeline._Tamper, "start", logged_start)
    broken = verify("breaks-square")
    assert order == ["plan", "tamper"]
    sel = broken["regression"]["selection"]
    assert (sel["mode"], sel["tests"]) == ("selected", 3)
    assert sel["why"] == {"ran a changed function": 3}
    assert broken["regression"]["new_failures"] == ["tests/test_square.py::test_square[3]"]
    assert broken["decision"] == "reject"

    full = verify("breaks-square", "--regression", "full")
    assert full["regression"]["selection"]["mode"] == "full"
    assert full["regression"]["new_failures"] == broken["regression"]["new_failures"]
    assert full["regression"]["compared"] == 6

    # a change inside a branch: the tests that entered it (the markers tracer records the
    # statement lists each test entered; 3.12's monitoring tracer records functions)
    order.clear()
    _branch(root, "breaks-negative", "return -1", "return -2")
    branch = verify("breaks-negative")
    sel = branch["regression"]["selection"]
    if sys.version_info < (3, 12):
        assert (sel["tests"], sel["why"]) == (1, {"entered a changed block": 1}), sel
    else:
        assert (sel["tests"], sel["why"]) == (2, {"ran a changed function": 2}), sel
    assert branch["regression"]["new_failures"] == ["tests/test_sign.py::test_negative"]
    assert branch["decision"] == "reject"


@pytest.mark.slow
@pytest.mark.bwrap
def test_a_selected_verification_in_the_bwrap_sandbox_reads_its_selection(
    capsys, tmp_path: Path, make_project, monkeypatch
):
    # the selection's file lies in truegreen's temp dir, which the sandbox's run does not
    # see unless it is given: the selected tests then reported nothing, read as flaky;
    # and uid 65534 must be able to read it, or the run falls back to the weaker sandbox
    unreadable: list[Path] = []
    can_read = bwrap._sandbox_uid_can_read

    def spied(path: Path) -> bool:
        readable = can_read(path)
        if not readable:
            unreadable.append(path)
        return readable

    monkeypatch.setattr(bwrap, "_sandbox_uid_can_read", spied)
    root = make_project(FILES)
    _branch(root, "fix", "x * 2", "x * 2")
    _branch(root, "breaks-square", "x * x", "x * x + (x == 3)")
    common = ["--repo", str(root), "--python", PY, "--sandbox", "bwrap", "--runs", "1"]
    seal_exam(capsys, root, tmp_path / "exam.py", EXAM)

    def verify(head: str) -> dict:
        code, out, err = cli(
            capsys, "verify", *common, "--base", "main", "--head", head, "--no-strength",
            "--json",
        )  # fmt: skip
        return json.loads(out)

    assert verify("fix")["regression"]["selection"]["base_record"] == "recorded"
    clean = verify("fix")
    assert clean["regression"]["selection"]["mode"] == "selected"
    assert clean["regression"]["flaky"] == [] and clean["decision"] == "approve"
    broken = verify("breaks-square")
    reg = broken["regression"]
    assert (reg["selection"]["mode"], reg["selection"]["tests"]) == ("selected", 3)
    assert reg["flaky"] == []
    assert reg["new_failures"] == ["tests/test_square.py::test_square[3]"]
    assert unreadable == []
