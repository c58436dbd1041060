"""Sandbox overhead: the same supervised pytest run sandboxed (bwrap) vs not (none).

A generated ~100-test project, the same interpreter and selection, runs alternating
between the two backends, median of N (default 15), plus the median of the per-pair
ratios (steadier on a busy machine) and the fixed cost of the wrapping around /bin/true.
Goal (issue 6): ratio <= 1.15.

    python bench/bench_sandbox.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _projects import write_suite

from truegreen.run.executor import Command, SubprocessExecutor
from truegreen.run.interpreter import resolve
from truegreen.run.pytest_run import PytestRequest, run_pytest
from truegreen.sandbox import SandboxSpec, get_backend
from truegreen.sandbox.bwrap import BwrapBackend


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    opts = ap.parse_args()
    ok, why = BwrapBackend().available()
    if not ok:
        print(f"bwrap does not work here: {why}")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        root.mkdir()
        os.chmod(root, 0o755)  # a worktree as git makes it (mkdtemp alone would be 0700)
        files = write_suite(root, modules=4, tests_per_module=16)
        interp = resolve(sys.executable, root)
        requests = {
            name: PytestRequest(repo=root, interpreter=interp, test_ids=files, sandbox=name)
            for name in ("none", "bwrap")
        }
        times: dict[str, list[float]] = {"none": [], "bwrap": []}
        counts = {}
        for name, request in requests.items():  # warm-up (imports, page cache)
            counts[name] = len(run_pytest(request).tests)
        assert counts["none"] == counts["bwrap"], counts
        for _ in range(opts.runs):
            for name, request in requests.items():
                t = time.perf_counter()
                run = run_pytest(request)
                times[name].append(time.perf_counter() - t)
                assert run.complete and len(run.tests) == counts[name]
        setpriv = BwrapBackend().uses_setpriv(SandboxSpec(workdir=root, python=interp.path))
        # The fixed cost: the same wrapping around /bin/true.
        ex = SubprocessExecutor()
        spec = SandboxSpec(workdir=root, python=interp.path)
        true = Command(["/bin/true"], cwd=root, env={"PATH": "/usr/bin:/bin"}, timeout=30)
        fixed: dict[str, list[float]] = {"none": [], "bwrap": []}
        for _ in range(20):
            for name in ("none", "bwrap"):
                t = time.perf_counter()
                ex.run(get_backend(name).wrap(true, spec))
                fixed[name].append(time.perf_counter() - t)
    mode = "setpriv (real uid 65534)" if setpriv else "user namespace"
    mn, mb = statistics.median(times["none"]), statistics.median(times["bwrap"])
    print(f"tests in selection      {counts['none']}")
    print(
        f"--sandbox none          median {mn:.3f} s  (runs: {', '.join(f'{x:.3f}' for x in times['none'])})"
    )
    print(
        f"--sandbox bwrap         median {mb:.3f} s  (runs: {', '.join(f'{x:.3f}' for x in times['bwrap'])})"
    )
    print(f"bwrap mode              {mode}")
    print(f"ratio of medians        {mb / mn:.3f}x   (goal <= 1.15x)")
    paired = statistics.median(b / n for n, b in zip(times["none"], times["bwrap"], strict=True))
    print(
        f"median of paired ratios {paired:.3f}x   (each bwrap run against the none run before it)"
    )
    print(f"ratio of best runs      {min(times['bwrap']) / min(times['none']):.3f}x")
    fn, fb = statistics.median(fixed["none"]), statistics.median(fixed["bwrap"])
    print(
        f"fixed cost (/bin/true)  none {fn * 1000:.1f} ms, bwrap {fb * 1000:.1f} ms (median of 20)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
