"""Exam strength on a real project, end to end, side by side with mutmut (issue #38).

The project is the sdist of inflection 0.5.1 (``pip download``), made a git repository:
``main`` has ``dasherize`` broken (``return word.replace('-', '_')``), ``fix`` repairs it
(a one-line fix returning a library call with string arguments). The exam is
``test_inflection.py::test_dasherize[street_address-street-address]``, sealed on main.

    python bench/bench_strength.py [--repeat 3] [--mutmut /path/to/venv/bin/mutmut]

For truegreen: ``truegreen strength --exam ID --base main --head fix`` (its worktree, the
exam's run, the line recorder, the mutants), wall time per run, median of ``--repeat``;
with ``--serial``, the same with one worker. For mutmut (3.x, given its executable): in a
copy of the project at ``fix``, ``mutmut run "inflection.x_dasherize__mutmut_*"`` (the
mutants of the function the fix changed, against the tests mutmut's coverage stats pick),
wall time, median of ``--repeat``, after removing its ``mutants/`` cache. Printed: mutants,
killed, wall seconds and end-to-end mutants per second for each, and the machine's load.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import git  # noqa: E402  (the benchmark runs from a checkout)

SDIST = "inflection==0.5.1"
EXAM = "test_inflection.py::test_dasherize[street_address-street-address]"
LINE = 180  # `return word.replace('_', '-')` in inflection/__init__.py


def project(tmp: Path) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-deps",
            "--no-binary",
            ":all:",
            SDIST,
            "-d",
            str(tmp),
        ],
        check=True,
    )
    (archive,) = tmp.glob("inflection-*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(tmp, filter="data")
    root = tmp / "repo"
    (tmp / archive.name.removesuffix(".tar.gz")).rename(root)
    shutil.rmtree(root / "inflection.egg-info", ignore_errors=True)
    src = root / "inflection" / "__init__.py"
    lines = src.read_text().splitlines(keepends=True)
    assert lines[LINE - 1].strip() == "return word.replace('_', '-')", lines[LINE - 1]
    lines[LINE - 1] = "    return word.replace('-', '_')\n"
    src.write_text("".join(lines))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base: dasherize broken")
    git(root, "checkout", "-q", "-b", "fix")
    lines[LINE - 1] = "    return word.replace('_', '-')\n"
    src.write_text("".join(lines))
    git(root, "commit", "-q", "-am", "fix dasherize")
    git(root, "checkout", "-q", "main")
    return root


def truegreen_runs(root: Path, repeat: int, workers: int) -> tuple[dict[str, int], list[float]]:
    from truegreen import api
    from truegreen.verify import strength

    strength.WORKERS = workers
    common = {"repo": root, "python": sys.executable, "sandbox": "none"}
    exam = api.seal(api.SealRequest(test_id=EXAM, runs=1, **common)).exam.id
    times, doc = [], {}
    for _ in range(repeat):
        start = time.perf_counter()
        report = api.strength(api.StrengthRequest(exams=(exam,), base="main", head="fix", **common))
        times.append(time.perf_counter() - start)
        doc = report.to_json()["strength"]
    return {"mutants": doc["mutants"], "killed": doc["killed"]}, times


def mutmut_runs(
    root: Path, mutmut: str, repeat: int, tmp: Path
) -> tuple[dict[str, int], list[float]]:
    copy = tmp / "mutmut"
    shutil.copytree(root, copy)
    git(copy, "checkout", "-q", "fix")
    with (copy / "setup.cfg").open("a") as f:
        f.write("\n[mutmut]\nsource_paths = inflection\ntests_dir = test_inflection.py\n")
    times, counts = [], {}
    for _ in range(repeat):
        shutil.rmtree(copy / "mutants", ignore_errors=True)
        start = time.perf_counter()
        out = subprocess.run(
            [mutmut, "run", "inflection.x_dasherize__mutmut_*"],
            cwd=copy,
            capture_output=True,
            text=True,
        )
        times.append(time.perf_counter() - start)
        results = subprocess.run(
            [mutmut, "results", "--all", "true"], cwd=copy, capture_output=True, text=True
        )
        names = [ln for ln in results.stdout.splitlines() if "x_dasherize__mutmut_" in ln]
        killed = sum(ln.rstrip().endswith("killed") for ln in names)
        counts = {"mutants": len(names), "killed": killed}
        if out.returncode not in (0, 1) and not names:
            raise SystemExit(f"mutmut failed: {out.stderr[-2000:]}")
    return counts, times


def main() -> int:
    args = sys.argv[1:]
    repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 3
    mutmut = args[args.index("--mutmut") + 1] if "--mutmut" in args else None
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        os.environ.setdefault("TRUEGREEN_HOME", str(tmp / "home"))
        root = project(tmp)
        rows = []
        counts, times = truegreen_runs(root, repeat, workers=2)
        rows.append(("truegreen strength (2 workers)", counts, times))
        if "--serial" in args:
            counts, times = truegreen_runs(root, repeat, workers=1)
            rows.append(("truegreen strength (1 worker)", counts, times))
        if mutmut:
            counts, times = mutmut_runs(root, mutmut, repeat, tmp)
            rows.append(("mutmut run (the fixed function)", counts, times))
    print(
        f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cores)"
    )
    print(f"{'tool':34} {'mutants':>7} {'killed':>6} {'wall s (median)':>16} {'mutants/s':>9}")
    result = {}
    for name, c, t in rows:
        med = statistics.median(t)
        rate = c["mutants"] / med if med else 0.0
        result[name] = {
            **c,
            "wall": [round(x, 2) for x in t],
            "median": round(med, 2),
            "rate": round(rate, 3),
        }
        print(f"{name:34} {c['mutants']:7} {c['killed']:6} {med:16.1f} {rate:9.3f}")
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
