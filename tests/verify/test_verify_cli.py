"""seal and verify from the command line: the happy path and the bad inputs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import cli, live_processes_with
from tests.verify.conftest import PY
from truegreen.demo.scenario import EXAM_FILE, EXAM_TEST
from truegreen.model.documents import validate


def seal_cli(capsys, repo: Path, test_id: str, *extra: str) -> tuple[int, str, str]:
    """``truegreen seal TEST_ID`` at main (and ``extra``), and what it said."""
    return cli(
        capsys,
        "seal",
        test_id,
        "--repo",
        str(repo),
        "--python",
        PY,
        "--sandbox",
        "none",
        "--rev",
        "main",
        *extra,
    )


def seal(capsys, repo: Path, *extra: str) -> dict:
    code, out, err = seal_cli(
        capsys, repo, EXAM_TEST, "--test-file", str(EXAM_FILE), "--json", *extra
    )
    assert code == 0, err
    return json.loads(out)


def verify_cli(capsys, repo: Path, head: str, *extra: str) -> tuple[int, str, str]:
    """``truegreen verify --base main --head HEAD`` (and ``extra``), and what it said."""
    common = ["--repo", str(repo), "--python", PY, "--sandbox", "none", "--base", "main"]
    return cli(capsys, "verify", *common, "--head", head, *extra)


def worktrees(repo: Path) -> list[str]:
    done = subprocess.run(
        ["git", "worktree", "list", "--porcelain"], cwd=repo, capture_output=True, text=True
    )
    return [line for line in done.stdout.splitlines() if line.startswith("worktree ")]


@pytest.mark.slow
def test_seal_prints_the_exam_document(demo_repo, capsys):
    doc = seal(capsys, demo_repo)
    assert doc["schema"] == "truegreen.exam/1"
    assert doc["id"].startswith("ex-")
    assert set(doc["id"]) <= set("abcdefghijklmnopqrstuvwxyz0123456789-")
    assert doc["test"] == EXAM_TEST
    assert doc["signature"].startswith("AssertionError@")
    assert [r["outcome"] for r in doc["runs"]] == ["failed"] * 3
    # sealing the same exam twice gives the same id and does not duplicate it
    again = seal(capsys, demo_repo)
    assert again["id"] == doc["id"]
    assert worktrees(demo_repo) == [f"worktree {demo_repo.resolve()}"]
    # the user's working tree is untouched
    assert not (demo_repo / "tests" / "test_issue_42.py").exists()


def test_seal_refuses_a_passing_test(demo_repo, capsys):
    code, out, err = cli(
        capsys,
        "seal",
        "tests/test_money.py::test_format_cents",
        "--repo",
        str(demo_repo),
        "--python",
        PY,
        "--sandbox",
        "none",
    )
    assert code == 2 and out == ""
    assert "passes at" in err and "must fail before the fix" in err


@pytest.mark.slow
def test_verify_the_real_fix_and_write_a_report(demo_repo, capsys, tmp_path):
    exam = seal(capsys, demo_repo)
    report = tmp_path / "report"
    code, out, err = verify_cli(
        capsys,
        demo_repo,
        "real-fix",
        "--exam",
        exam["id"],
        "--json",
        "--report",
        str(report),
    )
    doc = json.loads(out)
    assert doc["schema"] == "truegreen.verification/1"
    validate(doc)
    assert (doc["verdict"], doc["decision"], code) == ("verified", "approve", 0), doc["reasons"]
    assert doc["exams"][0]["base"] == {
        "outcome": "failed",
        "runs": 3,
        "signature": exam["signature"],
    }
    assert doc["exams"][0]["head"]["outcome"] == "passed"
    assert {p.name for p in report.iterdir()} == {
        "report.md",
        "report.html",
        "verification.json",
        "receipt.json",
    }
    assert 'never means "correct"' in (report / "report.md").read_text()
    # no gate is configured: the report does not list a "gates skipped" layer
    assert "gates" not in (report / "report.md").read_text()
    code, out, _ = cli(capsys, "receipt", "verify", str(report / "receipt.json"))
    assert code == 0
    # the receipt holds the document: the same sha256
    assert json.loads((report / "receipt.json").read_text())["sha256"] == doc["receipt"]["sha256"]


@pytest.mark.slow
def test_verify_is_deterministic(demo_repo, capsys):
    exam = seal(capsys, demo_repo)
    args = ("--exam", exam["id"], "--json", "--no-strength")
    # the first verification of the base records it (the document says so); the next ones
    # select from that record: with the same inputs and the same record, the same bytes
    first = verify_cli(capsys, demo_repo, "test-only", *args)
    second = verify_cli(capsys, demo_repo, "test-only", *args)
    third = verify_cli(capsys, demo_repo, "test-only", *args)
    assert first[0] == second[0] == third[0] == 1
    assert json.loads(first[1])["regression"]["selection"]["base_record"] == "recorded"
    assert second[1] == third[1]
    assert json.loads(second[1])["regression"]["selection"]["base_record"] == "reused"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--base", "main", "--head", "main"], "--head: it is the same commit as the base"),
        (["--base", "real-fix", "--head", "main"], "--head: main is already part of the base"),
        (["--base", "main", "--head", "no-such-branch"], "does not exist"),
        (["--base", "nope", "--head", "real-fix"], "does not exist"),
        (["--base", "main", "--head", "real-fix", "--exam", "ex-0000000000000000"], "unknown exam"),
        (["--base", "main"], "--head"),
    ],
)
def test_verify_bad_input(demo_repo, capsys, args, message):
    seal(capsys, demo_repo)
    code, out, err = cli(
        capsys, "verify", "--repo", str(demo_repo), "--python", PY, "--sandbox", "none", *args
    )
    assert code == 2, err
    assert out == ""
    assert message in err
    assert "Traceback" not in err
    assert worktrees(demo_repo) == [f"worktree {demo_repo.resolve()}"]


@pytest.mark.slow
def test_a_patch_that_does_not_apply(demo_repo, capsys, tmp_path):
    seal(capsys, demo_repo)
    patch = tmp_path / "bad.patch"
    patch.write_text(
        "--- a/invoicekit/nope.py\n+++ b/invoicekit/nope.py\n@@ -1,1 +1,1 @@\n-x = 1\n+x = 2\n"
    )
    code, out, err = cli(
        capsys,
        "verify",
        "--repo",
        str(demo_repo),
        "--python",
        PY,
        "--sandbox",
        "none",
        "--base",
        "main",
        "--patch",
        str(patch),
    )
    assert code == 2 and "does not apply" in err
    assert worktrees(demo_repo) == [f"worktree {demo_repo.resolve()}"]


@pytest.mark.slow
def test_verify_a_patch(demo_repo, capsys, tmp_path):
    seal(capsys, demo_repo)
    diff = subprocess.run(
        ["git", "diff", "main", "real-fix"], cwd=demo_repo, capture_output=True, text=True
    ).stdout
    patch = tmp_path / "fix.patch"
    patch.write_text(diff)
    code, out, err = cli(
        capsys,
        "verify",
        "--repo",
        str(demo_repo),
        "--python",
        PY,
        "--sandbox",
        "none",
        "--base",
        "main",
        "--patch",
        str(patch),
        "--json",
        "--no-strength",
    )
    doc = json.loads(out)
    assert (code, doc["verdict"]) == (0, "verified"), doc["reasons"]
    assert doc["patch_sha256"]
    # the user's HEAD and working tree are untouched
    assert (
        subprocess.run(
            ["git", "status", "--porcelain"], cwd=demo_repo, capture_output=True, text=True
        ).stdout
        == ""
    )


@pytest.mark.slow
def test_a_tampered_ledger_fails_closed(demo_repo, capsys, tmp_path):
    import sqlite3

    db = tmp_path / "ledger.db"
    url = f"sqlite:///{db}"
    exam = seal(capsys, demo_repo, "--db", url)
    con = sqlite3.connect(db)
    triggers = [r[0] for r in con.execute("select name from sqlite_master where type='trigger'")]
    for name in triggers:
        con.execute(f"drop trigger {name}")
    con.execute(
        "update ledger set payload = replace(payload, 'bulk_discount_percent(10) == 5', "
        "'bulk_discount_percent(10) == 0')"
    )
    con.commit()
    con.close()
    code, out, err = verify_cli(
        capsys,
        demo_repo,
        "real-fix",
        "--exam",
        exam["id"],
        "--db",
        url,
    )
    assert code == 2
    assert out == ""
    assert "Traceback" not in err


@pytest.mark.slow
@pytest.mark.parametrize(
    ("signum", "status", "word"),
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated (SIGTERM)")],
    ids=["ctrl-c", "sigterm"],
)
def test_a_stop_in_the_middle_leaves_nothing_behind(
    demo_repo, capsys, tmp_path, process_tag, signum, status, word
):
    """Ctrl-C, and SIGTERM (what `timeout`, a CI cancellation and a service stop send):
    the worktrees, the temporary directories and the processes are gone, nothing is
    recorded, and the status says which signal it was."""
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    seal(capsys, demo_repo, "--db", url)
    # a head whose exam hangs, so the interrupt surely lands while tests run
    hang = demo_repo / "invoicekit" / "discounts.py"
    subprocess.run(["git", "checkout", "-q", "-b", "hangs", "main"], cwd=demo_repo, check=True)
    hang.write_text(
        hang.read_text().replace(
            "    if quantity < 0:", "    import time; time.sleep(600)\n    if quantity < 0:"
        )
    )
    subprocess.run(
        ["git", "commit", "-qam", "hang"],
        cwd=demo_repo,
        check=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
        },
    )
    subprocess.run(["git", "checkout", "-q", "main"], cwd=demo_repo, check=True)
    tmp = tmp_path / "tmp"  # truegreen's temporary directories, to look for leftovers in
    tmp.mkdir()
    env = {
        **os.environ,
        "TRUEGREEN_HOME": str(tmp_path / "home"),
        "PYTHONFAULTHANDLER": "1",
        "TMPDIR": str(tmp),
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "truegreen",
            "verify",
            "--repo",
            str(demo_repo),
            "--python",
            PY,
            "--sandbox",
            "none",
            "--base",
            "main",
            "--head",
            "hangs",
            "--db",
            url,
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a suite started in the background by a non-interactive shell inherits SIGINT
        # ignored, and Python then never raises KeyboardInterrupt: give the child Ctrl-C
        preexec_fn=lambda: signal.signal(signum, signal.SIG_DFL),
    )
    # interrupt once the exam runs (what this test is about), not at a fixed time: a fresh
    # install without byte-code starts slowly, and 4 s could land anywhere before that
    assert proc.stderr is not None
    seen: list[str] = []
    reader = threading.Thread(target=lambda: seen.extend(proc.stderr), daemon=True)
    reader.start()
    deadline = time.monotonic() + 120
    while not any(line.startswith("exam: running") for line in seen):
        assert proc.poll() is None and time.monotonic() < deadline, "".join(seen)
        time.sleep(0.1)
    time.sleep(1)
    assert list(tmp.glob(f"truegreen-*-p{proc.pid}.*")), "no temporary directory to clean up"
    proc.send_signal(signum)
    try:
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)  # PYTHONFAULTHANDLER: every thread's stack
        proc.wait(timeout=30)
        reader.join(timeout=5)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        raise AssertionError(f"verify did not stop after {signum!r}:\n" + "".join(seen)) from None
    reader.join(timeout=10)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    err = "".join(seen)
    assert proc.returncode == status, err
    assert f"truegreen: {word}; its worktrees and processes were cleaned up" in err
    assert worktrees(demo_repo) == [f"worktree {demo_repo.resolve()}"]
    assert list(tmp.glob(f"truegreen-*-p{proc.pid}.*")) == []
    time.sleep(0.2)
    assert live_processes_with(process_tag) == []
    import sqlite3

    con = sqlite3.connect(tmp_path / "ledger.db")
    kinds = [r[0] for r in con.execute("select kind from ledger")]
    assert "verification" not in kinds


def test_seal_needs_a_git_repository(tmp_path, capsys):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def test_a():\n    assert False\n")
    code, out, err = cli(
        capsys,
        "seal",
        "tests/test_a.py::test_a",
        "--repo",
        str(tmp_path),
        "--python",
        PY,
        "--sandbox",
        "none",
    )
    assert code == 2 and out == ""
    assert "is not a git repository" in err


@pytest.mark.parametrize(
    ("test_id", "extra", "message"),
    [
        ("tests/test_x.py", [], "is not a pytest node id"),
        ("../outside.py::test_a", [], "inside it"),
        (EXAM_TEST, ["--test-file", "/no/such/file.py"], "does not exist"),
        ("tests/test_nope.py::test_a", [], "does not exist at"),
        (EXAM_TEST, ["--rev", "no-such-rev"], "does not exist"),
    ],
)
def test_seal_bad_input(demo_repo, capsys, test_id, extra, message):
    code, out, err = cli(
        capsys,
        "seal",
        test_id,
        "--repo",
        str(demo_repo),
        "--python",
        PY,
        "--sandbox",
        "none",
        *extra,
    )
    assert code == 2 and out == ""
    assert message in err
    assert "Traceback" not in err


def test_seal_says_an_uncommitted_test_is_not_what_it_ran(demo_repo, capsys):
    """A test written in the working tree but not committed: seal runs the revision, so the
    id does not exist there; the message names the revision (not a disposable worktree)
    and says why, and what to do."""
    path = demo_repo / "tests" / "test_money.py"
    path.write_text(path.read_text() + "\n\ndef test_written_not_committed():\n    assert False\n")
    code, out, err = seal_cli(capsys, demo_repo, "tests/test_money.py::test_written_not_committed")
    assert code == 2 and out == ""
    assert "'tests/test_money.py::test_written_not_committed' does not exist at " in err
    assert "truegreen-" not in err  # not the path of a worktree the user never saw
    assert "differs from the copy at that revision" in err
    assert "--test-file tests/test_money.py" in err
    assert worktrees(demo_repo) == [f"worktree {demo_repo.resolve()}"]


def test_seal_of_an_unknown_id_names_the_revision(demo_repo, capsys):
    code, out, err = seal_cli(capsys, demo_repo, "tests/test_money.py::test_no_such_test")
    assert code == 2 and out == ""
    assert "'tests/test_money.py::test_no_such_test' does not exist at " in err
    assert "truegreen-" not in err and "differs" not in err
    assert "--collect-only" in err


@pytest.mark.slow
def test_seal_of_a_parametrized_function_without_its_case(make_project, capsys):
    """An id that names every case of a parametrized test is not one test: seal says so
    and names the cases that fail, instead of "ended without a report"."""
    repo = make_project(
        {
            "pyproject.toml": "[project]\nname = 'p'\n",
            "tests/test_p.py": """
                import pytest


                @pytest.mark.parametrize("x", [1, 2, 3])
                def test_p(x):
                    assert x != 2
            """,
        }
    )
    code, out, err = seal_cli(capsys, repo, "tests/test_p.py::test_p")
    assert code == 2 and out == ""
    assert "tests/test_p.py::test_p is 3 tests, not one" in err
    assert "seal one case: 'tests/test_p.py::test_p[2]'" in err
    assert "without a report" not in err
    assert worktrees(repo) == [f"worktree {repo.resolve()}"]


def test_seal_of_a_hanging_test_says_it_hung_and_stops_at_the_first_run(make_project, capsys):
    repo = make_project(
        {
            "truegreen.toml": "suite-timeout = 2\n",
            "tests/test_h.py": "import time\n\n\ndef test_h():\n    time.sleep(60)\n",
        }
    )
    started = time.monotonic()
    code, out, err = seal_cli(capsys, repo, "tests/test_h.py::test_h", "--runs", "3")
    assert code == 2 and out == ""
    assert "did not finish at" in err and "passed its deadline" in err
    assert "join it with a timeout" in err and "@pytest.mark.timeout(N)" in err
    assert "run 2" not in err  # the first run settles it: no waiting for two more deadlines
    assert time.monotonic() - started < 4 * 2
    assert worktrees(repo) == [f"worktree {repo.resolve()}"]


@pytest.mark.slow
def test_the_human_verdict_says_what_was_compared_and_who_decides(demo_repo, capsys):
    exam = seal(capsys, demo_repo)

    def verify(head: str) -> tuple[int, str]:
        code, out, _ = verify_cli(capsys, demo_repo, head, "--exam", exam["id"], "--no-strength")
        return code, out

    code, out = verify("real-fix")
    assert code == 0
    # how much the regression layer compared, so "regression pass" is not an empty claim
    line = next(x for x in out.splitlines() if x.strip().startswith("regression:"))
    assert "tests ran on both sides: 0 new failures, 0 flaky" in line
    assert int(line.split("regression:")[1].split()[0]) > 0
    assert "strength: not measured (--no-strength" in out  # said, not left out
    assert "layers: exam pass, tamper pass, regression pass\n" in out  # no gate exists
    assert "escalated" not in out
    code, out = verify("special-case")
    assert code == 3
    assert "escalated: the evidence does not settle it either way" in out


def test_an_incomplete_regression_layer_reads_as_incomplete_not_compared() -> None:
    from truegreen.report.markdown import compared_tests

    assert compared_tests({"complete": False, "compared": 0}).startswith("incomplete:")
    assert "not a pass" in compared_tests({"complete": False, "compared": 0})
    assert compared_tests({"complete": True, "compared": 0}).startswith("no test besides")
    done = {"complete": True, "compared": 12, "new_failures": ["t"], "failing_on_both": ["u"]}
    assert compared_tests(done) == (
        "12 tests ran on both sides: 1 new failure, 0 flaky, 1 failing on both sides (not counted)"
    )
    one = {"complete": True, "compared": 1, "new_failures": ["t", "v"]}
    assert compared_tests(one) == "1 test ran on both sides: 2 new failures, 0 flaky"
