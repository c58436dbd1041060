"""What the Claude Code hook hands an agent after a failing pytest run, on real projects
with injected bugs, against what plain pytest hands it.

Not part of the unit test suite: it downloads sdists and takes minutes.

For each project (an sdist from the package index that ships its tests; pure Python, no
dependencies, flat layout, so ``python -m pytest`` from its root runs its suite in
truegreen's own interpreter):

1. ``pip download --no-deps --no-binary :all: NAME==VERSION`` into ``bench/.cache/agents``,
   unpacked and committed as a git repository;
2. bugs are injected, one at a time: small mutations of one source line (a comparison
   moved by one, an operator swapped, a boolean flipped, a constant nudged), drawn in a
   fixed random order (seed 36) from the project's source lines; a mutant counts as a
   bug when the project's test file for its module (else the whole suite) fails with it;
3. for each bug:
   * **plain pytest**: ``python -m pytest`` (default flags) of the whole suite: the bytes
     of its output, plus the bytes of the project files the first failure's traceback
     names (the files an agent would open to understand it); whether that output names
     the faulty line (``FILE:LINE`` in a traceback);
   * **truegreen**: the hook (``python -m truegreen.claude.hook``, as Claude Code runs it,
     with its default deadline) fed the PostToolUseFailure payload of that run: its wall
     time, whether it said nothing because its deadline passed (``hook_out_of_time``; a
     silent hook names no line), the bytes of the context it injects, whether the faulty
     line is among the first three suspects it names (or is its crash site), whether it
     names it at all;
   * the wall time of ``python -m pytest`` of the failing test's file alone (the hook's
     goal is for suites whose failing file runs in under 5 s).

The faulty line is the mutated line, or the first line of the statement holding it (the
ranking is per statement). Goals (issue #36): context <= 25% of the raw bytes, faulty line
in the top 3 in >= 60% of bugs, hook p95 <= 10 s where the failing file runs < 5 s.

    python bench/bench_agents.py [--bugs-per-project N] [--out bench/results/agents.json]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _projects import sdist_repo

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache" / "agents"
PYTHON = sys.executable
SEED = 36


@dataclass(frozen=True)
class Project:
    name: str
    version: str
    package: str
    tests: str
    #: the test file for a module: ``{stem}`` its name, ``{dir}`` its directory below the
    #: package (None: run the whole suite)
    test_file: str | None = "tests/test_{stem}.py"
    #: source files not mutated (compat shims, generated tables)
    skip: tuple[str, ...] = ()
    #: lines added to the pytest.ini the bench writes (a project with no pytest settings)
    ini: str = ""


PROJECTS = (
    Project("boltons", "26.2.0", "boltons", "tests", skip=("boltons/deprutils.py",)),
    Project("pyasn1", "0.6.5", "pyasn1", "tests", test_file="tests/{dir}/test_{stem}.py"),
    # its tests of duckdb and pytz need those packages: without them pytest stops at
    # collection, so they are left out as a project would where they are missing
    Project("sqlglot", "30.31.0", "sqlglot", "tests", test_file="tests/{dir}/test_{stem}.py",
            skip=("sqlglot/_version.py", "sqlglot/__main__.py"),
            ini="addopts = --ignore=tests/dialects/test_bigquery.py "
                "--ignore=tests/test_executor.py --ignore=tests/test_optimizer.py\n"),
    Project("markdown", "3.11.4", "markdown", "tests", test_file=None,
            skip=("markdown/__meta__.py", "markdown/htmlparser.py")),
    Project("toolz", "1.2.0", "toolz", "toolz/tests", test_file="toolz/tests/test_{stem}.py",
            skip=("toolz/_version.py", "toolz/compatibility.py", "toolz/_signatures.py")),
    Project("jmespath", "1.1.0", "jmespath", "tests", test_file=None),
    Project("idna", "3.21", "idna", "tests", test_file=None,
            skip=("idna/idnadata.py", "idna/uts46data.py", "idna/package_data.py")),
    Project("sqlparse", "0.6.1", "sqlparse", "tests", test_file=None),
    Project("pyflakes", "4.1.0", "pyflakes", "pyflakes/test", test_file=None,
            skip=("pyflakes/__main__.py", "pyflakes/scripts/pyflakes.py")),
)  # fmt: skip

#: one-line mutations: (pattern, replacement), tried in this order on a line
MUTATIONS = (
    (r" <= ", " < "),
    (r" >= ", " > "),
    (r" < ", " <= "),
    (r" > ", " >= "),
    (r" == ", " != "),
    (r" != ", " == "),
    (r" \+ 1\b", " + 2"),
    (r" - 1\b", " - 2"),
    (r"\bTrue\b", "False"),
    (r"\bFalse\b", "True"),
    (r" and ", " or "),
    (r" or ", " and "),
    (r"\[0\]", "[1]"),
    (r"\[-1\]", "[0]"),
)
TRACE_LINE = re.compile(r"^(?P<file>[^\s:]+\.py):(?P<line>\d+): ", re.M)
SUSPECT = re.compile(r"^suspect rank \d+[^:]*: (?P<file>\S+?):(?P<line>\d+) ", re.M)
CRASH = re.compile(r"^crash site: (?P<file>\S+?):(?P<line>\d+) ", re.M)
FAILED = re.compile(r"^FAILED (\S+)", re.M)
ERROR = re.compile(r"^ERROR (\S+)", re.M)


def run(
    argv: list[str], cwd: Path, timeout: float = 300, **kw: Any
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          check=False, **kw)  # fmt: skip


def fetch(project: Project) -> Path:
    """The project's sdist, unpacked, as a clean git repository (made once)."""
    root = CACHE / f"{project.name}-{project.version}"
    if (root / ".git").is_dir():
        run(["git", "checkout", "-q", "--", "."], root)
        run(["git", "clean", "-qfdx", "-e", ".pytest_cache"], root)
        return root
    sdist_repo(project.name, project.version, CACHE, root, project.ini)
    return root


