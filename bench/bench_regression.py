"""Regression selection on injected regressions in real projects' own suites (issue #38),
side by side with the full suite and pytest-testmon.

Not part of the unit test suite: it downloads sdists, makes venvs and takes a long time.

For each project (an sdist from the package index that ships its tests, 500+ of them,
pure Python, flat layout, its suite passing at the sdist in a venv of its own):

1. ``pip download --no-deps --no-binary :all: NAME==VERSION`` into ``bench/.cache/regression``,
   unpacked and committed as a git repository (branch ``main``: the base); a venv per
   project (``bench/.cache/regression/venvs/NAME``) with pytest, pytest-testmon and the
   project's test dependencies (the project itself runs from its checkout);
2. regressions are injected: one-line mutations of a line inside a function body (a
   comparison, an arithmetic operator, an integer constant, a boolean, a removed
   statement), drawn in a fixed random order (seed 38) from the project's source lines,
   each committed on a branch ``reg/NN`` from the base; one is kept only when the bare
   full suite (``python -m pytest``) on it fails a test that passed at the base (timed:
   the bare full suite's wall time);
3. a few changes that must fall back to the full suite: a module-level constant, a data
   file in the package, the suite's conftest.py, the pytest configuration (branches
   ``fallback/KIND``);
4. for each change:
   * **truegreen, full**: ``api.verify`` (no exams, ``strength=False``, ``runs=1``,
     ``sandbox="none"``, ``regression="full"``): caught when ``regression.new_failures``
     is not empty; wall time;
   * **truegreen, selected**: the same with ``regression="selected"``; for the first
     ``--first`` regressions of a project the base's coverage record is removed first, so
     that run records it (``first``) and the run after it reuses it (``second``); the
     others reuse it. Caught, wall time, and the selection's mode, reason and size;
   * **pytest-testmon**: its database recorded once at the base (``pytest --testmon``, in
     a copy of the repository; timed), then for each change a fresh copy of that recorded
     copy gets the head's files and runs ``pytest --testmon``: caught when a test that
     passed at the base fails; wall time; how many tests it ran.

5. three changes per project that break nothing (``_regbench = None`` added after a
   statement inside a function body, branches ``clean/NN``): verify selected and full,
   timed: the common case, where no new failure is rerun on both sides.

Each project's verifications use a TRUEGREEN_HOME of their own (``$TRUEGREEN_HOME/NAME``,
default ``bench/.cache/regression/home/NAME``), so removing one base's record leaves the
others'.

Goals (issue #38): caught by the selection == caught by the full suite on every
regression; verify selected (second) / verify full <= 0.3 (median over the regressions);
verify selected first (records) / verify full <= 1.3.

    python bench/bench_regression.py [--projects a,b] [--regressions 22] [--first 3]
        [--full-every 1] [--out bench/results/regression.json]

How the committed result was made (the finding stage and the verifications of one project
can run while another project is being found): ``--find-only`` per project, then
``--reuse-found`` per project (each saves ``bench/.cache/regression/NAME-result.json``),
``--clean-only`` for projects measured before the clean changes existed, and ``--assemble``
to join them into ``--out`` and print the table.

``--full-every K`` times truegreen's full verification on every K-th regression only (the
ratios use the regressions both were timed on); the bare suite and testmon always run.
The injected regressions, their bare-suite results and testmon's are cached per project
(``found.json``) and reused by the next run with ``--reuse-found`` (their timings then are
those of the run that found them, which the result says).
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import keyword
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _projects import sdist_repo

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache" / "regression"
PYTHON = sys.executable
SEED = 38
#: module-level constants tried for the fallback case (the first the suite catches is kept)
CONSTANT_TRIES = 6
#: data files tried for the data-file case
DATA_TRIES = 6
GIT_ID = ["-c", "user.name=bench", "-c", "user.email=bench@localhost"]


@dataclass(frozen=True)
class Project:
    name: str
    version: str
    package: str
    #: the suite's conftest.py (written when the sdist has none)
    conftest: str
    #: pip requirements of the project's venv besides pytest-testmon
    requires: tuple[str, ...] = ("pytest",)
    #: source files not mutated (compat shims, generated tables)
    skip: tuple[str, ...] = ()


PROJECTS = (
    Project("boltons", "26.2.0", "boltons", "tests/conftest.py", skip=("boltons/deprutils.py",)),
    Project("pyflakes", "4.1.0", "pyflakes", "pyflakes/test/conftest.py",
            skip=("pyflakes/__main__.py", "pyflakes/scripts/pyflakes.py")),
    Project("sqlparse", "0.6.1", "sqlparse", "tests/conftest.py"),
    Project("tomlkit", "0.15.2", "tomlkit", "tests/conftest.py"),
    # (markdown 3.11.4 was tried: its tests load its extensions through entry points, so it
    # must be installed, and its installed copy is not the checkout the suite should test)
    Project("pyasn1", "0.6.5", "pyasn1", "tests/conftest.py"),
)  # fmt: skip
#: projects with a longer suite, run only when named (``--projects more-itertools``): the
#: five above run theirs in 3-12 s, where a verification's fixed costs weigh most
LONGER = (
    # 765 tests and 21,000 subtests: 33 s bare on a quiet 2-core machine
    Project("more-itertools", "11.2.1", "more_itertools", "tests/conftest.py"),
)

#: token replacements: (kind, token string, replacement)
OPS = {
    "<": ("comparison", "<="),
    "<=": ("comparison", "<"),
    ">": ("comparison", ">="),
    ">=": ("comparison", ">"),
    "==": ("comparison", "!="),
    "!=": ("comparison", "=="),
    "+": ("operator", "-"),
    "-": ("operator", "+"),
    "*": ("operator", "//"),
    "//": ("operator", "*"),
    "%": ("operator", "//"),
    "+=": ("operator", "-="),
    "-=": ("operator", "+="),
}
NAMES = {
    "True": ("boolean", "False"),
    "False": ("boolean", "True"),
    "and": ("boolean", "or"),
    "or": ("boolean", "and"),
    "not": ("boolean", ""),
    "is": ("comparison", "is not"),
}
FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+::\S+)", re.M)
COUNTS = re.compile(r"(\d+) (passed|failed|errors?|skipped|deselected|xfailed|xpassed)")


def run(
    argv: list[str], cwd: Path, timeout: float = 600, **kw: Any
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          check=False, **kw)  # fmt: skip


def git(cwd: Path, *args: str) -> str:
    done = run(["git", *GIT_ID, *args], cwd)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} in {cwd}: {done.stderr.strip()}")
    return done.stdout


# -- the projects -------------------------------------------------------------------------


def fetch(project: Project) -> Path:
    """The project's sdist, unpacked, as a git repository whose ``main`` is the sdist."""
    root = CACHE / f"{project.name}-{project.version}"
    if (root / ".git").is_dir():
        git(root, "checkout", "-qf", "main")
        git(root, "clean", "-qfdx")
        return root
    sdist_repo(project.name, project.version, CACHE, root)
    return root


