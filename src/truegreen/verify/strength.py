"""Exam strength: mutants of the changed lines the exam executes, run on two cores.

1. **lines** — the exam runs once on the head under a small line recorder
   (``verify/_lines/truegreen_lines.py``) restricted to the changed files: a changed line
   inside a function that the exam never runs gets no mutant (a survivor there says
   nothing about the exam). Changed lines outside functions (module-level code, which
   runs at import, before the recorder starts) are kept. When the exam executes no
   changed line at all, the strength is null (DESIGN.md). When the recorder wrote nothing
   (an interpreter that would not load it), every changed line is kept, and a note says so.
2. **time limit** — each mutant's run gets ``max(10 s, 5 x the recorded run + 5 s)``
   (at most the suite-timeout): a mutant that makes the exam loop is killed by the
   deadline instead of holding the verification for minutes.
3. **parallel** — the mutants are run by two workers: the head's worktree and a copy of
   it (its git-ignored and sealed files included), each mutant written into one tree and
   put back after its run. The result is in the mutants' order, whichever worker ran
   which (deterministic).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from truegreen import tempdirs
from truegreen.events import Events
from truegreen.repo.git import GitRepo
from truegreen.run.pytest_run import PytestRequest, run_pytest
from truegreen.run.results import PytestRun
from truegreen.testpaths import is_test_code
from truegreen.verify.mutate import Mutant, changed_lines, interleaved, mutants_for
from truegreen.verify.verdict import StrengthEvidence, Survivor

if TYPE_CHECKING:
    from truegreen.verify.pipeline import _Runner

MAX_MUTANTS = 12
#: how many mutants run at once (each in its own copy of the head's tree)
WORKERS = 2
LINES_DIR = Path(__file__).resolve().parent / "_lines"
LINES_PLUGIN = "truegreen_lines"
#: the least time limit of a mutant's run, and the factor on the exam's own run
MIN_LIMIT = 10.0
LIMIT_FACTOR = 5.0
#: directories not copied for the second worker (caches, environments); a worktree's
#: ``.git`` is a file naming its git directory, copied so git works in the copy too
_NOT_COPIED = shutil.ignore_patterns(
    "__pycache__", ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".pytest_cache"
)


def _executed(
    runner: _Runner, head_tree: Path, exam_tests: Sequence[str], paths: Sequence[str]
) -> tuple[dict[str, set[int]] | None, float | None, PytestRun | None]:
    """The lines of ``paths`` the exams run on the head (None: not recorded), and how long
    their run took."""
    out_dir = tempdirs.make("truegreen-lines-")
    try:
        out = out_dir / "lines.json"
        files = {str((head_tree / p).resolve()): p for p in paths}
        request = PytestRequest(
            repo=head_tree,
            interpreter=runner.project.interpreter,
            test_ids=tuple(exam_tests),
            args=tuple(runner.settings.pytest_args),
            timeout=min(runner.settings.suite_timeout, 300),
            plugins=(LINES_PLUGIN,),
            pythonpath=(LINES_DIR,),
            env={
                "TRUEGREEN_LINES_FILES": json.dumps(sorted(files)),
                "TRUEGREEN_LINES_OUT": str(out),
            },
            writable=(out_dir,),
            sandbox=runner.project.sandbox,
            grant_workdir=True,
            origin=runner.project.root,
        )
        run = run_pytest(request, runner.project.executor)
        side = runner.sides.get(head_tree, str(head_tree))
        for note in run.notes:
            runner.notes.add(f"a run of {', '.join(exam_tests)} on the {side}: {note}")
        try:
            doc = json.loads(out.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None, None, run
        duration = doc.pop("__duration__", None)
        seen: dict[str, set[int]] = {p: set() for p in paths}
        for name, lines in doc.items():
            if name in files:
                seen[files[name]] = set(lines)
        return seen, duration if isinstance(duration, float) else None, run
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


def _function_lines(text: str) -> set[int]:
    """The lines inside function bodies (what runs only when the function is called)."""
    import ast

    try:
        tree = ast.parse(text)
    except SyntaxError:
        return set()
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0].lineno
            inside.update(range(first, (node.end_lineno or first) + 1))
    return inside


@dataclass(frozen=True)
class Recorded:
    """The changed lines of non-test code, and what the exams' run on the head recorded."""

    changed: dict[str, set[int]]
    #: the lines of the changed files the exams ran (None: not recorded)
    executed: dict[str, set[int]] | None = None
    #: how long the exams' session took (the mutants' time limit is made from it)
    duration: float | None = None
    #: the exams' run under the recorder (None when no non-test Python file changed)
    run: PytestRun | None = None