def _header_end(node: ast.stmt) -> int:
    """The last line of a compound statement's header: ``if (a and\n b):`` spans two, a
    ``def`` its parameters' lines, a ``try:`` one."""
    parts: list[ast.AST] = []
    if isinstance(node, (ast.If, ast.While)):
        parts = [node.test]
    elif isinstance(node, (ast.For, ast.AsyncFor)):
        parts = [node.target, node.iter]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        parts = list(node.items)
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        parts = [node.args, *([node.returns] if node.returns else [])]
    elif isinstance(node, ast.ClassDef):
        parts = [*node.bases, *node.keywords]
    ends = [getattr(n, "end_lineno", None) or 0 for p in parts for n in ast.walk(p)]
    return max([node.lineno, *ends])


def statement_start(tree: ast.Module, line: int) -> int:
    headers = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For,
               ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)  # fmt: skip
    best = None
    for node in ast.walk(tree):
        holds = isinstance(node, ast.stmt) and node.lineno <= line <= (
            node.end_lineno or node.lineno
        )
        # a compound statement holds the line only in its header (which may span lines)
        if (
            holds
            and (not isinstance(node, headers) or line <= _header_end(node))
            and (best is None or node.lineno >= best.lineno)
        ):
            best = node
    return best.lineno if best is not None else line


def code_lines(text: str) -> set[int]:
    """Lines holding code (not docstrings, comments or blank)."""
    tree = ast.parse(text)
    docs: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(
            getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str):  # fmt: skip
            docs.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            out.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    lines = text.splitlines()
    return {
        n for n in out - docs if lines[n - 1].strip() and not lines[n - 1].strip().startswith("#")
    }


def candidates(root: Project, where: Path) -> list[tuple[str, int, str, str]]:
    """Every (file, line, old line, new line) one mutation of a code line gives."""
    out = []
    for path in sorted((where / root.package).rglob("*.py")):
        rel = path.relative_to(where).as_posix()
        if rel in root.skip or "/tests/" in f"/{rel}" or path.name.startswith("test_"):
            continue
        text = path.read_text(encoding="utf-8")
        try:
            code = code_lines(text)
        except SyntaxError:
            continue
        for n, old in enumerate(text.splitlines(), 1):
            if n not in code or old.lstrip().startswith(
                ("def ", "class ", "@", "import ", "from ")
            ):
                continue
            for pattern, repl in MUTATIONS:
                new = re.sub(pattern, repl, old, count=1)
                if new != old:
                    out.append((rel, n, old, new))
                    break
    return out