def venv(project: Project) -> str:
    """The project's venv (made once): its interpreter."""
    where = CACHE / "venvs" / project.name
    python = where / "bin" / "python"
    if not (where / ".ready").exists():
        shutil.rmtree(where, ignore_errors=True)
        done = run([sys.executable, "-m", "venv", str(where)], CACHE)
        if done.returncode != 0:
            raise SystemExit(f"venv for {project.name}: {done.stderr[-500:]}")
        done = run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    *project.requires, "pytest-testmon"], CACHE, timeout=900)  # fmt: skip
        if done.returncode != 0:
            raise SystemExit(f"pip install into {where}: {done.stderr[-1000:]}")
        (where / ".ready").write_text("")
    return str(python)


# -- the injected regressions ----------------------------------------------------------


def function_lines(tree: ast.Module) -> set[int]:
    """Lines of statements inside function bodies (not their docstrings)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        body = node.body
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body = body[1:]
        for stmt in body:
            for sub in ast.walk(stmt):
                if isinstance(sub, ast.stmt) and not isinstance(
                    sub, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                ):
                    out.add(sub.lineno)
                    out.update(range(sub.lineno, (sub.end_lineno or sub.lineno) + 1))
    return out


def removable(tree: ast.Module) -> set[int]:
    """One-line simple statements inside function bodies that ``pass`` can replace."""
    inside = function_lines(tree)
    return {
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr | ast.Assign | ast.AugAssign | ast.Return)
        and node.lineno == node.end_lineno
        and node.lineno in inside
        and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
    }


def mutations(text: str) -> list[tuple[int, str, str, str]]:
    """Every (line, kind, old line, new line) one token (or the statement) changed gives,
    on lines inside function bodies."""
    tree = ast.parse(text)
    inside = function_lines(tree)
    lines = text.splitlines()
    out: list[tuple[int, str, str, str]] = []
    toks = list(tokenize.generate_tokens(io.StringIO(text).readline))
    for i, tok in enumerate(toks):
        row, col = tok.start
        if row not in inside or tok.start[0] != tok.end[0]:
            continue
        prev = toks[i - 1] if i else None
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        old = lines[row - 1]
        new = None
        kind = ""
        if tok.type == tokenize.OP and tok.string in OPS:
            kind, repl = OPS[tok.string]
            binary = prev is not None and (
                prev.type in (tokenize.NUMBER, tokenize.STRING)
                or prev.string in (")", "]", "}", "True", "False", "None")
                or (prev.type == tokenize.NAME and not keyword.iskeyword(prev.string))
            )
            if kind == "operator" and tok.string in ("+", "-", "*", "//", "%") and not binary:
                continue
            new = old[:col] + repl + old[tok.end[1] :]
        elif tok.type == tokenize.NAME and tok.string in NAMES:
            kind, repl = NAMES[tok.string]
            if tok.string == "not":
                if prev is not None and prev.string == "is":
                    continue  # ``is not`` is mutated as ``is``
                if nxt is None or nxt.start[0] != row:
                    continue
                new = old[:col] + old[nxt.start[1] :]
            elif tok.string == "is":
                if nxt is not None and nxt.string == "not":
                    new = old[:col] + "is" + old[nxt.end[1] :]
                else:
                    new = old[:col] + repl + old[tok.end[1] :]
            else:
                new = old[:col] + repl + old[tok.end[1] :]
        elif tok.type == tokenize.NUMBER and re.fullmatch(r"\d+", tok.string):
            kind = "constant"
            new = old[:col] + str(int(tok.string) + 1) + old[tok.end[1] :]
        if new is not None and new != old:
            out.append((row, kind, old, new))
    for row in sorted(removable(tree)):
        old = lines[row - 1]
        out.append((row, "removed statement", old, old[: len(old) - len(old.lstrip())] + "pass"))
    return out


def candidates(project: Project, root: Path) -> list[dict[str, Any]]:
    """Every one-line mutation of the package's source, in the benchmark's fixed order,
    at most one per line."""
    pool = []
    for path in sorted((root / project.package).rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        parts = rel.split("/")
        if rel in project.skip or any(p in ("test", "tests") for p in parts[:-1]):
            continue
        if path.name.startswith("test_") or path.name == "conftest.py":
            continue
        try:
            found = mutations(path.read_text(encoding="utf-8"))
        except (SyntaxError, tokenize.TokenError):
            continue
        for line, kind, old, new in found:
            pool.append({"file": rel, "line": line, "kind": kind, "old": old, "new": new})
    rng = random.Random(f"{SEED}:{project.name}")
    rng.shuffle(pool)
    seen: set[tuple[str, int]] = set()
    out = []
    for c in pool:
        if (c["file"], c["line"]) not in seen:
            seen.add((c["file"], c["line"]))
            out.append(c)
    return out


def commit_change(root: Path, branch: str, files: dict[str, str | None], message: str) -> bool:
    """A branch from main with ``files`` written (None: deleted); False when a Python file
    would not compile."""
    for rel, text in files.items():
        if text is not None and rel.endswith(".py"):
            try:
                compile(text, rel, "exec")
            except SyntaxError:
                return False
    git(root, "checkout", "-qf", "-B", branch, "main")
    for rel, text in files.items():
        if text is None:
            (root / rel).unlink()
        else:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)
    git(root, "checkout", "-qf", "main")
    return True


def with_line(root: Path, rel: str, line: int, new: str) -> str:
    lines = (root / rel).read_text(encoding="utf-8").splitlines(keepends=True)
    end = "\n" if lines[line - 1].endswith("\n") else ""
    lines[line - 1] = new + end
    return "".join(lines)


# -- running the suites ------------------------------------------------------------------


def pytest_run(
    python: str, cwd: Path, *args: str, timeout: float, cache: bool = False
) -> dict[str, Any]:
    """``python -m pytest`` in ``cwd`` (its cache provider off unless ``cache``: testmon
    needs it): wall time, failing node ids, the summary counts (``timed_out`` when it
    passed ``timeout``)."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTEST_ADDOPTS", None)
    started = time.perf_counter()
    try:
        off = [] if cache else ["-p", "no:cacheprovider"]
        done = run([python, "-m", "pytest", *off, "-q", *args], cwd, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"timed_out": True, "wall": round(time.perf_counter() - started, 3)}
    wall = time.perf_counter() - started
    tail = done.stdout.strip().splitlines()[-1:] or [""]
    counts = {k.rstrip("s") if k.startswith("error") else k: int(n)
              for n, k in COUNTS.findall(tail[0])}  # fmt: skip
    return {
        "timed_out": False,
        "wall": round(wall, 3),
        "exit": done.returncode,
        "failing": sorted(set(FAILED.findall(done.stdout))),
        "counts": counts,
        "tail": tail[0][-200:],
    }


