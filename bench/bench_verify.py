"""verify's wall time against the bare pytest runs it has to make.

On the demo project (real fix candidate): `truegreen verify` (exam 3x on each side,
the suite on each side, strength mutants) versus the same pytest runs made bare
(`python -m pytest ...` in plain worktrees, one after the other), median of N.
Goal (issue 3): ratio <= 1.25.

    python bench/bench_verify.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from truegreen import api
from truegreen.demo.scenario import EXAM_FILE, EXAM_TEST, build
from truegreen.verify.mutate import changed_lines, mutants_for


def bare(root: Path, runs: int, mutants: int) -> float:
    """The same pytest runs, bare, in plain worktrees made before the clock starts."""
    base = root.parent / "bare-base"
    head = root.parent / "bare-head"
    for path, rev in ((base, "main"), (head, "real-fix")):
        subprocess.run(
            ["git", "worktree", "add", "-q", "--detach", str(path), rev], cwd=root, check=True
        )
        (path / "tests" / "test_issue_42.py").write_text(EXAM_FILE.read_text())
    py = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    start = time.perf_counter()
    for tree in (base, head):
        for _ in range(runs):
            subprocess.run([*py, EXAM_TEST], cwd=tree, capture_output=True)
        subprocess.run(py, cwd=tree, capture_output=True)
    for _ in range(mutants):
        subprocess.run([*py, EXAM_TEST], cwd=head, capture_output=True)
    elapsed = time.perf_counter() - start
    for path in (base, head):
        subprocess.run(["git", "worktree", "remove", "--force", str(path)], cwd=root, check=True)
    return elapsed


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument(
        "--sandbox", action="store_true", help="also: the same verification under bwrap vs none"
    )
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "invoicekit"
        build(root)
        url = f"sqlite:///{tmp}/ledger.db"
        where = {"repo": root, "python": sys.executable, "db": url}
        exam = api.seal(
            api.SealRequest(
                **where, sandbox="none", test_id=EXAM_TEST, rev="main", test_file=EXAM_FILE
            )
        ).exam

        def verify(sandbox: str) -> dict[str, Any]:
            request = api.VerifyRequest(
                **where, sandbox=sandbox, base="main", head="real-fix", exams=(exam.id,)
            )
            return api.verify(request).to_json()

        diff = subprocess.run(
            ["git", "diff", "-U0", "main", "real-fix"], cwd=root, capture_output=True, text=True
        ).stdout
        lines = changed_lines(diff)
        n_mutants = sum(
            len(mutants_for(p, (root / p).read_text(), sorted(ls)))
            for p, ls in lines.items()
            if p.endswith(".py") and not p.startswith("tests/")
        )
        ours, theirs = [], []
        for _ in range(opts.runs):
            t = time.perf_counter()
            doc = verify("none")
            ours.append(time.perf_counter() - t)
            assert doc["verdict"] == "verified", doc["reasons"]
            theirs.append(bare(root, 3, doc["strength"]["mutants"] if doc["strength"] else 0))
        boxed: list[float] = []
        plain: list[float] = []
        if opts.sandbox:
            for _ in range(opts.runs):
                for sandbox, into in (("none", plain), ("bwrap", boxed)):
                    t = time.perf_counter()
                    verify(sandbox)
                    into.append(time.perf_counter() - t)
    mo, mb = statistics.median(ours), statistics.median(theirs)
    print(
        f"mutants of the changed lines        {n_mutants} (verify ran {doc['strength']['mutants'] if doc['strength'] else 0})"
    )
    print(
        f"bare pytest runs (sequential)       median {mb:.2f} s  ({', '.join(f'{x:.2f}' for x in theirs)})"
    )
    print(
        f"truegreen verify                    median {mo:.2f} s  ({', '.join(f'{x:.2f}' for x in ours)})"
    )
    print(f"ratio                               {mo / mb:.2f}x   (goal <= 1.25x)")
    if boxed:
        mp, mx = statistics.median(plain), statistics.median(boxed)
        print(f"verify --sandbox none               median {mp:.2f} s")
        print(f"verify --sandbox bwrap              median {mx:.2f} s")
        print(f"sandbox ratio                       {mx / mp:.2f}x   (issue 6 goal <= 1.15x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
