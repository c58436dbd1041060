"""Exam strength on real projects, end to end, side by side with mutmut (issue #38).

Each project is an sdist from the package index (``pip download``), made a git
repository: ``main`` has one line of a function broken, ``fix`` repairs it; the exam is the
project's own test of that function, sealed on main:

* inflection 0.5.1: ``dasherize`` (``return word.replace('-', '_')``; the fix returns a
  library call with string arguments), exam
  ``test_inflection.py::test_dasherize[street_address-street-address]``;
* boltons 26.2.0: ``strutils.bytes2human`` (``if abs_bytes <= next_size:``; the fix is a
  boundary), exam ``tests/test_strutils.py::test_bytes2human``.

    python bench/bench_strength.py [--repeat 5] [--mutmut /path/to/venv/bin/mutmut]
        [--project NAME] [--fresh] [--serial] [--python PATH] [--out FILE.json]

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
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import git  # noqa: E402  (the benchmark runs from a checkout)


@dataclass(frozen=True)
class Project:
    name: str
    sdist: str
    file: str  # the changed file
    line: int  # the changed line
    fixed: str  # the line, stripped, as the fix has it
    broken: str  # ... and as main has it
    exam: str
    #: mutmut's configuration: (the file it is appended to, the text)
    mutmut_config: tuple[str, str]
    #: the mutants mutmut runs (those of the function the fix changed)
    mutmut_glob: str


PROJECTS = [
    Project(
        name="inflection",
        sdist="inflection==0.5.1",
        file="inflection/__init__.py",
        line=180,
        fixed="return word.replace('_', '-')",
        broken="return word.replace('-', '_')",
        exam="test_inflection.py::test_dasherize[street_address-street-address]",
        mutmut_config=(
            "setup.cfg",
            "\n[mutmut]\nsource_paths = inflection\ntests_dir = test_inflection.py\n",
        ),
        mutmut_glob="inflection.x_dasherize__mutmut_*",
    ),
    Project(
        name="boltons",
        sdist="boltons==26.2.0",
        file="boltons/strutils.py",
        line=577,
        fixed="if abs_bytes < next_size:",
        broken="if abs_bytes <= next_size:",
        exam="tests/test_strutils.py::test_bytes2human",
        # the test module of the function: the whole suite's stats run fails under mutmut
        # (a pickling test meets its trampolines) and takes minutes
        mutmut_config=(
            "pyproject.toml",
            "\n[tool.mutmut]\npaths_to_mutate = ['boltons/strutils.py']\n"
            "also_copy = ['boltons']\ntests_dir = ['tests/test_strutils.py']\n",
        ),
        mutmut_glob="boltons.strutils.x_bytes2human__mutmut_*",
    ),
]


def project(p: Project, tmp: Path) -> Path:
    dl = tmp / f"{p.name}-sdist"
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
         p.sdist, "-d", str(dl)],
        check=True,
    )  # fmt: skip
    (archive,) = dl.glob("*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(dl, filter="data")
    root = tmp / p.name
    (dl / archive.name.removesuffix(".tar.gz")).rename(root)
    for info in root.glob("*.egg-info"):
        shutil.rmtree(info, ignore_errors=True)
    src = root / p.file
    lines = src.read_text().splitlines(keepends=True)
    old = lines[p.line - 1]
    assert old.strip() == p.fixed, old
    indent = old[: len(old) - len(old.lstrip())]
    lines[p.line - 1] = indent + p.broken + "\n"
    src.write_text("".join(lines))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base: broken")
    git(root, "checkout", "-q", "-b", "fix")
    lines[p.line - 1] = old
    src.write_text("".join(lines))
    git(root, "commit", "-q", "-am", "fix")
    git(root, "checkout", "-q", "main")
    return root


def truegreen_exam(p: Project, root: Path, python: str) -> str:
    from truegreen import api

    common = {"repo": root, "python": python, "sandbox": "none"}
    return api.seal(api.SealRequest(test_id=p.exam, runs=1, **common)).exam.id


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


def mutmut_copy(p: Project, root: Path, tmp: Path) -> Path:
    copy = tmp / f"{p.name}-mutmut"
    shutil.copytree(root, copy)
    git(copy, "checkout", "-q", "fix")
    name, text = p.mutmut_config
    with (copy / name).open("a") as f:
        f.write(text)
    return copy


def mutmut_run(p: Project, copy: Path, mutmut: str) -> tuple[dict[str, int], float]:
    shutil.rmtree(copy / "mutants", ignore_errors=True)
    start = time.perf_counter()
    out = subprocess.run([mutmut, "run", p.mutmut_glob], cwd=copy, capture_output=True, text=True)
    took = time.perf_counter() - start
    states = mutmut_states(p, copy, mutmut)
    if out.returncode not in (0, 1) and not states:
        raise SystemExit(f"mutmut failed: {out.stderr[-2000:]}")
    killed = sum(s == "killed" for s in states.values())
    return {"mutants": len(states), "killed": killed}, took


def mutmut_states(p: Project, copy: Path, mutmut: str) -> dict[str, str]:
    """mutmut's mutants of the function and their states (killed, survived, ...)."""
    results = subprocess.run(
        [mutmut, "results", "--all", "true"], cwd=copy, capture_output=True, text=True
    )
    prefix = p.mutmut_glob.removesuffix("*")
    states = {}
    for ln in results.stdout.splitlines():
        name, _, state = ln.strip().partition(": ")
        if name.startswith(prefix):
            states[name] = state.strip()
    return states


