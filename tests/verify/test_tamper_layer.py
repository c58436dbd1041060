"""The pipeline calls the tamper layer itself: no caller can leave it out by not passing a
callback (a verification without it was "tamper: skipped", inconclusive)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import git
from truegreen import api
from truegreen.demo.scenario import EXAM_FILE, EXAM_TEST, candidates
from truegreen.errors import RepoError
from truegreen.model.reasons import Reason
from truegreen.model.requests import SealRequest
from truegreen.project import open_project
from truegreen.repo.git import GitRepo
from truegreen.verify import pipeline


@pytest.mark.parametrize(
    ("branch", "code"),
    [
        ("addopts-trick", "tamper.pytest_config_changed"),
        ("break-and-delete", "tamper.test_deleted"),
        ("conftest-hook", "tamper.conftest_changed"),
    ],
)
def test_the_tamper_layer_reads_the_change_from_git(demo_repo: Path, branch: str, code: str):
    git = GitRepo(demo_repo)
    found = pipeline.tamper_layer(git, git.resolve("main"), git.resolve(branch), [], None, None)
    assert all(isinstance(r, Reason) for r in found)
    assert code in {r.code for r in found}


@pytest.mark.parametrize("branch", [c.branch for c in candidates()])
def test_the_analysis_started_beforehand_finds_what_one_made_at_once_does(
    demo_repo: Path, branch: str
) -> None:
    """A verification starts the tamper analysis of the change's source modules while its
    suites run (``_Tamper.start``) and finishes it once it has pytest's collection."""
    git = GitRepo(demo_repo)
    base, head = git.resolve("main"), git.resolve(branch)
    ahead = pipeline._Tamper(git, base, head, [])
    ahead.start()
    assert ahead.findings(None, None) == pipeline.tamper_layer(git, base, head, [], None, None)


def test_an_error_of_the_analysis_started_beforehand_reaches_the_verification(
    demo_repo: Path,
) -> None:
    git = GitRepo(demo_repo)
    ahead = pipeline._Tamper(git, git.resolve("main"), "0" * 40, [])
    ahead.start()
    with pytest.raises(RepoError):
        ahead.findings(None, None)


def test_the_real_fix_has_no_tamper_reason(demo_repo: Path) -> None:
    git = GitRepo(demo_repo)
    assert (
        pipeline.tamper_layer(git, git.resolve("main"), git.resolve("real-fix"), [], None, None)
        == ()
    )


@pytest.mark.slow
def test_verify_called_directly_runs_the_tamper_layer(demo_repo: Path, tmp_path: Path) -> None:
    project = open_project(demo_repo, sys.executable, "none", need_git=True)
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    exam = api.seal(
        SealRequest(
            repo=demo_repo, python=sys.executable, sandbox="none", test_id=EXAM_TEST,
            rev="main", test_file=EXAM_FILE, runs=1, db=url,
        )
    )  # fmt: skip
    opts = pipeline.VerifyOptions(
        base="main", head="skip-marker", runs=1, strength=False, regression=False
    )
    doc = pipeline.verify(project, [exam.exam], opts)
    assert doc["layers"]["tamper"] == "fail"
    codes = {r["code"] for r in doc["reasons"]}
    assert "tamper.skip_added" in codes
    assert not any(
        r["code"] == "policy.missing_evidence" and "tamper" in r["detail"] for r in doc["reasons"]
    )


def test_a_binary_test_data_file_changed_is_seen(make_project) -> None:
    """git's output of a file is bytes: two versions that differ only in bytes that are not
    UTF-8 are two versions (read as text, both were U+FFFD, and the change was missed)."""
    root = make_project(
        {"tests/test_a.py": "def test_a():\n    assert open('tests/data/g.bin', 'rb').read()\n"}
    )
    (root / "tests" / "data").mkdir()
    (root / "tests" / "data" / "g.bin").write_bytes(b"\xffabc")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "golden file")
    base = git(root, "rev-parse", "HEAD")
    (root / "tests" / "data" / "g.bin").write_bytes(b"\xfeabc")
    git(root, "commit", "-q", "-am", "another golden file")
    g = GitRepo(root)
    found = pipeline.tamper_layer(g, base, g.resolve("HEAD"), [], None, None)
    assert [(r.code, r.file) for r in found] == [("tamper.test_data_changed", "tests/data/g.bin")]
