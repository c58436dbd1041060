"""``always-run``: the regression layer runs those tests on both sides even where ``tests``
and ``ignore`` leave them out, and says so; an entry that names nothing is an error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import cli, git, write_files
from tests.verify.conftest import PY
from truegreen.model.documents import validate
from truegreen.report.markdown import render

CONFIG = """
[tool.truegreen]
tests = ["tests/unit"]
ignore = ["tests/unit/net"]
"""
ALWAYS = 'always-run = ["tests/smoke/test_smoke.py::test_legacy", "tests/unit/net"]\n'

FILES = {
    "calc.py": """
        def add(a, b):
            return a - b


        def legacy(a):
            return a * 2
        """,
    "tests/unit/test_calc.py": """
        from calc import add


        def test_add_zero():
            assert add(4, 0) == 4
        """,
    # outside `tests`: only always-run brings test_legacy in (test_other stays out)
    "tests/smoke/test_smoke.py": """
        from calc import legacy


        def test_legacy():
            assert legacy(2) == 4


        def test_other():
            assert legacy(0) == 1
        """,
    # inside `ignore`
    "tests/unit/net/test_net.py": """
        from calc import legacy


        def test_net():
            assert legacy(3) == 6
        """,
}

EXAM = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def _commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def _project(tmp_path: Path, config: str) -> Path:
    """main: the bug in add; branch fix: add fixed, legacy broken on the way."""
    root = tmp_path / "proj"
    root.mkdir()
    write_files(root, {**FILES, "pyproject.toml": config})
    git(root, "init", "-q", "-b", "main")
    _commit(root, "base")
    git(root, "checkout", "-q", "-b", "fix")
    calc = (root / "calc.py").read_text()
    (root / "calc.py").write_text(calc.replace("a - b", "a + b").replace("a * 2", "a * 3"))
    _commit(root, "fix add (and break legacy)")
    git(root, "checkout", "-q", "main")
    return root


def _common(root: Path) -> list[str]:
    return ["--repo", str(root), "--python", PY, "--sandbox", "none"]


def _seal(capsys, root: Path, tmp_path: Path) -> None:
    exam = tmp_path / "exam.py"
    exam.write_text(EXAM)
    code, _, err = cli(
        capsys, "seal", "tests/test_issue.py::test_add", *_common(root),
        "--test-file", str(exam), "--runs", "1",
    )  # fmt: skip
    assert code == 0, err


def _verify(capsys, root: Path, head: str, *extra: str) -> tuple[int, str, str]:
    return cli(
        capsys, "verify", *_common(root), "--base", "main", "--head", head,
        "--runs", "1", "--no-strength", *extra,
    )  # fmt: skip


@pytest.mark.slow
def test_without_always_run_the_left_out_tests_are_not_compared(capsys, tmp_path):
    # the baseline the next test is measured against: the broken legacy goes unseen
    root = _project(tmp_path, CONFIG)
    _seal(capsys, root, tmp_path)
    code, out, err = _verify(capsys, root, "fix", "--json")
    doc = json.loads(out)
    assert (doc["verdict"], code) == ("verified", 0), doc["reasons"]
    assert doc["regression"]["compared"] == 1
    assert "always_run" not in doc["regression"]
    assert "always-run" not in err


@pytest.mark.slow
def test_always_run_tests_outside_tests_and_inside_ignore_run_on_both_sides(capsys, tmp_path):
    root = _project(tmp_path, CONFIG + ALWAYS)
    _seal(capsys, root, tmp_path)
    report = tmp_path / "report"
    code, out, err = _verify(capsys, root, "fix", "--json", "--report", str(report))
    doc = json.loads(out)
    validate(doc)
    assert (doc["verdict"], doc["decision"], code) == ("refuted", "reject", 1)
    reg = doc["regression"]
    assert reg["new_failures"] == [
        "tests/smoke/test_smoke.py::test_legacy",
        "tests/unit/net/test_net.py::test_net",
    ]
    # test_add_zero (the suite) + the two always-run tests; test_other is not named
    assert reg["compared"] == 3
    assert reg["always_run"] == {
        "entries": ["tests/smoke/test_smoke.py::test_legacy", "tests/unit/net"],
        "tests": 2,
    }
    assert (
        "regression: and the always-run tests on both sides, whatever tests / ignore leave "
        "out: tests/smoke/test_smoke.py::test_legacy tests/unit/net" in err
    )
    said = "always-run (tests/smoke/test_smoke.py::test_legacy, tests/unit/net): 2 tests among them"
    assert said in render(doc)
    assert said in (report / "report.md").read_text()

    code, out, _ = _verify(capsys, root, "fix")
    assert code == 1 and said in out


@pytest.mark.slow
def test_an_always_run_test_the_head_deletes_is_tamper_not_a_crash(capsys, tmp_path):
    root = _project(tmp_path, CONFIG + ALWAYS)
    _seal(capsys, root, tmp_path)
    git(root, "checkout", "-q", "-b", "fix-and-drop", "fix")
    smoke = root / "tests/smoke/test_smoke.py"
    smoke.write_text(
        smoke.read_text().split("def test_legacy")[0] + "def test_other():\n    pass\n"
    )
    net = root / "tests/unit/net/test_net.py"
    net.write_text(net.read_text().replace("a * 2", "a * 3").replace("== 6", "== 9"))
    _commit(root, "fix add, drop the test of legacy")
    git(root, "checkout", "-q", "main")
    code, out, err = _verify(capsys, root, "fix-and-drop", "--json")
    doc = json.loads(out)
    assert code == 1
    codes = {(r["code"], r["file"]) for r in doc["reasons"]}
    assert ("tamper.test_deleted", "tests/smoke/test_smoke.py") in codes, doc["reasons"]
    assert "always-run tests/smoke/test_smoke.py::test_legacy does not exist on the head" in err


@pytest.mark.slow
@pytest.mark.parametrize(
    ("entry", "named"),
    [
        ("tests/smoke/test_gone.py", "'tests/smoke/test_gone.py'"),
        ("tests/nowhere", "'tests/nowhere'"),
        ("tests/smoke/test_smoke.py::test_nope", "'tests/smoke/test_smoke.py::test_nope'"),
    ],
)
def test_an_always_run_entry_the_base_does_not_have_is_an_error(capsys, tmp_path, entry, named):
    root = _project(tmp_path, CONFIG + f'always-run = ["{entry}"]\n')
    _seal(capsys, root, tmp_path)
    code, out, err = _verify(capsys, root, "fix")
    assert (code, out) == (2, "")
    line = err.strip().splitlines()[-1]  # after the progress lines
    assert line.startswith("truegreen: error: always-run names " + named), err
    assert "fix always-run in the base's [tool.truegreen]" in line


@pytest.mark.slow
def test_always_run_tests_run_on_both_sides_when_the_base_record_is_reused(capsys, tmp_path):
    # the second verification of main selects from the record: the always-run tests are
    # still run on both sides (the base's outside the record), and the broken legacy is seen
    root = _project(tmp_path, CONFIG + ALWAYS)
    _seal(capsys, root, tmp_path)
    first = json.loads(_verify(capsys, root, "fix", "--json")[1])
    assert first["regression"]["selection"]["base_record"] == "recorded"
    code, out, err = _verify(capsys, root, "fix", "--json")
    doc = json.loads(out)
    validate(doc)
    reg = doc["regression"]
    assert (reg["selection"]["mode"], reg["selection"]["base_record"]) == ("selected", "reused")
    assert (doc["decision"], code) == ("reject", 1)
    assert (
        reg["new_failures"]
        == first["regression"]["new_failures"]
        == [
            "tests/smoke/test_smoke.py::test_legacy",
            "tests/unit/net/test_net.py::test_net",
        ]
    )
    assert reg["always_run"]["tests"] == 2