def apply(root: Path, rel: str, line: int, new: str) -> bool:
    path = root / rel
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    end = "\n" if lines[line - 1].endswith("\n") else ""
    lines[line - 1] = new + end
    text = "".join(lines)
    try:
        compile(text, rel, "exec")
    except SyntaxError:
        return False
    path.write_text(text, encoding="utf-8")
    return True


def revert(root: Path) -> None:
    run(["git", "checkout", "-q", "--", "."], root)


def pytest(
    root: Path, *args: str, timeout: float = 300
) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = run([PYTHON, "-m", "pytest", *args], root, timeout=timeout,
               env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})  # fmt: skip
    return done, time.monotonic() - started


def find_bugs(project: Project, root: Path, want: int) -> list[dict[str, Any]]:
    rng = random.Random(f"{SEED}:{project.name}")
    pool = candidates(project, root)
    rng.shuffle(pool)
    bugs: list[dict[str, Any]] = []
    baseline: dict[str, set[str]] = {}  # what already fails unmutated (a broken sdist's test)
    for rel, line, old, new in pool[: want * 8]:
        if len(bugs) >= want:
            break
        module = Path(rel)
        where = module.parent.relative_to(project.package).as_posix().strip(".")
        target = (
            project.test_file.format(stem=module.stem, dir=where).replace("//", "/")
            if project.test_file
            else project.tests
        )
        if not (root / target).exists():
            continue
        if target not in baseline:
            clean, _ = pytest(root, "-q", "-p", "no:cacheprovider", target, timeout=300)
            baseline[target] = set(FAILED.findall(clean.stdout)) | set(ERROR.findall(clean.stdout))
        if not apply(root, rel, line, new):
            continue
        stop = () if baseline[target] else ("-x",)
        try:
            done, _ = pytest(root, "-q", *stop, "-p", "no:cacheprovider", target, timeout=120)
        except subprocess.TimeoutExpired:
            done = None
        revert(root)
        if done is not None and set(FAILED.findall(done.stdout)) - baseline[target]:
            tree = ast.parse((root / rel).read_text(encoding="utf-8"))
            bugs.append({"project": project.name, "file": rel, "line": line,
                         "statement": statement_start(tree, line), "old": old.strip(),
                         "new": new.strip()})  # fmt: skip
    return bugs


def first_failure_files(root: Path, output: str) -> list[str]:
    """The project files the first failure's traceback names (what an agent would open)."""
    section = output.split("= FAILURES =", 1)[-1]
    parts = re.split(r"^_{3,} .* _{3,}$", section, flags=re.M)
    first = parts[1] if len(parts) > 1 else section
    files = []
    for m in TRACE_LINE.finditer(first):
        rel = m.group("file")
        if (root / rel).is_file() and rel not in files:
            files.append(rel)
    return files