def head_files(root: Path, branch: str) -> dict[str, str | None]:
    """The files ``branch`` changes against main, with their content on it (None: gone)."""
    out: dict[str, str | None] = {}
    for row in git(root, "diff", "--name-status", "--no-renames", "main", branch).splitlines():
        status, rel = row.split("\t", 1)
        out[rel] = None if status == "D" else git(root, "show", f"{branch}:{rel}")
    return out


class Testmon:
    """pytest-testmon's database recorded at the base in a copy of the repository; each
    change runs in a fresh copy of that one with the head's files written."""

    def __init__(
        self, project: Project, root: Path, python: str, timeout: float, fresh: bool = True
    ) -> None:
        """``fresh``: record the base now (else use the copy recorded before)."""
        self.python, self.timeout, self.root = python, timeout, root
        self.base = CACHE / f"{project.name}-testmon-base"
        self.work = CACHE / f"{project.name}-testmon-run"
        self.record: dict[str, Any] = {}
        if fresh or not (self.base / ".testmondata").exists():
            shutil.rmtree(self.base, ignore_errors=True)
            shutil.copytree(root, self.base, ignore=shutil.ignore_patterns(".git"))
            self.record = pytest_run(python, self.base, "--testmon", timeout=timeout, cache=True)

    def check(self, branch: str) -> dict[str, Any]:
        shutil.rmtree(self.work, ignore_errors=True)
        shutil.copytree(self.base, self.work)
        for rel, text in head_files(self.root, branch).items():
            if text is None:
                (self.work / rel).unlink()
            else:
                (self.work / rel).parent.mkdir(parents=True, exist_ok=True)
                (self.work / rel).write_text(text, encoding="utf-8")
        got = pytest_run(self.python, self.work, "--testmon", timeout=self.timeout, cache=True)
        shutil.rmtree(self.work, ignore_errors=True)
        return got


# -- truegreen -------------------------------------------------------------------------------


