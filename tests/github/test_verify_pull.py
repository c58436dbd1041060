"""`truegreen verify OWNER/REPO#N [--post]`: the pull request read from the fake API, the
repository cloned from a local bare repository standing in for GitHub (its pull request
kept as refs/pull/7/head, as GitHub keeps them), the clone reused from the cache."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import cli, git
from tests.github.fake import FakeGitHub, Reply, recorded
from truegreen.github.pull import checkout
from truegreen.model.requests import PullVerifyRequest


@pytest.fixture
def remote(
    template: tuple[Path, str], tmp_path: Path, gh: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """acme/shop on the "server": a bare repository, and the pull request on the API."""
    root = template[0]
    bare = tmp_path / "remote" / "acme" / "shop.git"
    bare.parent.mkdir(parents=True)
    git(tmp_path, "clone", "--quiet", "--bare", str(root), str(bare))
    git(bare, "update-ref", "refs/pull/7/head", git(root, "rev-parse", "fix"))
    pull = recorded("pull_7.json")
    pull["body"] = "Fixes #12"
    pull["base"]["sha"] = git(root, "rev-parse", "main")
    pull["head"]["sha"] = git(root, "rev-parse", "fix")
    gh.script("GET", "/repos/acme/shop/pulls/7", Reply(200, pull))
    monkeypatch.setenv("TRUEGREEN_CLONE_URL", str(tmp_path / "remote" / "{repo}.git"))
    monkeypatch.setenv("GITHUB_API_URL", gh.url)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_maintainer")
    return bare


@pytest.mark.slow
def test_a_pull_request_is_fetched_verified_and_posted(remote, tmp_path, gh: FakeGitHub, capsys):
    code, out, err = cli(
        capsys, "verify", "acme/shop#7", "--post", "--runs", "1", "--no-strength",
        "--sandbox", "none", "--python", sys.executable, "--json",
    )  # fmt: skip
    assert code == 0, err
    doc = json.loads(out)
    assert doc["decision"] == "approve" and doc["linked_issues"] == ["acme/shop#12"]
    assert doc["verification"]["verdict"] == "verified"
    assert [(w.method, w.path) for w in gh.writes] == [
        ("POST", "/repos/acme/shop/issues/7/comments"),
        ("POST", "/repos/acme/shop/check-runs"),
        ("POST", "/repos/acme/shop/issues/7/labels"),
    ]
    assert gh.requests[0].authorization == "Bearer ghs_maintainer"


def test_the_clone_is_made_once_then_fetched_into(remote, tmp_path):
    request = PullVerifyRequest(target="acme/shop#7", cache=tmp_path / "cache")
    first = checkout(request, "main")
    (first.top / "marker").write_text("kept")
    # the contributor pushes again: GitHub moves refs/pull/7/head
    git(remote, "update-ref", "refs/pull/7/head", git(remote, "rev-parse", "cheat"))
    again = checkout(request, "main")
    assert again.top == first.top == tmp_path / "cache" / "acme" / "shop"
    assert (again.top / "marker").read_text() == "kept"  # reused, not cloned again
    assert again.resolve("refs/truegreen/pull/7") == git(remote, "rev-parse", "cheat")


def test_bad_targets_and_remotes_are_one_line_and_exit_2(remote, tmp_path, monkeypatch, capsys):
    code, _, err = cli(capsys, "verify", "acme/shop#7", "--head", "fix")
    assert code == 2 and "--head cannot be given with a pull request" in err
    code, _, err = cli(capsys, "verify", "--post", "--base", "main", "--head", "fix")
    assert code == 2 and "--post needs a pull request" in err
    code, _, err = cli(capsys, "verify", "acme/shop#seven")
    assert code == 2 and "OWNER/REPO#N: 'acme/shop#seven' is not OWNER/REPO#N" in err
    monkeypatch.setenv("TRUEGREEN_CLONE_URL", str(tmp_path / "nowhere" / "{repo}.git"))
    monkeypatch.setenv("TRUEGREEN_HOME", str(tmp_path / "home"))
    code, _, err = cli(capsys, "verify", "acme/shop#7")
    assert code == 2 and "cannot clone" in err and "TRUEGREEN_CLONE_URL" in err
    assert not (tmp_path / "home" / "clones" / "acme" / "shop").exists()
    assert not (tmp_path / "home" / "clones" / "acme" / "shop.partial").exists()
    code, _, err = cli(capsys, "verify", "acme/shop#8")
    assert code == 2 and "GitHub has no pull request acme/shop#8 (HTTP 404)" in err
