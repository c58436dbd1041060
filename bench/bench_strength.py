"""Exam strength on a real project, end to end, side by side with mutmut (issue #38).

The project is the sdist of inflection 0.5.1 (``pip download``), made a git repository:
``main`` has ``dasherize`` broken (``return word.replace('-', '_')``), ``fix`` repairs it
(a one-line fix returning a library call with string arguments). The exam is
``test_inflection.py::test_dasherize[street_address-street-address]``, sealed on main.

    python bench/bench_strength.py [--repeat 5] [--mutmut /path/to/venv/bin/mutmut]
        [--fresh] [--serial] [--out bench/results/strength.json]

For truegreen: ``truegreen strength --exam ID --base main --head fix`` (its worktree, the
exam's warm run under the line recorder, the mutants forked from it), wall time per run;
with ``--fresh``, the same with every mutant in a fresh pytest process (the scheme before
the warm runner); with ``--serial``, the same with one worker. For mutmut (3.x, given its
executable): in a copy of the project at ``fix``, ``mutmut run
"inflection.x_dasherize__mutmut_*"`` (the mutants of the function the fix changed, against
the tests mutmut's coverage stats pick), wall time, after removing its ``mutants/`` cache.
Both run the project's tests in the same environment: mutmut's (its ``python``, next to
the executable), or ``--python``'s.

The tools take turns within each of the ``--repeat`` rounds (truegreen, then mutmut, ...),
so a change in the machine's load hits both alike; each round's ratio (truegreen's
mutants per second over mutmut's) is kept, and the median of the rounds is reported with
the median wall times. Printed (and written to ``--out``): mutants, killed, wall seconds
and end-to-end mutants per second for each, the ratios, and the machine's load before and
after.
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


def truegreen_exam(root: Path, python: str) -> str:
    from truegreen import api

    common = {"repo": root, "python": python, "sandbox": "none"}
    return api.seal(api.SealRequest(test_id=EXAM, runs=1, **common)).exam.id


def truegreen_run(
    root: Path, python: str, exam: str, workers: int, warm: bool
) -> tuple[dict[str, int], float]:
    from truegreen import api
    from truegreen.verify import strength

    strength.WORKERS, strength.WARM = workers, warm
    common = {"repo": root, "python": python, "sandbox": "none"}
    start = time.perf_counter()
    report = api.strength(api.StrengthRequest(exams=(exam,), base="main", head="fix", **common))
    took = time.perf_counter() - start
    doc = report.to_json()["strength"]
    return {"mutants": doc["mutants"], "killed": doc["killed"]}, took


def mutmut_copy(root: Path, tmp: Path) -> Path:
    copy = tmp / "mutmut"
    shutil.copytree(root, copy)
    git(copy, "checkout", "-q", "fix")
    with (copy / "setup.cfg").open("a") as f:
        f.write("\n[mutmut]\nsource_paths = inflection\ntests_dir = test_inflection.py\n")
    return copy


def mutmut_run(copy: Path, mutmut: str) -> tuple[dict[str, int], float]:
    shutil.rmtree(copy / "mutants", ignore_errors=True)
    start = time.perf_counter()
    out = subprocess.run(
        [mutmut, "run", "inflection.x_dasherize__mutmut_*"],
        cwd=copy,
        capture_output=True,
        text=True,
    )
    took = time.perf_counter() - start
    results = subprocess.run(
        [mutmut, "results", "--all", "true"], cwd=copy, capture_output=True, text=True
    )
    names = [ln for ln in results.stdout.splitlines() if "x_dasherize__mutmut_" in ln]
    killed = sum(ln.rstrip().endswith("killed") for ln in names)
    if out.returncode not in (0, 1) and not names:
        raise SystemExit(f"mutmut failed: {out.stderr[-2000:]}")
    return {"mutants": len(names), "killed": killed}, took


def main() -> int:
    args = sys.argv[1:]
    repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 5
    mutmut = args[args.index("--mutmut") + 1] if "--mutmut" in args else None
    out_path = Path(args[args.index("--out") + 1]) if "--out" in args else None
    # the project's environment, where both tools run its tests: mutmut's (it must import
    # the project's tests there), unless --python names another
    python = sys.executable
    if mutmut:
        python = str(Path(mutmut).parent / "python")
    if "--python" in args:
        python = args[args.index("--python") + 1]
    load = os.getloadavg()
    tools = ["truegreen strength (warm fork, 2 workers)"]
    if "--fresh" in args:
        tools.append("truegreen strength (fresh process per mutant, 2 workers)")
    if "--serial" in args:
        tools.append("truegreen strength (warm fork, 1 worker)")
    if mutmut:
        tools.append("mutmut run (the fixed function)")
    counts: dict[str, dict[str, int]] = {}
    times: dict[str, list[float]] = {t: [] for t in tools}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        os.environ.setdefault("TRUEGREEN_HOME", str(tmp / "home"))
        root = project(tmp)
        exam = truegreen_exam(root, python)
        copy = mutmut_copy(root, tmp) if mutmut else None
        for _ in range(repeat):
            for tool in tools:
                if tool.startswith("mutmut"):
                    assert mutmut is not None and copy is not None
                    c, t = mutmut_run(copy, mutmut)
                else:
                    workers = 1 if "1 worker" in tool else 2
                    c, t = truegreen_run(root, python, exam, workers, warm="warm" in tool)
                counts[tool] = c
                times[tool].append(t)
    end_load = os.getloadavg()
    print(
        f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, at the end: "
        f"{end_load[0]:.2f} {end_load[1]:.2f} {end_load[2]:.2f} ({os.cpu_count()} cores)"
    )
    print(f"{'tool':58} {'mutants':>7} {'killed':>6} {'wall s (median)':>16} {'mutants/s':>9}")
    result: dict[str, object] = {
        "project": SDIST,
        "exam": EXAM,
        "repeat": repeat,
        "load_start": [round(x, 2) for x in load],
        "load_end": [round(x, 2) for x in end_load],
        "cores": os.cpu_count(),
        "python": python,
    }
    tools_doc = {}
    for name in tools:
        c, t = counts[name], times[name]
        med = statistics.median(t)
        rate = c["mutants"] / med if med else 0.0
        tools_doc[name] = {
            **c,
            "kill_rate": round(c["killed"] / c["mutants"], 3) if c["mutants"] else None,
            "wall": [round(x, 2) for x in t],
            "median": round(med, 2),
            "rate": round(rate, 3),
        }
        print(f"{name:58} {c['mutants']:7} {c['killed']:6} {med:16.1f} {rate:9.3f}")
    result["tools"] = tools_doc
    if mutmut:
        ours, theirs = tools[0], tools[-1]
        rounds = [
            (counts[ours]["mutants"] / a) / (counts[theirs]["mutants"] / b)
            for a, b in zip(times[ours], times[theirs], strict=True)
        ]
        result["ratio_per_round"] = [round(x, 2) for x in rounds]
        result["ratio_median"] = round(statistics.median(rounds), 2)
        print(
            f"mutants/s, truegreen over mutmut, per round: {result['ratio_per_round']} "
            f"(median {result['ratio_median']}x; goal >= 3x)"
        )
    text = json.dumps(result, sort_keys=True, indent=1)
    print(text)
    if out_path is not None:
        out_path.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