def verify(root: Path, python: str, branch: str, mode: str, db: str) -> dict[str, Any]:
    """``api.verify`` of main -> branch with no exams: wall time, caught, the selection."""
    from truegreen import api

    common: dict[str, Any] = dict(repo=root, python=python, base="main", head=branch,
                                  without_exams=True, exams=(), strength=False, runs=1,
                                  sandbox="none", db=db)  # fmt: skip
    try:
        request = api.VerifyRequest(**common, regression=mode)
    except Exception as e:  # this truegreen has no selection yet
        if mode != "full":
            return {"available": False, "why": str(e).splitlines()[0][:200]}
        request = api.VerifyRequest(**common)
    timeline: list[tuple[float, str, str, str]] = []
    started = time.perf_counter()

    def listen(event: Any) -> None:  # where the time goes: the layers' starts, notes, ends
        if event.phase != "step":
            at = round(time.perf_counter() - started, 2)
            timeline.append((at, event.layer, event.phase, (event.message or "")[:120]))

    doc = api.verify(request, record=False, listener=listen).to_json()
    wall = time.perf_counter() - started
    reg = doc.get("regression") or {}
    return {
        "available": True,
        "wall": round(wall, 3),
        "complete": reg.get("complete"),
        "caught": bool(reg.get("new_failures")),
        "new_failures": sorted(reg.get("new_failures") or []),
        "flaky": sorted(reg.get("flaky") or []),
        "selection": reg.get("selection"),
        "detail": reg.get("detail"),
        "timeline": timeline,
    }


def clear_record() -> None:
    """Remove the project's base records (each project has a TRUEGREEN_HOME of its own)."""
    shutil.rmtree(Path(os.environ["TRUEGREEN_HOME"]) / "cache" / "regression", ignore_errors=True)


# -- the benchmark -----------------------------------------------------------------------


