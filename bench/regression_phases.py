"""Where one ``verify`` spends its time, phase by phase (issue #38: the second verification
of a base, whose base record is reused), on a project bench/bench_regression.py prepared.

Not part of the unit test suite. Each verification runs in a child process (the imports
count, as they do for the command line), patched to mark: the worktrees' creation and
removal, the carried files, the record's load, the plan, each pytest process (with its
side, plugins, how many tests it collected and reported, and the sum of their reported
durations: the rest of its wall time is the interpreter's start, pytest's plugins and the
collection), the tamper layer, and the layers' own progress events.

    python bench/regression_phases.py --repo bench/.cache/regression/boltons-26.2.0 \\
        --python bench/.cache/regression/venvs/boltons/bin/python \\
        --heads reg/00,clean/00 [--mode selected] [--rounds 3] \\
        [--versions old=/tmp/old/src,new=src] [--out /tmp/phases.jsonl]

A version is ``NAME=SRC`` (a ``src`` directory put first on the child's ``PYTHONPATH``: an
older truegreen unpacked with ``git archive REV src | tar -x -C DIR``); the versions run
interleaved head by head, round by round, so that the machine's drift falls on all of
them alike, and the load is printed with each run. The first verification of a head
records the base when no record is there (run one with ``--mode selected`` first).
TRUEGREEN_HOME is the caller's (set it to keep the records apart from your own).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import contextlib, json, sys, time
from pathlib import Path

from truegreen import api
from truegreen.repo import git as gitmod
from truegreen.run import pytest_run as pr
from truegreen.verify import pipeline, selection

T0 = time.perf_counter()
marks = []


def mark(name, t0, extra=""):
    marks.append([round(t0 - T0, 3), round(time.perf_counter() - t0, 3), name, extra])


real_worktree = gitmod.GitRepo.worktree


@contextlib.contextmanager
def worktree(self, rev, **kw):
    t0 = time.perf_counter()
    cm = real_worktree(self, rev, **kw)
    value = cm.__enter__()
    mark("worktree add " + kw.get("prefix", ""), t0)
    try:
        yield value
    finally:
        t1 = time.perf_counter()
        cm.__exit__(None, None, None)
        mark("worktree remove " + kw.get("prefix", ""), t1)


gitmod.GitRepo.worktree = worktree


def timed(module, name):
    real = getattr(module, name)

    def wrapper(*args, **kw):
        t0 = time.perf_counter()
        try:
            return real(*args, **kw)
        finally:
            mark(name, t0)

    setattr(module, name, wrapper)


real_run = pr.run_pytest


def run_pytest(request, executor=None):
    t0 = time.perf_counter()
    run = real_run(request, executor)
    side = "head" if "truegreen-head-" in str(request.repo) else "base"
    tests = sum(t.duration or 0 for t in run.tests)
    mark("pytest " + side, t0, f"plugins={','.join(request.plugins) or '-'} ids={len(request.test_ids)} "
         f"collected={len(run.collected)} reported={len(run.tests)} tests={tests:.3f}s")
    return run


pr.run_pytest = run_pytest
pipeline.run_pytest = run_pytest
for module, name in ((selection, "plan"), (selection, "load"), (pipeline, "tamper_layer"), (getattr(pipeline, "_Tamper", pipeline), "findings"),
                     (pipeline, "carry_for"), (pipeline, "grade_under_base_config")):
    if hasattr(module, name):
        timed(module, name)

repo, python, head, mode = sys.argv[1:5]


def listen(event):
    if event.phase != "step":
        marks.append([round(time.perf_counter() - T0, 3), 0.0, f"[{event.layer} {event.phase}]",
                      (event.message or "")[:100]])


request = api.VerifyRequest(repo=Path(repo), python=python, base="main", head=head,
                            without_exams=True, exams=(), strength=False, runs=1,
                            sandbox="none", regression=mode)
doc = api.verify(request, record=False, listener=listen).to_json()
reg = doc.get("regression") or {}
print(json.dumps({"wall": round(time.perf_counter() - T0, 3),
                  "new_failures": len(reg.get("new_failures") or []),
                  "flaky": len(reg.get("flaky") or []), "selection": reg.get("selection"),
                  "marks": sorted(marks)}))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--python", required=True)
    parser.add_argument("--heads", required=True, help="branches, comma-separated")
    parser.add_argument("--mode", default="selected")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--versions", default="current=" + str(Path(__file__).parent.parent / "src")
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    versions = [v.split("=", 1) for v in args.versions.split(",")]
    out = args.out.open("a", encoding="utf-8") if args.out else None
    for n in range(args.rounds):
        for head in args.heads.split(","):
            for name, src in versions:
                env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
                load = os.getloadavg()[0]
                done = subprocess.run(
                    [sys.executable, "-c", CHILD, str(args.repo), args.python, head, args.mode],
                    env=env, capture_output=True, text=True, check=False,
                )  # fmt: skip
                if done.returncode != 0:
                    print(f"{name} {head}: failed\n{done.stderr[-2000:]}", file=sys.stderr)
                    continue
                got = json.loads(done.stdout.strip().splitlines()[-1])
                got.update(version=name, head=head, round=n, load=round(load, 2))
                if out is not None:
                    out.write(json.dumps(got) + "\n")
                sel = got.get("selection") or {}
                print(f"== {name} {head} round {n}: wall {got['wall']} s, load {load:.2f}, "
                      f"new failures {got['new_failures']}, flaky {got['flaky']}, "
                      f"selection {sel.get('mode')} {sel.get('tests')}/{sel.get('of')}")  # fmt: skip
                for at, took, what, extra in got["marks"]:
                    print(f"   at {at:7.3f} s  took {took:6.3f} s  {what} {extra}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