def mutmut_on_the_line(p: Project, copy: Path, mutmut: str) -> dict[str, int]:
    """Of mutmut's last run, the mutants that change the fix's line (``mutmut show``: its
    diff removes that line), and how many were killed: the kill rate on the same line."""
    states = mutmut_states(p, copy, mutmut)
    on_line = []
    for name in states:
        diff = subprocess.run(
            [mutmut, "show", name], cwd=copy, capture_output=True, text=True
        ).stdout
        if any(ln[1:].strip() == p.fixed for ln in diff.splitlines() if ln.startswith("-")):
            on_line.append(name)
    return {"mutants": len(on_line), "killed": sum(states[n] == "killed" for n in on_line)}


def bench_project(
    p: Project, tools: list[str], repeat: int, python: str, mutmut: str | None, tmp: Path
) -> dict[str, object]:
    counts: dict[str, dict[str, int]] = {}
    times: dict[str, list[float]] = {t: [] for t in tools}
    root = project(p, tmp)
    exam = truegreen_exam(p, root, python)
    copy = mutmut_copy(p, root, tmp) if mutmut else None
    for _ in range(repeat):
        for tool in tools:
            if tool.startswith("mutmut"):
                assert mutmut is not None and copy is not None
                c, t = mutmut_run(p, copy, mutmut)
            else:
                workers = 1 if "1 worker" in tool else 2
                c, t = truegreen_run(root, python, exam, workers, warm="warm" in tool)
            counts[tool] = c
            times[tool].append(t)
    print(f"{p.name}: {p.file}:{p.line} `{p.fixed}`, exam {p.exam}")
    print(f"  {'tool':58} {'mutants':>7} {'killed':>6} {'wall s (median)':>16} {'mutants/s':>9}")
    doc: dict[str, object] = {"sdist": p.sdist, "exam": p.exam, "line": f"{p.file}:{p.line}"}
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
        print(f"  {name:58} {c['mutants']:7} {c['killed']:6} {med:16.1f} {rate:9.3f}")
    doc["tools"] = tools_doc
    if mutmut and copy is not None:
        ours, theirs = tools[0], tools[-1]
        rounds = [
            (counts[ours]["mutants"] / a) / (counts[theirs]["mutants"] / b)
            for a, b in zip(times[ours], times[theirs], strict=True)
        ]
        doc["ratio_per_round"] = [round(x, 2) for x in rounds]
        doc["ratio_median"] = round(statistics.median(rounds), 2)
        # truegreen mutates the changed line only: all its mutants are on it
        line = mutmut_on_the_line(p, copy, mutmut)
        theirs_median = statistics.median(times[theirs])
        line_rate = line["mutants"] / theirs_median if line["mutants"] else 0.0
        line["rate"] = round(line_rate, 3)
        doc["mutmut_on_the_line"] = line
        if line_rate:
            doc["ratio_on_the_line"] = round(tools_doc[ours]["rate"] / line_rate, 2)
        print(
            f"  mutants/s, truegreen over mutmut, per round: {doc['ratio_per_round']} "
            f"(median {doc['ratio_median']}x; goal >= 3x)\n"
            f"  mutmut's mutants of the fixed line itself: {line['killed']} of "
            f"{line['mutants']} killed, {line_rate:.3f} per second of its run; truegreen "
            f"(which mutates that line only) over that: {doc.get('ratio_on_the_line')}x"
        )
    return doc


def main() -> int:
    args = sys.argv[1:]
    repeat = int(args[args.index("--repeat") + 1]) if "--repeat" in args else 5
    mutmut = args[args.index("--mutmut") + 1] if "--mutmut" in args else None
    out_path = Path(args[args.index("--out") + 1]) if "--out" in args else None
    chosen = [a for i, a in enumerate(args) if i and args[i - 1] == "--project"]
    projects = [p for p in PROJECTS if not chosen or p.name in chosen]
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
    result: dict[str, object] = {"repeat": repeat, "python": python, "cores": os.cpu_count()}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        os.environ.setdefault("TRUEGREEN_HOME", str(tmp / "home"))
        result["projects"] = {
            p.name: bench_project(p, tools, repeat, python, mutmut, tmp) for p in projects
        }
    end_load = os.getloadavg()
    result["load_start"] = [round(x, 2) for x in load]
    result["load_end"] = [round(x, 2) for x in end_load]
    print(
        f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, at the end: "
        f"{end_load[0]:.2f} {end_load[1]:.2f} {end_load[2]:.2f} ({os.cpu_count()} cores)"
    )
    text = json.dumps(result, sort_keys=True, indent=1)
    if out_path is not None:
        out_path.write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
