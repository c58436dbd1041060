"""The base's own ``--ignore`` / ``--ignore-glob`` / ``--deselect`` / ``-m`` / ``-k`` in
addopts keep tests out of verify's suite runs on both sides (the head's never count: they
are tamper)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import cli, git, write_files
from tests.verify.conftest import PY
from truegreen.model.documents import validate
from truegreen.run.pytest_ini import kept_addopts, suite_exclusions


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {"pytest.ini": b"[pytest]\naddopts = -ra --ignore tests/net --ignore-glob=*_slow.py\n"},
            ("--ignore=tests/net", "--ignore-glob=*_slow.py"),
        ),
        (
            {
                "pyproject.toml": b"[tool.pytest.ini_options]\n"
                b'addopts = ["--deselect", "tests/test_a.py::test_x[a=1]", "-k", "fast"]\n'
            },
            ("--deselect=tests/test_a.py::test_x[a=1]", "-k", "fast"),
        ),
        (
            # a marker expression stays one argument; a glued short option stays as written
            {"setup.cfg": b'[tool:pytest]\naddopts = -m "not network and not slow" -kquick\n'},
            ("-m", "not network and not slow", "-kquick"),
        ),
        (
            # pytest reads the first file that has settings: pytest.ini wins over setup.cfg
            {
                "pytest.ini": b"[pytest]\naddopts = --strict-markers\n",
                "setup.cfg": b"[tool:pytest]\naddopts = --ignore=tests/net\n",
            },
            (),
        ),
        (
            {"setup.cfg": b"[tool:pytest]\naddopts =\n    --ignore=tests/net\n    --ignore\n"},
            ("--ignore=tests/net",),  # an option left without its value is dropped
        ),
        ({}, ()),
    ],
)
def test_suite_exclusions_read_the_settings_pytest_would(files, expected):
    assert suite_exclusions(files) == expected


def test_graded_runs_of_named_tests_still_drop_them(tmp_path):
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\naddopts = --ignore=tests/net --deselect tests/t.py::a -p nope "
        "-p pytester --import-mode=importlib --strict-markers\n"
    )
    # what every graded run keeps is unchanged: a named test is run even where the
    # project's suite leaves it out
    assert kept_addopts(tmp_path) == (
        "-p",
        "pytester",
        "--import-mode=importlib",
        "--strict-markers",
    )


BASE_FILES = {
    "pytest.ini": """
        [pytest]
        addopts = -ra --ignore=tests/integration
            --deselect tests/test_calc.py::test_add_as_it_was -m "not slow"
        markers =
            slow: the project runs these apart, nightly
        """,
    "calc.py": """
        def add(a, b):
            return a - b


        #: kept for the old integration scripts
        legacy_add = add


        def mul(a, b):
            return a * b
        """,
    "tests/test_calc.py": """
        import pytest

        from calc import add, mul


        def test_mul():
            assert mul(2, 3) == 6


        def test_add_zero():
            assert add(4, 0) == 4


        def test_add_as_it_was():
            # documents the old behaviour; the project deselects it
            assert add(2, 3) == -1


        @pytest.mark.slow
        def test_legacy_add_still_there():
            # the nightly job's: the fix removes legacy_add, but the suite leaves it out
            import calc

            assert calc.legacy_add(1, 2) == -1
        """,
    # a directory the project never runs (it needs a server): its module imports a name
    # the fix removes, so on the head it errors at import
    "tests/integration/test_server.py": """
        from calc import legacy_add


        def test_server():
            assert legacy_add(1, 1) == 0
        """,
}

EXAM = """
from calc import add


def test_add():
    assert add(2, 3) == 5
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    write_files(root, BASE_FILES)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    fixed = (root / "calc.py").read_text().replace("a - b", "a + b")
    fixed = fixed.replace("\n\n#: kept for the old integration scripts\nlegacy_add = add\n", "")
    git(root, "checkout", "-q", "-b", "fix")
    (root / "calc.py").write_text(fixed)
    git(root, "commit", "-q", "-am", "fix add; drop legacy_add")
    git(root, "checkout", "-q", "-b", "fix-and-ignore")
    ini = (root / "pytest.ini").read_text()
    (root / "pytest.ini").write_text(ini.replace("-ra", "-ra --ignore=tests/test_calc.py"))
    git(root, "commit", "-q", "-am", "fix, and leave test_calc out")
    git(root, "checkout", "-q", "main")
    return root


def common(root: Path) -> list[str]:
    return ["--repo", str(root), "--python", PY, "--sandbox", "none"]


def verify(capsys, root: Path, head: str) -> tuple[int, dict, str]:
    code, out, err = cli(
        capsys, "verify", *common(root), "--base", "main", "--head", head,
        "--runs", "1", "--no-strength", "--json",
    )  # fmt: skip
    assert out, err
    doc = json.loads(out)
    validate(doc)
    return code, doc, err


@pytest.mark.slow
def test_the_bases_own_exclusions_hold_in_both_suite_runs(project, capsys, tmp_path):
    exam_file = tmp_path / "exam.py"
    exam_file.write_text(EXAM)
    code, out, err = cli(
        capsys, "seal", "tests/test_issue.py::test_add", *common(project),
        "--rev", "main", "--test-file", str(exam_file), "--runs", "1", "--json",
    )  # fmt: skip
    assert code == 0, err

    code, doc, err = verify(capsys, project, "fix")
    assert (doc["verdict"], doc["decision"], code) == ("verified", "approve", 0), doc["reasons"]
    # tests/integration (an import error on the head), the deselected test and the slow
    # one were left out on both sides; test_mul and test_add_zero were compared
    assert doc["regression"]["compared"] == 2
    assert doc["regression"]["collection_errors"] == []
    assert doc["regression"]["new_failures"] == []
    assert "leaving out, as the base's addopts do: --ignore=tests/integration" in err
    assert "--deselect=tests/test_calc.py::test_add_as_it_was -m 'not slow'" in err

    # a head that adds an --ignore of its own is still tampering, and its option is not
    # obeyed: the suite still runs test_calc.py on the head
    code, doc, err = verify(capsys, project, "fix-and-ignore")
    assert (doc["verdict"], doc["decision"], code) == ("refuted", "reject", 1)
    codes = {r["code"] for r in doc["reasons"]}
    assert "tamper.pytest_config_changed" in codes, doc["reasons"]
    assert doc["regression"]["compared"] == 2
    assert "--ignore=tests/test_calc.py" not in err