def measure(project: Project, root: Path, bug: dict[str, Any], n: int) -> dict[str, Any] | None:
    """The bug's row; None when its suite or its failing file takes too long to measure
    (over 300 s, over 60 s)."""
    assert apply(root, bug["file"], bug["line"], _indent(root, bug) + bug["new"])
    try:
        try:
            raw, _ = pytest(root, "-p", "no:cacheprovider")
        except subprocess.TimeoutExpired:
            return None
        output = raw.stdout + raw.stderr
        failing = FAILED.findall(raw.stdout)
        opened = first_failure_files(root, output)
        opened_bytes = sum((root / f).stat().st_size for f in opened)
        faulty = {(bug["file"], bug["line"]), (bug["file"], bug["statement"])}
        raw_names = any((m.group("file"), int(m.group("line"))) in faulty
                        for m in TRACE_LINE.finditer(output))  # fmt: skip
        file_time = None
        if failing:
            _, file_time = pytest(root, "-q", "-p", "no:cacheprovider", failing[0].split("::")[0])
        if file_time is not None and file_time > 60:
            # idna's mutants made one file run 75-85 s: no agent reruns that per failure
            # (and the raw run took minutes): left out, and said so
            return None
        payload = {
            "session_id": f"bench-{project.name}-{n}-{time.time_ns()}",
            "transcript_path": "/dev/null", "cwd": str(root), "permission_mode": "default",
            "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
            "tool_input": {"command": "python -m pytest"}, "tool_use_id": f"toolu_bench{n}",
            "error": f"Error: Exit code {raw.returncode}\n{output}", "is_interrupt": False,
        }  # fmt: skip
        started = time.monotonic()
        # as Claude Code runs it: its default deadline (past it, the hook says nothing,
        # which counts here as naming nothing)
        env = {k: v for k, v in os.environ.items() if k != "TRUEGREEN_HOOK_DEADLINE"}
        hooked = run([PYTHON, "-m", "truegreen.claude.hook"], root, timeout=120,
                     input=json.dumps(payload), env=env)  # fmt: skip
        hook_wall = time.monotonic() - started
        context = ""
        if hooked.stdout.strip():
            context = json.loads(hooked.stdout)["hookSpecificOutput"]["additionalContext"]
        suspects = [(m.group("file"), int(m.group("line"))) for m in SUSPECT.finditer(context)]
        crash = [(m.group("file"), int(m.group("line"))) for m in CRASH.finditer(context)]
        top3 = any(s in faulty for s in suspects[:3]) or any(c in faulty for c in crash)
        named = top3 or any(s in faulty for s in suspects)
        raw_bytes = len(output.encode()) + opened_bytes
        ctx_bytes = len(context.encode())
        return {
            **bug, "failing": failing[:5], "failing_count": len(failing),
            "raw_output_bytes": len(output.encode()), "opened_files": opened,
            "opened_bytes": opened_bytes, "raw_bytes": raw_bytes, "raw_names_faulty_line": raw_names,
            "context_bytes": ctx_bytes, "context_ratio": round(ctx_bytes / raw_bytes, 4) if raw_bytes else None,
            "hook_silent": not context, "hook_wall_s": round(hook_wall, 3),
            "hook_out_of_time": "no answer within" in hooked.stderr,
            "hook_within_10s": hook_wall <= 10.0,
            "failing_file_s": round(file_time, 3) if file_time is not None else None,
            "top3": top3, "context_names_faulty_line": named, "suspects": suspects[:5],
            "hook_stderr": hooked.stderr[-300:],
        }  # fmt: skip
    finally:
        revert(root)


def _indent(root: Path, bug: dict[str, Any]) -> str:
    line = (root / bug["file"]).read_text(encoding="utf-8").splitlines()[bug["line"] - 1]
    return line[: len(line) - len(line.lstrip())]


