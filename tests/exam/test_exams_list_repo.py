"""`truegreen exams list|export --repo PATH`: only the exams of the repository (or monorepo
package) at PATH; without a filter every exam, with a hint about the repository here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import cli
from truegreen.exam.store import Ledger
from truegreen.repo.git import GitRepo


@pytest.fixture
def repos(make_project, make_exam):
    """Two repositories and a monorepo package, with exams in one ledger."""
    a = make_project({"pyproject.toml": "[project]\nname = 'a'\n"}, name="a")
    b = make_project({"pyproject.toml": "[project]\nname = 'b'\n"}, name="b")
    mono = make_project(
        {"README": "mono\n", "libs/calc/pyproject.toml": "[project]\nname = 'calc'\n"},
        name="mono",
    )
    ids = {p: GitRepo.discover(p).identity() for p in (a, b, mono / "libs" / "calc")}
    assert len(set(ids.values())) == 3 and ids[mono / "libs" / "calc"].endswith(":libs/calc")

    def exam(repo: str, test: str):
        path, name = test.split("::")
        return make_exam(repo=repo, test=test, files={path: f"def {name}():\n    assert 0\n"})

    exams = {
        "a1": exam(ids[a], "tests/test_a.py::test_one"),
        "other": make_exam(),  # another repository's, from elsewhere
        "b1": exam(ids[b], "tests/test_b.py::test_one"),
        "a2": exam(ids[a], "tests/test_a.py::test_two"),
        "calc": exam(ids[mono / "libs" / "calc"], "tests/test_c.py::test_c"),
    }
    with Ledger() as ledger:
        for exam in exams.values():
            ledger.add_exam(exam)
    return a, b, mono, {k: e.id for k, e in exams.items()}


def listed(capsys, *args: str) -> list[str]:
    code, out, err = cli(capsys, "exams", "list", "--json", *args)
    assert code == 0, err
    return [e["id"] for e in json.loads(out)["exams"]]


def test_repo_lists_only_that_repositorys_exams(repos, capsys):
    a, b, mono, ids = repos
    assert listed(capsys, "--repo", str(a)) == [ids["a1"], ids["a2"]]
    assert listed(capsys, "--repo", str(b)) == [ids["b1"]]
    # a path inside the project names the project; a monorepo package is its own
    (a / "src").mkdir()
    assert listed(capsys, "--repo", str(a / "src")) == [ids["a1"], ids["a2"]]
    assert listed(capsys, "--repo", str(mono / "libs" / "calc")) == [ids["calc"]]
    assert listed(capsys, "--repo", str(mono)) == []
    assert len(listed(capsys)) == 5  # no filter: every exam, as before

    code, out, err = cli(capsys, "exams", "list", "--repo", str(mono))
    assert code == 0 and out == ""
    assert f"no exams for {mono} in " in err


def test_without_a_filter_inside_a_repository_it_says_how_to_list_only_its(
    repos, capsys, monkeypatch
):
    a, _, _, ids = repos
    monkeypatch.chdir(a)
    code, out, err = cli(capsys, "exams", "list")
    assert code == 0 and len(out.splitlines()) == 5
    assert "2 of these 5 exams belong to the repository here" in err
    assert "truegreen exams list --repo ." in err
    code, out, err = cli(capsys, "exams", "list", "--repo", ".")
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == [ids["a1"], ids["a2"]]
    assert err == ""


def test_export_takes_the_same_filter(repos, capsys, tmp_path: Path):
    a, _, mono, ids = repos
    code, out, err = cli(capsys, "exams", "export", "--repo", str(a))
    assert code == 0, err
    assert sorted(e["id"] for e in json.loads(out)["exams"]) == sorted([ids["a1"], ids["a2"]])
    dest = tmp_path / "calc.json"
    code, out, err = cli(
        capsys, "exams", "export", "--repo", str(mono / "libs" / "calc"), "-o", str(dest)
    )
    assert code == 0 and "exported 1 exam(s)" in err
    assert [e["id"] for e in json.loads(dest.read_text())["exams"]] == [ids["calc"]]


@pytest.mark.parametrize("command", ["list", "export"])
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--repo", "{tmp}/nowhere"], "does not exist"),
        (["--repo", "{tmp}/plain"], "is not a git repository"),
        (
            ["--repo", "{tmp}/plain", "--repo-id", "x"],
            "--repo-id: give the repository's path or its identity, not both",
        ),
    ],
)
def test_bad_repo(tmp_path: Path, capsys, command, args, message):
    (tmp_path / "plain").mkdir()
    code, out, err = cli(capsys, "exams", command, *(a.format(tmp=tmp_path) for a in args))
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err
