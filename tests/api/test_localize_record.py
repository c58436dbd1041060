"""localize reuses a verification's per-test record of the checkout's commit (issue #38):
the passing tests come from the test files whose tests ran the same project functions,
which a test file's imports alone do not tell."""

from __future__ import annotations

import pytest

from tests.conftest import git
from tests.verify.conftest import PY
from truegreen import api
from truegreen.localize.engine import Related, _related_files
from truegreen.verify import selection
from truegreen.verify.selection import Record

# the failing test imports calc; test_report reaches calc.fmt only through report, so its
# imports do not name calc; test_other runs nothing of calc
FILES = {
    "calc.py": """
        def fmt(x):
            return f"<{x}>"


        def unused(x):
            return x
        """,
    "report.py": """
        import calc


        def show(x):
            return "report " + calc.fmt(x)
        """,
    "other.py": "def one():\n    return 1\n",
    "tests/test_calc.py": """
        from calc import fmt


        def test_fmt():
            assert fmt(1) == "<1>"
        """,
    "tests/test_report.py": """
        from report import show


        def test_show():
            assert show(2).startswith("report ")
        """,
    "tests/test_other.py": """
        from other import one


        def test_one():
            assert one() == 1
        """,
}


def _record(tests: dict[str, list[int]], fixtures: dict[str, list[int]] | None = None) -> Record:
    codes = [
        ["calc.py", 1, 2, "fmt"],
        ["report.py", 4, 5, "show"],
        ["other.py", 1, 2, "one"],
        ["tests/helpers.py", 1, 2, "helper"],
    ]
    doc = {
        "codes": codes,
        "tests": {t: {"codes": c} for t, c in tests.items()},
        "fixtures": {n: {"codes": c} for n, c in (fixtures or {}).items()},
    }
    return Record.from_plugin(doc, dict.fromkeys(tests, "passed"), tests, ())


def test_related_files_rank_by_the_functions_shared_with_the_failing_test() -> None:
    record = _record(
        {
            "tests/test_calc.py::test_fmt": [0, 3],
            "tests/test_report.py::test_show": [0, 1, 3],
            "tests/test_b.py::test_b": [0, 3],
            "tests/test_b.py::test_b2": [0],
            "tests/test_other.py::test_one": [2, 3],
        }
    )
    found = selection.related_test_files(record, ["tests/test_calc.py::test_fmt"])
    assert found is not None
    files, known = found
    # calc.fmt is shared by three tests; the test helper (test code) does not count; the
    # failing test's own file is not listed; test_other shares nothing
    assert files == ["tests/test_b.py", "tests/test_report.py"]
    assert known == {
        "tests/test_calc.py",
        "tests/test_report.py",
        "tests/test_b.py",
        "tests/test_other.py",
    }


def test_a_broad_fixture_counts_for_the_tests_that_use_it() -> None:
    doc = {
        "codes": [["calc.py", 1, 2, "fmt"], ["other.py", 1, 2, "one"]],
        "tests": {
            "tests/test_calc.py::test_fmt": {"codes": [0]},
            "tests/test_x.py::test_x": {"codes": [], "fixtures": ["db"]},
            "tests/test_y.py::test_y": {"codes": [1]},
        },
        "fixtures": {"db": {"codes": [0]}},
    }
    record = Record.from_plugin(doc, {}, doc["tests"], ())
    found = selection.related_test_files(record, ["tests/test_calc.py::test_fmt"])
    assert found is not None and found[0] == ["tests/test_x.py"]


def test_no_related_files_when_the_failing_test_is_not_in_the_record() -> None:
    record = _record({"tests/test_other.py::test_one": [2]})
    assert selection.related_test_files(record, ["tests/test_new.py::test_new"]) is None


def test_files_new_since_the_record_are_chosen_by_their_imports(make_project) -> None:
    root = make_project({**FILES, "tests/test_new.py": "from calc import fmt\n"})
    related = Related(
        files=("tests/test_report.py", "tests/test_gone.py"),
        known=frozenset({"tests/test_calc.py", "tests/test_report.py", "tests/test_other.py"}),
        revision="0" * 40,
    )
    candidates = ["tests/test_calc.py", "tests/test_new.py", "tests/test_other.py",
                  "tests/test_report.py"]  # fmt: skip
    chosen = _related_files(root, ["tests/test_calc.py::test_fmt"], candidates, related)
    # a related file that is gone is not chosen; the new file imports calc
    assert chosen == ["tests/test_calc.py", "tests/test_report.py", "tests/test_new.py"]


def test_the_revision_index_names_the_newest_record_and_refuses_odd_names() -> None:
    old = _record({"tests/test_calc.py::test_fmt": [0]})
    new = _record({"tests/test_calc.py::test_fmt": [0], "tests/test_report.py::test_show": [0]})
    rev = "a" * 40
    assert selection.for_revision(rev) is None
    assert selection.save("k1", old, revision=rev)
    assert selection.save("k2", new, revision=rev)
    assert selection.save("k3", old)  # no revision: the index is left alone
    found = selection.for_revision(rev)
    assert found is not None and set(found.tests) == set(new.tests)
    assert selection.for_revision("../k1") is None
    assert selection.for_revision("b" * 40) is None


@pytest.mark.slow
def test_localize_takes_passing_tests_from_a_verifications_record(make_project) -> None:
    root = make_project(FILES)
    common = dict(repo=root, python=PY, sandbox="none")

    def localize() -> dict:
        request = api.LocalizeRequest(
            **common, test_ids=("tests/test_calc.py::test_fmt",), mutants=False, history=False
        )
        return api.localize(request).to_json()

    # a verification of a change whose base is the checkout's commit records the base
    (root / "calc.py").write_text((root / "calc.py").read_text() + "\n# note\n")
    git(root, "checkout", "-q", "-b", "note")
    git(root, "commit", "-q", "-am", "a note")
    git(root, "checkout", "-q", "main")
    request = api.VerifyRequest(**common, base="main", head="note", without_exams=True,
                                exams=(), strength=False, runs=1)  # fmt: skip
    doc = api.verify(request, record=False).to_json()
    assert doc["regression"]["selection"]["base_record"] == "recorded"

    # the bug, in the working tree
    (root / "calc.py").write_text((root / "calc.py").read_text().replace("<{x}>", "[{x}]"))
    events: list[str] = []
    request = api.LocalizeRequest(
        **common, test_ids=("tests/test_calc.py::test_fmt",), mutants=False, history=False
    )
    loc = api.localize(request, listener=lambda e: events.append(e.message or "")).to_json()
    sha = git(root, "rev-parse", "HEAD")
    assert loc["tests"]["chosen_by"] == f"record of {sha[:12]}"
    assert loc["tests"]["selection"] == 2  # test_fmt and test_show; test_one shares nothing
    assert loc["tests"]["failing"] == 1 and loc["tests"]["passing"] == 1
    assert any("per-test record" in m for m in events)

    # without a record of the commit: by imports (test_report does not import calc)
    git(root, "stash", "-q")
    git(root, "commit", "-q", "--allow-empty", "-m", "another commit")
    git(root, "stash", "pop", "-q")
    again = localize()
    assert again["tests"]["chosen_by"] == "imports"
    assert again["tests"]["selection"] == 1
