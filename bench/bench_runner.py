"""Runner overhead: truegreen's supervised run vs bare ``python -m pytest``.

Same selection (a generated ~300-test project), same interpreter, alternating runs,
median of N. Goal (issue 2): ratio <= 1.10.

    python bench/bench_runner.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _projects import write_suite

from truegreen.run.interpreter import resolve
from truegreen.run.pytest_run import PytestRequest, run_pytest


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        files = write_suite(root)
        interp = resolve(sys.executable, root)
        request = PytestRequest(repo=root, interpreter=interp, test_ids=files, sandbox="none")
        bare_argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *files]
        bare, ours = [], []
        # warm-up (imports, page cache)
        subprocess.run(bare_argv, cwd=root, capture_output=True, check=False)
        run = run_pytest(request)
        n_tests = len(run.tests)
        for _ in range(opts.runs):
            t = time.perf_counter()
            subprocess.run(bare_argv, cwd=root, capture_output=True, check=False)
            bare.append(time.perf_counter() - t)
            t = time.perf_counter()
            run = run_pytest(request)
            ours.append(time.perf_counter() - t)
            assert len(run.tests) == n_tests and run.complete
    mb, mo = statistics.median(bare), statistics.median(ours)
    print(f"tests in selection      {n_tests}")
    print(
        f"bare python -m pytest   median {mb:.3f} s  (runs: {', '.join(f'{x:.3f}' for x in bare)})"
    )
    print(
        f"truegreen runner        median {mo:.3f} s  (runs: {', '.join(f'{x:.3f}' for x in ours)})"
    )
    print(f"ratio                   {mo / mb:.3f}x   (goal <= 1.10x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