def p95(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered) + 0.999) - 1)]


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    got = [r for r in rows if r["failing_count"]]
    ratios = [r["context_ratio"] for r in got if r["context_ratio"] is not None]
    quick = [r["hook_wall_s"] for r in got if (r["failing_file_s"] or 0) < 5]
    over = [round(r["hook_wall_s"] / r["failing_file_s"], 2) for r in got if r["failing_file_s"]]
    return {
        "bugs": len(got),
        "projects": sorted({r["project"] for r in got}),
        "plain_pytest": {
            "median_bytes": statistics.median(r["raw_bytes"] for r in got) if got else None,
            "names_faulty_line": sum(r["raw_names_faulty_line"] for r in got),
            "median_failing_file_s": statistics.median(
                r["failing_file_s"] for r in got if r["failing_file_s"] is not None
            )
            if got
            else None,
        },
        "truegreen": {
            "median_context_bytes": statistics.median(r["context_bytes"] for r in got)
            if got
            else None,
            "median_context_ratio": statistics.median(ratios) if ratios else None,
            "max_context_ratio": max(ratios) if ratios else None,
            "within_25pct": sum(x <= 0.25 for x in ratios),
            "top3": sum(r["top3"] for r in got),
            "top3_rate": round(sum(r["top3"] for r in got) / len(got), 3) if got else None,
            "names_faulty_line": sum(r["context_names_faulty_line"] for r in got),
            "silent": sum(r["hook_silent"] for r in got),
            "silent_out_of_time": sum(bool(r.get("hook_out_of_time")) for r in got),
            "hook_p50_s": statistics.median(quick) if quick else None,
            "hook_p95_s": p95(quick),
            "hook_max_s": max(quick) if quick else None,
            "hook_bugs_failing_file_under_5s": len(quick),
            "hook_over_10s": sum(not r["hook_within_10s"] for r in got),
            # the hook's wall time over a bare pytest of the failing file (both taken on
            # the same loaded machine, minutes apart): what load does not change much
            "hook_over_failing_file_median": statistics.median(over) if over else None,
            "hook_over_failing_file_p95": p95(over),
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bugs-per-project", type=int, default=4)
    parser.add_argument("--projects", default=",".join(p.name for p in PROJECTS))
    parser.add_argument("--out", type=Path, default=HERE / "results" / "agents.json")
    parser.add_argument(
        "--append", action="store_true",
        help="keep the bugs --out holds of projects not run now, and summarise them all",
    )  # fmt: skip
    parser.add_argument(
        "--summary-only", action="store_true", help="recompute the summary of --out, run nothing"
    )
    args = parser.parse_args(argv)
    if args.summary_only:
        done = json.loads(args.out.read_text(encoding="utf-8"))
        done["summary"] = summary(done["bugs"])
        args.out.write_text(json.dumps(done, indent=2) + "\n", encoding="utf-8")
        print(json.dumps(done["summary"], indent=2))
        return 0
    os.environ.setdefault("TRUEGREEN_HOME", str(CACHE / "home"))
    wanted = set(args.projects.split(","))
    load_before = os.getloadavg()
    rows: list[dict[str, Any]] = []
    projects: dict[str, Any] = {}
    old = (
        json.loads(args.out.read_text(encoding="utf-8"))
        if args.append and args.out.exists()
        else None
    )
    result = _write(args, load_before, rows, projects, old)
    for project in PROJECTS:
        if project.name not in wanted:
            continue
        root = fetch(project)
        files = len(list(root.rglob("*.py")))
        bugs = find_bugs(project, root, args.bugs_per_project)
        projects[project.name] = {"version": project.version, "py_files": files, "bugs": len(bugs)}
        print(f"{project.name}: {files} .py files, {len(bugs)} bug(s)", file=sys.stderr)
        for n, bug in enumerate(bugs):
            row = measure(project, root, bug, n)
            if row is None:
                print(f"  {bug['file']}:{bug['line']}: too slow to measure, left out",
                      file=sys.stderr)  # fmt: skip
                projects[project.name]["too_slow"] = projects[project.name].get("too_slow", 0) + 1
                continue
            rows.append(row)
            print(
                f"  {bug['file']}:{bug['line']} {bug['old']!r} -> {bug['new']!r}: "
                f"raw {row['raw_bytes']} B, context {row['context_bytes']} B, "
                f"top3 {row['top3']}, hook {row['hook_wall_s']} s, file {row['failing_file_s']} s",
                file=sys.stderr,
            )
        # written after each project: a run cut short keeps what it measured
        result = _write(args, load_before, rows, projects, old)
    print(json.dumps(result["summary"], indent=2))
    return 0


def _write(
    args: argparse.Namespace,
    load_before: tuple[float, float, float],
    rows: list[dict[str, Any]],
    projects: dict[str, Any],
    old: dict[str, Any] | None,
) -> dict[str, Any]:
    runs = [{"projects": sorted(projects), "load_before": [round(x, 2) for x in load_before],
             "load_after": [round(x, 2) for x in os.getloadavg()]}]  # fmt: skip
    if old is not None:
        rows = [r for r in old["bugs"] if r["project"] not in projects] + rows
        projects = {**{k: v for k, v in old["projects"].items() if k not in projects}, **projects}
        runs = old.get("runs", []) + runs
    result = {
        "benchmark": "agents",
        "runs": runs,
        "python": sys.version.split()[0],
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "cores": os.cpu_count(),
        "projects": projects,
        "summary": summary(rows),
        "bugs": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


if __name__ == "__main__":
    shutil.which("git") or sys.exit("git is needed")
    raise SystemExit(main())