def find(
    project: Project, root: Path, python: str, want: int, tries: int, base: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Up to ``want`` regressions the bare full suite catches, each on its branch."""
    timeout = max(60.0, 10 * base["wall"])
    failing_at_base = set(base["failing"])
    head = CACHE / f"{project.name}-head"
    found: list[dict[str, Any]] = []
    tally = {"tried": 0, "not_caught": 0, "timed_out": 0, "not_compiling": 0}
    for c in candidates(project, root)[:tries]:
        if len(found) >= want:
            break
        branch = f"reg/{len(found):02d}"
        text = with_line(root, c["file"], c["line"], c["new"])
        tally["tried"] += 1
        if not commit_change(root, branch, {c["file"]: text}, f"{c['kind']}: {c['file']}"):
            tally["not_compiling"] += 1
            continue
        bare = bare_run(root, head, branch, python, timeout)
        new = sorted(set(bare.get("failing", [])) - failing_at_base)
        if bare["timed_out"] or not new:
            tally["timed_out" if bare["timed_out"] else "not_caught"] += 1
            git(root, "branch", "-qD", branch)
            continue
        row = {"id": f"{project.name}/{branch}", "branch": branch, **c,
               "old": c["old"].strip(), "new": c["new"].strip(),
               "bare": {**bare, "new_failures": new}}  # fmt: skip
        found.append(row)
        print(f"  {branch} {c['file']}:{c['line']} {c['kind']}: {row['old']!r} -> "
              f"{row['new']!r}: {len(new)} fail, {bare['wall']} s", file=sys.stderr)  # fmt: skip
    return found, tally


def bare_run(root: Path, head: Path, branch: str, python: str, timeout: float) -> dict[str, Any]:
    """The bare full suite on ``branch``, in a worktree of its own."""
    if not (head / ".git").exists():
        shutil.rmtree(head, ignore_errors=True)
        git(root, "worktree", "prune")
        git(root, "worktree", "add", "-q", "--detach", str(head), "main")
    git(head, "checkout", "-qf", "--detach", branch)
    git(head, "clean", "-qfdx")
    return pytest_run(python, head, timeout=timeout)


def fallbacks(
    project: Project, root: Path, python: str, base: dict[str, Any]
) -> list[dict[str, Any]]:
    """Changes the coverage cannot see, each on ``fallback/KIND``."""
    out = []
    head = CACHE / f"{project.name}-head"
    timeout = max(60.0, 10 * base["wall"])
    # a constant run at import time: an integer or string constant assigned at module level
    # or in a class body in the package, the first in the fixed order (its value changed)
    rng = random.Random(f"{SEED}:{project.name}:fallback")
    consts = []
    for path in sorted((root / project.package).rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel in project.skip or any(p in ("test", "tests") for p in rel.split("/")[:-1]):
            continue
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        bodies = [tree.body] + [n.body for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
        for node in (stmt for body in bodies for stmt in body):
            if (
                isinstance(node, ast.Assign)
                and node.lineno == node.end_lineno
                and isinstance(node.value, ast.Constant)
                and type(node.value.value) in (int, str)
                and not (isinstance(node.targets[0], ast.Name)
                         and node.targets[0].id.startswith("__"))
            ):  # fmt: skip
                consts.append((rel, node.lineno, text.splitlines()[node.lineno - 1]))
    rng.shuffle(consts)
    for rel, line, old in consts[:CONSTANT_TRIES]:
        value = ast.parse(old.strip()).body[0].value  # type: ignore[attr-defined]
        lhs = old[: old.index("=") + 1]
        new = (lhs + f" {value.value + 1}" if isinstance(value.value, int)
               else lhs + f" {value.value + 'x'!r}")  # fmt: skip
        files = {rel: with_line(root, rel, line, new)}
        commit_change(root, "fallback/module_constant", files, "fallback: a constant")
        bare = bare_run(root, head, "fallback/module_constant", python, timeout)
        if set(bare.get("failing", [])) - set(base["failing"]):
            break  # the first one the full suite catches (else the last tried)
    if consts:
        out.append(("module_constant", f"{rel}:{line}: {old.strip()} -> {new.strip()}", files))
    # a data file: a non-Python file of the package or the tests, its first line changed,
    # the first in the fixed order that the full suite catches (else the last tried; a new
    # file in the package when there is none)
    tests = root / Path(project.conftest).parent
    pool = sorted({p for d in (root / project.package, tests) for p in d.rglob("*")
                   if p.is_file() and p.suffix not in (".py", ".pyc")
                   and "__pycache__" not in p.parts})  # fmt: skip
    rng.shuffle(pool)
    data: tuple[str, dict[str, str | None]] | None = None
    tried = 0
    for path in pool:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        lines = text.splitlines(keepends=True)
        at = next((i for i, ln in enumerate(lines) if ln.strip()), None)
        if at is None:
            continue
        lines[at] = "regbench " + lines[at]
        rel = path.relative_to(root).as_posix()
        data = (f"{rel}:{at + 1}: 'regbench ' put before the line", {rel: "".join(lines)})
        commit_change(root, "fallback/data_file", data[1], "fallback: a data file")
        bare = bare_run(root, head, "fallback/data_file", python, timeout)
        tried += 1
        if set(bare.get("failing", [])) - set(base["failing"]) or tried >= DATA_TRIES:
            break
    if data is None:
        rel = f"{project.package}/regbench.dat"
        data = (f"{rel}: a new data file", {rel: "data\n"})
    out.append(("data_file", *data))
    conftest = root / project.conftest
    text = conftest.read_text(encoding="utf-8") if conftest.exists() else ""
    text += "\n\nimport pytest\n\n\n@pytest.fixture\ndef regbench_fixture():\n    return 38\n"
    out.append(("conftest", f"{project.conftest}: a fixture added", {project.conftest: text}))
    config = next(f for f in ("pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml")
                  if (root / f).exists())  # fmt: skip
    out.append(("config", f"{config}: a comment added",
                {config: (root / config).read_text(encoding="utf-8") + "\n# regbench\n"}))  # fmt: skip
    rows = []
    for kind, what, files in out:
        branch = f"fallback/{kind}"
        commit_change(root, branch, files, f"fallback: {what}")
        rows.append({"id": f"{project.name}/{branch}", "branch": branch, "kind": kind,
                     "change": what})  # fmt: skip
    return rows


def measure(
    project: Project,
    root: Path,
    python: str,
    rows: list[dict[str, Any]],
    first: int,
    full_every: int,
    db: str,
) -> None:
    """truegreen's verifications of each row, in place."""
    for n, row in enumerate(rows):
        tg: dict[str, Any] = {}
        if n < first:
            clear_record()
            tg["selected_first"] = verify(root, python, row["branch"], "selected", db)
        tg["selected"] = verify(root, python, row["branch"], "selected", db)
        made = (tg["selected"].get("selection") or {}).get("base_record") == "recorded"
        if made and n >= first:  # the record was not there (removed meanwhile): time a reuse
            tg["selected_recorded_unexpectedly"] = tg["selected"]
            tg["selected"] = verify(root, python, row["branch"], "selected", db)
        if full_every and n % full_every == 0:
            tg["full"] = verify(root, python, row["branch"], "full", db)
        row["truegreen"] = tg
        sel = tg["selected"]
        print(f"  {row['branch']}: selected {sel.get('wall')} s caught {sel.get('caught')} "
              f"{json.dumps(sel.get('selection'))}"
              + (f"; full {tg['full'].get('wall')} s caught {tg['full'].get('caught')}"
                 if "full" in tg else ""), file=sys.stderr)  # fmt: skip


def clean_changes(project: Project, root: Path, n: int) -> list[dict[str, Any]]:
    """``n`` changes that break nothing (the common case a verification sees): a statement
    ``_regbench = None`` added after a one-line statement inside a function body, on
    branches ``clean/NN``."""
    rows: list[dict[str, Any]] = []
    for branch in git(root, "branch", "--format=%(refname:short)", "--list", "clean/*").split():
        git(root, "branch", "-qD", branch)
    for c in candidates(project, root):
        if len(rows) >= n:
            break
        if c["kind"] != "removed statement":
            continue
        indent = c["old"][: len(c["old"]) - len(c["old"].lstrip())]
        text = with_line(root, c["file"], c["line"], f"{c['old']}\n{indent}_regbench = None")
        branch = f"clean/{len(rows):02d}"
        if commit_change(root, branch, {c["file"]: text}, "clean: a no-op statement"):
            rows.append({"id": f"{project.name}/{branch}", "branch": branch, "file": c["file"],
                         "line": c["line"] + 1, "change": f"{indent}_regbench = None"})  # fmt: skip
    return rows


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a is not None and b else None


def med(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Catches and time ratios over ``rows`` (regressions only)."""

    def wall(r: dict[str, Any], key: str) -> float | None:
        got = r.get("truegreen", {}).get(key) or {}
        return got.get("wall") if got.get("available") else None

    sel = [r for r in rows if wall(r, "selected") is not None]
    second = [ratio(wall(r, "selected"), wall(r, "full")) for r in sel]
    first = [ratio(wall(r, "selected_first"), wall(r, "full")) for r in sel]
    second_ok = [x for x in second if x is not None]
    paired = [(wall(r, "selected"), wall(r, "full")) for r in sel if wall(r, "full") is not None]
    first_ok = [x for x in first if x is not None]
    missed = [
        {"id": r["id"], "where": f"{r['file']}:{r['line']}", "kind": r["kind"],
         "mutation": f"{r['old']} -> {r['new']}",
         "caught_in_full_by": r["bare"]["new_failures"][:5],
         "selection": r["truegreen"]["selected"].get("selection")}
        for r in sel if not r["truegreen"]["selected"]["caught"]
    ]  # fmt: skip
    modes: dict[str, int] = {}
    for r in sel:
        mode = (r["truegreen"]["selected"].get("selection") or {}).get("mode", "?")
        modes[mode] = modes.get(mode, 0) + 1
    records: dict[str, int] = {}
    for r in sel:
        for key in ("selected_first", "selected"):
            got = (r["truegreen"].get(key) or {}).get("selection") or {}
            tag = f"{key}:{got.get('base_record')}"
            records[tag] = records.get(tag, 0) + 1
    # a catch with fewer failing tests than verify full found (not a miss: a smaller net)
    fewer = [
        r["id"]
        for r in sel
        if "full" in r["truegreen"]
        and set(r["truegreen"]["full"].get("new_failures", []))
        - set(r["truegreen"]["selected"].get("new_failures", []))
    ]
    fractions = [
        (s["of"] if s.get("mode") == "full" else s["tests"]) / s["of"]
        for r in sel
        if (s := r["truegreen"]["selected"].get("selection"))
        and s.get("of")
        and (s.get("mode") == "full" or s.get("tests") is not None)
    ]
    return {
        "regressions": len(rows),
        "caught_bare_full": sum(bool(r["bare"]["new_failures"]) for r in rows),
        "caught_verify_full": sum(
            bool(r.get("truegreen", {}).get("full", {}).get("caught")) for r in rows
        ),
        "verify_full_timed": sum(wall(r, "full") is not None for r in rows),
        "caught_selected": sum(bool(r["truegreen"]["selected"]["caught"]) for r in sel),
        "selected_ran": len(sel),
        "selected_missed": missed,
        "selection_modes": dict(sorted(modes.items())),
        "base_records": dict(sorted(records.items())),
        "selected_fewer_failures_than_full": fewer,
        "selected_tests_fraction_median": med(fractions),
        "caught_testmon": sum(bool(r.get("testmon", {}).get("caught")) for r in rows),
        "testmon_ran": sum("testmon" in r for r in rows),
        "wall_median_s": {
            "bare_full": med([r["bare"]["wall"] for r in rows]),
            "verify_full": med([w for r in rows if (w := wall(r, "full")) is not None]),
            "verify_selected_second": med([w for r in sel if (w := wall(r, "selected"))]),
            "verify_selected_first": med(
                [w for r in sel if (w := wall(r, "selected_first")) is not None]
            ),
            "testmon_head": med([r["testmon"]["wall"] for r in rows if "testmon" in r]),
        },
        "ratio_selected_second_over_full": {
            "median": med(second_ok),
            "max": max(second_ok, default=None),
            "n": len(second_ok),
            "of_sums": ratio(sum(a or 0 for a, _ in paired), sum(b or 0 for _, b in paired)),
            "within_goal": sum(x <= 0.3 for x in second_ok),
            "goal": 0.3,
        },
        "ratio_selected_first_over_full": {
            "median": med(first_ok),
            "max": max(first_ok, default=None),
            "n": len(first_ok),
            "within_goal": sum(x <= 1.3 for x in first_ok),
            "goal": 1.3,
        },
    }


def clean_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The changes that break nothing: what selection saves when there is no failure to
    rerun."""
    both = [r["truegreen"] for r in rows if r["truegreen"]["selected"].get("available")]
    ratios = [x for t in both if (x := ratio(t["selected"]["wall"], t["full"]["wall"]))]
    return {
        "changes": len(rows),
        "false_alarms_selected": sum(bool(t["selected"]["new_failures"]) for t in both),
        "false_alarms_full": sum(bool(t["full"]["new_failures"]) for t in both),
        "wall_median_s": {
            "verify_full": med([t["full"]["wall"] for t in both]),
            "verify_selected_second": med([t["selected"]["wall"] for t in both]),
        },
        "ratio_selected_second_over_full": {"median": med(ratios), "n": len(ratios)},
    }


def record_gaps() -> dict[str, Any] | None:
    """What the base's record (truegreen's cache) holds for tests that ran no function: by
    their base outcome, and the first few (a test that passed yet ran nothing is a gap in the
    record: it is never selected for a change of a function). None when it cannot be read."""
    where = Path(os.environ["TRUEGREEN_HOME"]) / "cache" / "regression"
    try:
        (path,) = sorted(where.glob("*.json"))
        doc = json.loads(path.read_text(encoding="utf-8"))
        tests, outcomes = doc["tests"], doc["outcomes"]
        empty = sorted(t for t, rec in tests.items() if not rec["codes"])
    except (ValueError, KeyError, TypeError, OSError):
        return None
    by: dict[str, int] = {}
    for t in empty:
        by[outcomes.get(t, "?")] = by.get(outcomes.get(t, "?"), 0) + 1
    passed = [t for t in empty if outcomes.get(t) == "passed"]
    return {"tests": len(tests), "tracer": doc.get("tracer"), "no_function_by_outcome": by,
            "passed_with_no_function": passed[:10]}  # fmt: skip


def testmon_caught(got: dict[str, Any], failing_at_base: set[str]) -> dict[str, Any]:
    new = sorted(set(got.get("failing", [])) - failing_at_base)
    counts = got.get("counts", {})
    return {"wall": got["wall"], "caught": bool(new), "new_failures": new,
            "ran": sum(v for k, v in counts.items() if k != "deselected"),
            "deselected": counts.get("deselected", 0), "tail": got.get("tail")}  # fmt: skip


def fallback_stage(
    project: Project, root: Path, python: str, base: dict[str, Any], mon: Testmon
) -> list[dict[str, Any]]:
    """The fallback cases, each with the bare suite's and testmon's results."""
    for branch in git(root, "branch", "--format=%(refname:short)", "--list", "fallback/*").split():
        git(root, "branch", "-qD", branch)
    falls = fallbacks(project, root, python, base)
    head = CACHE / f"{project.name}-head"
    for row in falls:
        bare = bare_run(root, head, row["branch"], python, max(60.0, 10 * base["wall"]))
        new = sorted(set(bare.get("failing", [])) - set(base["failing"]))
        row["bare"] = {**bare, "new_failures": new}
        row["testmon"] = testmon_caught(mon.check(row["branch"]), set(base["failing"]))
        print(f"  {row['branch']} {row['change']}: {len(new)} fail", file=sys.stderr)
    return falls


def one_project(project: Project, args: argparse.Namespace, db: str) -> dict[str, Any]:
    load_before = os.getloadavg()
    os.environ["TRUEGREEN_HOME"] = str(args.home / project.name)
    root = fetch(project)
    python = venv(project)
    if args.clean_only:  # the changes that break nothing, added to the saved measurement
        saved = json.loads((CACHE / f"{project.name}-result.json").read_text(encoding="utf-8"))
        clean = clean_changes(project, root, args.clean)
        measure(project, root, python, clean, 0, 1, db)
        load = [round(x, 2) for x in (*load_before, *os.getloadavg())]
        return {**saved, "clean": clean, "clean_summary": clean_summary(clean),
                "clean_load_before_after": load, "record": record_gaps()}  # fmt: skip
    found_file = CACHE / f"{project.name}-found.json"
    cached = (
        json.loads(found_file.read_text()) if args.reuse_found and found_file.exists() else None
    )
    if cached is not None:
        base, rows, tally, falls = (cached["base"], cached["regressions"], cached["tally"],
                                    cached["fallbacks"])  # fmt: skip
        record = cached["testmon_record"]
        for row in rows + falls:  # the branches, as found
            if git(root, "branch", "--list", row["branch"]).strip() == "":
                raise SystemExit(f"{row['branch']} is gone from {root}: run without --reuse-found")
        if args.refallback:
            mon = Testmon(project, root, python, timeout=max(60.0, 10 * base["wall"]), fresh=False)
            falls = fallback_stage(project, root, python, base, mon)
            cached["fallbacks"] = falls
            found_file.write_text(json.dumps(cached, indent=1))
    else:
        for branch in git(root, "branch", "--format=%(refname:short)").split():
            if branch != "main":
                git(root, "branch", "-qD", branch)
        base = pytest_run(python, root, timeout=1800)
        if base["timed_out"] or base["counts"].get("passed", 0) < 500:
            raise SystemExit(f"{project.name}: the base suite: {base}")
        print(f"{project.name}: base {base['tail']} in {base['wall']} s", file=sys.stderr)
        rows, tally = find(project, root, python, args.regressions, args.tries, base)
        mon = Testmon(project, root, python, timeout=max(60.0, 10 * base["wall"]))
        record = mon.record
        for row in rows:
            row["testmon"] = testmon_caught(mon.check(row["branch"]), set(base["failing"]))
        falls = fallback_stage(project, root, python, base, mon)
        found_file.write_text(json.dumps({"base": base, "regressions": rows, "tally": tally,
                                          "fallbacks": falls, "testmon_record": record,
                                          "found_at": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                    time.gmtime())}, indent=1))  # fmt: skip
    if args.limit:  # a quick look: the first regressions only, no fallback changes
        rows, falls = rows[: args.limit], []
    if not args.find_only:
        measure(project, root, python, rows, args.first, args.full_every, db)
        measure(project, root, python, falls, 0, 0, db)  # the bare suite is their full run
        clean = clean_changes(project, root, args.clean)
        measure(project, root, python, clean, 0, 1, db)
        gaps = record_gaps()
    else:
        gaps = None
        clean = []
    return {
        "version": project.version,
        "found_at": cached.get("found_at") if cached else None,
        "measured_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "truegreen": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True
        ).stdout.strip(),
        "first": args.first,
        "full_every": args.full_every,
        "tests_at_base": base["counts"],
        "base_suite_s": base["wall"],
        "testmon_record_s": record["wall"],
        "candidates": tally,
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "summary": summarize(rows),
        "regressions": rows,
        "fallbacks": falls,
        "clean": clean,
        "clean_summary": clean_summary(clean),
        "record": gaps,
    }


