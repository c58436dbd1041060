"""`truegreen ci` end to end: a fixture repository whose base commits the exam sealed for
issue #12 under .truegreen/exams/, recorded pull_request events, the step summary, the
outputs and the annotations as GitHub Actions reads them, writes to a loopback fake.
A fork's pull request whose head also rewrites the exam's bundle runs through the action
itself (test_action.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import cli, git
from tests.github.conftest import event
from tests.github.fake import RECORDED, FakeGitHub
from truegreen.model import documents


def run_ci(capsys, repo: Path, *extra: str) -> tuple[int, str, str]:
    return cli(
        capsys, "ci", "--repo", str(repo), "--runs", "1", "--no-strength", "--sandbox", "none",
        "--python", sys.executable, *extra,
    )  # fmt: skip


@pytest.mark.slow
def test_a_real_fix_is_approved_and_reported_once(repo, tmp_path, actions, gh, monkeypatch, capsys):
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event(repo, tmp_path, "fix", "Fixes #12")))
    code, out, err = run_ci(capsys, repo, "--writes", "live")
    assert code == 0, err
    summary = actions["summary"].read_text(encoding="utf-8")
    assert summary.startswith("# truegreen: VERIFIED -> approve")
    assert "passes the sealed exam, no tampering found, no new failures" in summary
    assert "exams read from `.truegreen/exams/` at the base" in summary
    assert "acme/shop#12 (exam `" in summary
    assert actions["output"].read_text() == "decision=approve\nverdict=verified\n"
    assert [(w.method, w.path) for w in gh.writes] == [
        ("POST", "/repos/acme/shop/issues/7/comments"),
        ("POST", "/repos/acme/shop/check-runs"),
        ("POST", "/repos/acme/shop/issues/7/labels"),
    ]
    assert gh.check_runs[0]["conclusion"] == "success"
    assert gh.labels["acme/shop#7"] == ["truegreen: verified"]
    assert "github: comment created" in err


@pytest.mark.slow
def test_a_test_only_cheat_is_rejected_with_annotations(
    repo, tmp_path, actions, gh, monkeypatch, capsys
):
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event(repo, tmp_path, "cheat", "Closes #12")))
    code, out, _ = run_ci(capsys, repo)
    assert code == 1
    summary = actions["summary"].read_text(encoding="utf-8")
    assert summary.startswith("# truegreen: REFUTED -> reject")
    assert "exam.still_failing" in summary and "tamper.skip_added" in summary
    assert (
        "::error file=tests/test_num.py,line=" in out
        and "title=truegreen tamper.skip_added::" in out
    )
    assert gh.writes == []  # the default for a repository never told otherwise: shadow
    assert "- comment: shadow: would write the comment on acme/shop#7" in summary


@pytest.mark.slow
def test_a_pull_request_with_no_exam_is_escalated(repo, tmp_path, actions, gh, monkeypatch, capsys):
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event(repo, tmp_path, "docs", "Adds a README.")))
    code, out, _ = run_ci(capsys, repo, "--json")
    assert code == 3
    doc = json.loads(out)
    assert doc["schema"] == "truegreen.ci/1" and doc["exams"] == [] and doc["linked_issues"] == []
    documents.validate(doc)  # the shipped schema's model
    layers = doc["verification"]["layers"]
    assert (layers["tamper"], layers["regression"]) == ("pass", "pass")
    assert "policy.missing_evidence" in [r["code"] for r in doc["verification"]["reasons"]]
    summary = actions["summary"].read_text(encoding="utf-8")
    assert (
        "### No exam" in summary
        and "truegreen seal TEST_ID --issue N --export .truegreen/exams/" in summary
    )


def test_bad_inputs_are_one_line_and_exit_2(repo, tmp_path, actions, monkeypatch, capsys):
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    code, _, err = cli(capsys, "ci", "--repo", str(repo))
    assert code == 2 and "GITHUB_EVENT_PATH and GITHUB_EVENT_NAME are not set" in err
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    code, _, err = cli(capsys, "ci", "--repo", str(repo), "--event", str(broken))
    assert code == 2 and f"the event file {broken} is not JSON" in err
    code, _, err = cli(
        capsys, "ci", "--repo", str(repo), "--event", str(broken), "--event-name", "push"
    )
    assert code == 2 and "is not JSON" in err
    push = tmp_path / "push.json"
    push.write_text('{"ref": "refs/heads/main"}', encoding="utf-8")
    code, _, err = cli(
        capsys, "ci", "--repo", str(repo), "--event", str(push), "--event-name", "push"
    )
    assert code == 2 and "a push event has no pull request to verify" in err and "--diagnose" in err
    gone = (
        event(repo, tmp_path, "fix", "Fixes #12")
        .read_text()
        .replace(git(repo, "rev-parse", "fix"), "ab" * 20)
    )
    (tmp_path / "gone.json").write_text(gone)
    code, _, err = cli(capsys, "ci", "--repo", str(repo), "--event", str(tmp_path / "gone.json"))
    assert code == 2 and "is not in the checkout" in err and "fetch-depth: 0" in err
    assert actions["summary"].read_text() == ""  # nothing half-written


JOB_LOG = (
    "\ufeff2026-04-25T05:18:16.2685185Z ##[group]Run pytest -q\n"
    "2026-04-25T05:18:16.2685185Z pytest -q\n"
    "2026-04-25T05:18:16.2685185Z ##[endgroup]\n"
    "2026-04-25T05:18:18.1000000Z FAILED tests/test_num.py::test_below - assert 10 == 0\n"
    "2026-04-25T05:18:18.1000000Z 1 failed, 1 passed in 0.05s\n"
    "2026-04-25T05:18:18.2000000Z ##[error]Process completed with exit code 1.\n"
)


def _failed_run(gh: FakeGitHub) -> None:
    from tests.github.fake import Reply

    gh.serve("/repos/acme/shop/actions/runs/99/jobs", "run_99_jobs.json")
    gh.script(
        "GET",
        "/repos/acme/shop/actions/jobs/12/logs",
        Reply(302, None, {"Location": "/logs/12.txt"}),
    )
    gh.script(
        "GET",
        "/logs/12.txt",
        Reply(200, raw=JOB_LOG.encode(), headers={"Content-Type": "text/plain"}),
    )


def test_diagnose_a_failed_workflow_run_into_the_summary(
    tmp_path, actions, gh, monkeypatch, capsys
):
    _failed_run(gh)
    payload = {"action": "completed", "workflow_run": {**json.loads((RECORDED / "run_99.json").read_text())},
               "repository": {"full_name": "acme/shop"}}  # fmt: skip
    (tmp_path / "wr.json").write_text(json.dumps(payload))
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(tmp_path / "wr.json"))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "workflow_run")
    monkeypatch.setenv("GITHUB_RUN_ID", "5")  # this job's run: the event's run is diagnosed
    code, _, err = cli(capsys, "ci", "--diagnose", "--repo", str(tmp_path))
    assert code == 0, err
    summary = actions["summary"].read_text(encoding="utf-8")
    assert summary.startswith("# truegreen diagnose: run 99, failed: pytest")
    assert "- class: **test**" in summary and "`tests/test_num.py::test_below`" in summary
    assert gh.writes == []
    assert [r.authorization for r in gh.requests if r.path == "/logs/12.txt"] == [None]


def test_diagnose_on_push_reads_this_run_and_a_green_run_says_so(
    tmp_path, actions, gh, monkeypatch, capsys
):
    _failed_run(gh)
    push = tmp_path / "push.json"
    push.write_text('{"ref": "refs/heads/main", "repository": {"full_name": "acme/shop"}}')
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(push))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "push")
    code, _, _ = cli(capsys, "ci", "--diagnose", "--repo", str(tmp_path))
    assert code == 0 and "failing tests:" in actions["summary"].read_text()
    green = tmp_path / "green.json"
    green.write_text(json.dumps({"workflow_run": {"id": 98, "conclusion": "success"}}))
    code, out, _ = cli(
        capsys,
        "ci",
        "--diagnose",
        "--event",
        str(green),
        "--event-name",
        "workflow_run",
        "--summary",
        str(tmp_path / "s.md"),
    )
    assert code == 0 and "there is no failure to diagnose" in (tmp_path / "s.md").read_text()
