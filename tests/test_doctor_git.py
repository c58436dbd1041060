"""`truegreen doctor` says whether git is there and new enough, and what to do when not."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import cli
from truegreen.doctor import MIN_GIT, git_check
from truegreen.run.executor import Command, Completed, FakeExecutor


def fake_git(bindir: Path, version_line: str) -> None:
    bindir.mkdir(exist_ok=True)
    script = bindir / "git"
    script.write_text(f"#!/bin/sh\necho '{version_line}'\n")
    script.chmod(0o755)


def doctor_args(tmp_path: Path) -> list[str]:
    return ["doctor", "--repo", str(tmp_path), "--python", sys.executable]


def test_git_on_path_is_ok_with_its_version():
    real = subprocess.run(["git", "--version"], capture_output=True, text=True, check=True)
    item = git_check()
    assert item["status"] == "ok"
    assert real.stdout.strip().removeprefix("git version ") in item["detail"]
    assert shutil.which("git") in item["detail"]


def test_no_git_on_path_is_a_failing_check_and_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    item = git_check()
    assert item["status"] == "missing"
    assert "not on PATH" in item["detail"] and "verify" in item["detail"]
    assert "install git 2.24 or newer" in item["fix"] and "apt-get install git" in item["fix"]

    code, out, err = cli(capsys, *doctor_args(tmp_path), "--json")
    assert code == 2
    checks = {c["name"]: c for c in json.loads(out)["checks"]}  # still one JSON document
    assert checks["git"]["status"] == "missing"
    assert err == ""

    code, out, err = cli(capsys, *doctor_args(tmp_path))
    assert code == 2
    assert "missing  git: not on PATH" in out and "-> install git 2.24" in out
    assert "truegreen: error: missing: git" in err


def test_a_git_older_than_the_minimum_is_missing(tmp_path, monkeypatch, capsys):
    fake_git(tmp_path / "bin", "git version 2.20.1")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    item = git_check()
    assert item["status"] == "missing"
    assert "git 2.20.1" in item["detail"] and "older than 2.24" in item["detail"]
    assert item["fix"].startswith("upgrade to git 2.24 or newer")
    code, _, _ = cli(capsys, *doctor_args(tmp_path), "--json")
    assert code == 2


def test_the_minimum_itself_and_vendor_suffixes_are_ok(tmp_path, monkeypatch):
    fake_git(tmp_path / "bin", "git version 2.24.0 (Apple Git-128)")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert MIN_GIT == (2, 24)
    item = git_check()
    assert item["status"] == "ok" and "2.24.0 (Apple Git-128)" in item["detail"]


def test_a_git_that_does_not_say_a_version_is_a_warning(tmp_path, monkeypatch):
    fake_git(tmp_path / "bin", "hello")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))

    def broken(command: Command) -> Completed:
        return Completed(tuple(command.argv), 1, "", "fatal: oops", 0.0)

    item = git_check(FakeExecutor(broken))
    assert item["status"] == "warn" and "fatal: oops" in item["detail"]
    assert git_check()["status"] == "warn"


def test_doctor_with_everything_there_exits_0(tmp_path, capsys):
    code, out, _ = cli(capsys, *doctor_args(tmp_path), "--json")
    assert code == 0
    assert {c["name"]: c["status"] for c in json.loads(out)["checks"]}["git"] == "ok"