def record(
    runner: _Runner,
    git: GitRepo,
    base: str,
    head: str,
    head_tree: Path,
    exam_tests: Sequence[str],
) -> Recorded:
    """Run the exams once on the head under the line recorder (when a non-test Python file
    changed): which changed lines they execute, and their outcomes."""
    changed = {
        path: lines
        for path, lines in changed_lines(git.diff(base, head, context=0)).items()
        if path.endswith(".py") and not is_test_code(path) and (head_tree / path).is_file()
    }
    if not changed:
        return Recorded(changed)
    executed, duration, run = _executed(runner, head_tree, exam_tests, sorted(changed))
    return Recorded(changed, executed, duration, run)


def measure(
    runner: _Runner,
    git: GitRepo,
    base: str,
    head: str,
    head_tree: Path,
    exam_tests: Sequence[str],
    events: Events,
    recorded: Recorded | None = None,
) -> StrengthEvidence | None:
    """Mutate the changed lines of non-test code the exams execute; count the mutants the
    exams kill (None when no mutant could be made, or the exams execute no changed line).
    ``recorded``: the exams' recorded run, when the caller made it (:func:`record`)."""
    rec = recorded or record(runner, git, base, head, head_tree, exam_tests)
    changed, executed, duration = rec.changed, rec.executed, rec.duration
    if not changed:
        return None
    texts = {p: (head_tree / p).read_text(encoding="utf-8") for p in sorted(changed)}
    if executed is None:
        events.note(
            "strength",
            "strength: the lines the exam runs were not recorded; every changed line is mutated",
        )
    mutants: list[Mutant] = []
    for path in sorted(changed):
        lines = changed[path]
        if executed is not None:
            inside = _function_lines(texts[path])
            lines = {n for n in lines if n in executed[path] or n not in inside}
        mutants += mutants_for(path, texts[path], sorted(lines), per_line=MAX_MUTANTS)
    if not mutants:
        return None
    # every line's first mutant, then every line's second, ...: a one-line fix gets up to
    # MAX_MUTANTS of its own, a long fix at least one per line it executes (when it can)
    mutants = interleaved(mutants, MAX_MUTANTS)
    limit = min(
        runner.settings.suite_timeout,
        max(MIN_LIMIT, LIMIT_FACTOR * duration + 5) if duration is not None else 300,
    )
    events.start(
        "strength",
        f"strength: running the exam against {len(mutants)} mutant(s) of the changed lines "
        "it executes",
        total=len(mutants),
    )
    killed = _run_mutants(runner, head_tree, exam_tests, mutants, limit, events)
    survivors = tuple(
        Survivor(m.path, m.line, m.description)
        for m, k in zip(mutants, killed, strict=True)
        if not k
    )
    return StrengthEvidence(len(mutants) - len(survivors), len(mutants), survivors)


def _run_mutants(
    runner: _Runner,
    head_tree: Path,
    exam_tests: Sequence[str],
    mutants: Sequence[Mutant],
    limit: float,
    events: Events,
) -> list[bool]:
    """Whether each mutant was killed, in the mutants' order."""
    trees = [head_tree]
    spare: Path | None = None
    workers = min(WORKERS, len(mutants), os.cpu_count() or 1)
    if workers > 1:
        spare = tempdirs.make("truegreen-mutants-")
        shutil.copytree(head_tree, spare / "tree", ignore=_NOT_COPIED, symlinks=True)
        trees.append(spare / "tree")
    free = list(trees)
    lock = threading.Lock()
    step = events.steps("strength", len(mutants))

    def one(m: Mutant) -> bool:
        with lock:
            tree = free.pop()
        try:
            step(f"{m.path}:{m.line} {m.description}")
            target = tree / m.path
            original = target.read_bytes()
            try:
                target.write_text(m.source, encoding="utf-8")
                run = runner.run(tree, exam_tests, timeout=limit)
            finally:
                target.write_bytes(original)
            return not all(passed(run, t) for t in exam_tests)
        finally:
            with lock:
                free.append(tree)

    try:
        if len(trees) == 1:
            return [one(m) for m in mutants]
        pool = ThreadPoolExecutor(max_workers=len(trees), thread_name_prefix="truegreen-mutant")
        try:
            return list(pool.map(one, mutants))
        except BaseException:
            runner.project.cancel.cancel()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    finally:
        if spare is not None:
            shutil.rmtree(spare, ignore_errors=True)


def passed(run: PytestRun, test: str) -> bool:
    """Whether ``test`` passed in ``run``."""
    result = run.outcome_of(test)
    return result is not None and result.outcome == "passed"