def table(result: dict[str, Any]) -> str:
    head = (f"{'project':10} {'regs':>4} {'full':>4} {'sel':>4} {'tmon':>4} {'bare s':>7} "
            f"{'vfull s':>7} {'sel1 s':>7} {'sel2 s':>7} {'tmon s':>7} {'sel2/full':>9} "
            f"{'sel1/full':>9} {'tests%':>6}")  # fmt: skip
    out = [head]
    for name, p in [*result["projects"].items(), ("ALL", {"summary": result["summary"]})]:
        s = p["summary"]
        w = s["wall_median_s"]
        frac = s["selected_tests_fraction_median"]

        def f(x: float | None) -> str:
            return "-" if x is None else f"{x:.2f}"

        out.append(
            f"{name:10} {s['regressions']:4} {s['caught_bare_full']:4} {s['caught_selected']:4} "
            f"{s['caught_testmon']:4} {f(w['bare_full']):>7} {f(w['verify_full']):>7} "
            f"{f(w['verify_selected_first']):>7} {f(w['verify_selected_second']):>7} "
            f"{f(w['testmon_head']):>7} "
            f"{f(s['ratio_selected_second_over_full']['median']):>9} "
            f"{f(s['ratio_selected_first_over_full']['median']):>9} "
            f"{'-' if frac is None else f'{100 * frac:.0f}':>6}"
        )
    out.append("")
    out.append(f"{'changes that break nothing':26} {'n':>3} {'vfull s':>7} {'sel2 s':>7} "
               f"{'sel2/full':>9} {'false alarms sel/full':>21}")  # fmt: skip
    for name, p in [
        *result["projects"].items(),
        ("ALL", {"clean_summary": result["clean_summary"]}),
    ]:
        c = p.get("clean_summary") or {}
        if not c.get("changes"):
            continue
        w = c["wall_median_s"]
        out.append(f"{name:26} {c['changes']:3} {w['verify_full'] or 0:7.2f} "
                   f"{w['verify_selected_second'] or 0:7.2f} "
                   f"{c['ratio_selected_second_over_full']['median'] or 0:9.2f} "
                   f"{c['false_alarms_selected']:>10}/{c['false_alarms_full']}")  # fmt: skip
    out.append("")
    out.append(f"{'fallback':34} {'mode':8} {'caught full/sel/tmon':20} reason")
    for name, p in result["projects"].items():
        for r in p["fallbacks"]:
            sel = r["truegreen"]["selected"]
            s = sel.get("selection") or {}
            caught = (f"{bool(r['bare']['new_failures'])}/{sel.get('caught')}/"
                      f"{r['testmon']['caught']}")  # fmt: skip
            out.append(f"{name + ' ' + r['kind']:34} {s.get('mode', '-'):8} {caught:20} "
                       f"{s.get('reason')}")  # fmt: skip
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", default=",".join(p.name for p in PROJECTS))
    parser.add_argument("--regressions", type=int, default=22, help="per project")
    parser.add_argument("--tries", type=int, default=120, help="candidates tried per project")
    parser.add_argument("--first", type=int, default=3,
                        help="regressions per project whose verification records the base")  # fmt: skip
    parser.add_argument("--full-every", type=int, default=1)
    parser.add_argument("--reuse-found", action="store_true")
    parser.add_argument("--clean", type=int, default=3,
                        help="changes that break nothing, timed per project")  # fmt: skip
    parser.add_argument("--clean-only", action="store_true",
                        help="time only the changes that break nothing (of a measured project)")  # fmt: skip
    parser.add_argument("--assemble", action="store_true",
                        help="run nothing: the result of the projects measured before, one by one")  # fmt: skip
    parser.add_argument("--refallback", action="store_true",
                        help="with --reuse-found: make the fallback cases again")  # fmt: skip
    parser.add_argument("--find-only", action="store_true",
                        help="inject the regressions, run the bare suite and testmon; no verify")  # fmt: skip
    parser.add_argument("--limit", type=int, default=0,
                        help="measure only the first N regressions found (and no fallback)")  # fmt: skip
    parser.add_argument("--out", type=Path, default=HERE / "results" / "regression.json")
    args = parser.parse_args(argv)
    CACHE.mkdir(parents=True, exist_ok=True)
    args.home = Path(os.environ.get("TRUEGREEN_HOME") or CACHE / "home")
    db = f"sqlite:///{CACHE / 'ledger.db'}"
    wanted = args.projects.split(",")
    unknown = set(wanted) - {p.name for p in (*PROJECTS, *LONGER)}
    if unknown:
        parser.error(f"unknown project(s) {', '.join(sorted(unknown))}")
    projects = {}
    for project in (*PROJECTS, *LONGER):
        if project.name not in wanted:
            continue
        saved = CACHE / f"{project.name}-result.json"
        if args.assemble:
            if not saved.exists():
                raise SystemExit(f"{project.name} has not been measured: run it without --assemble")
            projects[project.name] = json.loads(saved.read_text(encoding="utf-8"))
            done = projects[project.name]  # summaries recomputed by this code
            done["summary"] = summarize(done["regressions"])
            done["clean_summary"] = clean_summary(done.get("clean", []))
            if projects[project.name].get("record") is None:  # measured before it was read
                os.environ["TRUEGREEN_HOME"] = str(args.home / project.name)
                projects[project.name]["record"] = record_gaps()
            continue
        projects[project.name] = one_project(project, args, db)
        if not args.find_only and not args.limit:
            saved.write_text(json.dumps(projects[project.name], indent=1), encoding="utf-8")
    rows = [r for p in projects.values() for r in p["regressions"]]
    result = {
        "benchmark": "regression",
        "python": sys.version.split()[0],
        "cores": os.cpu_count(),
        "args": {k: str(v) for k, v in sorted(vars(args).items())},
        "summary": summarize(rows),
        "clean_summary": clean_summary([r for p in projects.values() for r in p.get("clean", [])]),
        "projects": projects,
    }
    if args.find_only:
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(table(result))
    return 0


if __name__ == "__main__":
    shutil.which("git") or sys.exit("git is needed")
    raise SystemExit(main())
