"""`truegreen ci` against the bare `truegreen verify` it wraps, and the write gate's requests.

1. On the demo project, the exam for #42 sealed and committed under .truegreen/exams/ on
   main, a recorded-shape pull_request event for the branch real-fix ("Fixes #42"):
   `api.ci` (event read, linked issues, exams read from the base and imported, verify,
   summary, annotations; writes off) versus `api.verify` of the same merge base, head and
   exam, alternated, median of N. What `ci` adds must stay small: goal ratio <= 1.10.
2. The gate against the loopback fake: the requests of one report (comment, check run,
   label) on the first attempt and on a retried attempt with an empty local write log
   (what a re-run job on a fresh runner has): goal 3 writes, then 0.

    python bench/bench_github.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.github.fake import FakeGitHub  # noqa: E402

from truegreen import api  # noqa: E402
from truegreen.demo.scenario import EXAM_FILE, EXAM_TEST, build  # noqa: E402
from truegreen.github.auth import TokenAuth  # noqa: E402
from truegreen.github.client import GitHubClient  # noqa: E402
from truegreen.github.gate import WriteGate, WriteLog  # noqa: E402


def git(root: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@x",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@x",
    }
    return subprocess.run(
        ["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


def ci_vs_verify(tmp: Path, runs: int) -> dict[str, object]:
    root = tmp / "invoicekit"
    build(root)
    db = f"sqlite:///{tmp}/ledger.db"
    sealed = api.seal(
        api.SealRequest(repo=root, test_id=EXAM_TEST, test_file=EXAM_FILE, issue="42", runs=1,
                        export=root / ".truegreen" / "exams", db=db, sandbox="none")
    )  # fmt: skip
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Exam for #42")
    base, head = git(root, "rev-parse", "main"), git(root, "rev-parse", "real-fix")
    merge_base = git(root, "merge-base", base, head)
    event = {
        "number": 1,
        "pull_request": {"number": 1, "title": "Fix the discount", "body": "Fixes #42",
                         "base": {"sha": base, "repo": {"full_name": "acme/invoicekit"}},
                         "head": {"sha": head, "repo": {"full_name": "acme/invoicekit"}}},
        "repository": {"full_name": "acme/invoicekit"},
    }  # fmt: skip
    (tmp / "event.json").write_text(json.dumps(event))
    ci_request = api.CiRequest(repo=root, event_path=tmp / "event.json", event_name="pull_request",
                               writes="off", runs=1, strength=False, db=db, sandbox="none")  # fmt: skip
    verify_request = api.VerifyRequest(repo=root, base=merge_base, head=head, exams=(sealed.exam.id,),
                                       runs=1, strength=False, db=db, sandbox="none")  # fmt: skip
    times: dict[str, list[float]] = {"ci": [], "verify": []}
    decisions = set()
    for _ in range(runs):
        for name in ("verify", "ci"):
            start = time.perf_counter()
            if name == "ci":
                decisions.add(api.ci(ci_request).decision)
            else:
                decisions.add(api.verify(verify_request).decision)
            times[name].append(time.perf_counter() - start)
    ci, verify = statistics.median(times["ci"]), statistics.median(times["verify"])
    return {
        "ci_s": round(ci, 2),
        "verify_s": round(verify, 2),
        "ratio": round(ci / verify, 3),
        "goal": "<= 1.10",
        "decisions": sorted(d for d in decisions if d),
        "samples": {k: [round(x, 2) for x in v] for k, v in times.items()},
    }


def gate_requests(tmp: Path) -> dict[str, object]:
    counts = []
    with FakeGitHub() as gh, GitHubClient(api=gh.url, auth=TokenAuth("ghs_bench")) as client:
        for attempt in range(2):
            before_all, before_writes = len(gh.requests), len(gh.writes)
            gate = WriteGate(
                client,
                "acme/shop",
                mode="live",
                store=WriteLog(tmp / f"log{attempt}.sqlite"),
                secrets=(),
            )
            key = "acme/shop#7@abc"
            gate.sticky_comment(7, "report", key=key)
            gate.check_run("ab" * 20, "truegreen", "success", "verified", "report", key=key)
            gate.labels(7, ["truegreen: verified"], key=key)
            counts.append(
                {
                    "requests": len(gh.requests) - before_all,
                    "writes": len(gh.writes) - before_writes,
                }
            )
    return {"first_attempt": counts[0], "retried_attempt": counts[1], "goal": "3 writes, then 0"}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TRUEGREEN_HOME"] = str(Path(tmp) / "home")
        result = {
            "load": os.getloadavg()[0],
            "ci_vs_verify": ci_vs_verify(Path(tmp), opts.runs),
            "gate": gate_requests(Path(tmp)),
        }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
