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
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from truegreen import tempdirs
from truegreen.events import Events
from truegreen.repo.git import GitRepo
from truegreen.run.pytest_run import PytestRequest
from truegreen.run.results import PytestRun
from truegreen.testpaths import is_test_code
from truegreen.verify import warm
from truegreen.verify.mutate import Mutant, changed_lines, interleaved, mutants_for
from truegreen.verify.verdict import StrengthEvidence, Survivor
from truegreen.verify.warm import WarmRun

if TYPE_CHECKING:
    from truegreen.verify.pipeline import _Runner

MAX_MUTANTS = 12
#: how many mutants run at once (forked children, or fresh processes in copies of the tree)
WORKERS = 2
#: run the mutants that can be in forked children of the exams' warm process (False: every
#: mutant in a fresh pytest process, as before issue #38; for the benchmark's comparison)
WARM = True
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


#: per changed file, the lines run at import or collection time (None: not known, when
#: the file was imported before the recorder started)
Early = dict[str, set[int] | None]


def _executed(
    runner: _Runner, head_tree: Path, exam_tests: Sequence[str], paths: Sequence[str]
) -> tuple[dict[str, set[int]] | None, float | None, PytestRun | None, Early, WarmRun | None]:
    """The lines of ``paths`` the exams run on the head (None: not recorded), how long
    their run took, the lines run at import or collection time, and the warm process,
    held for the mutants (None: it did not hold; see :mod:`truegreen.verify.warm`)."""
    where = tempdirs.make("truegreen-warm-")
    out = where / "lines.json"
    files = {str((head_tree / p).resolve()): p for p in paths}
    limit = min(runner.settings.suite_timeout, 300)
    request = PytestRequest(
        repo=head_tree,
        interpreter=runner.project.interpreter,
        test_ids=tuple(exam_tests),
        args=tuple(runner.settings.pytest_args),
        # the exam's run (``limit``), then the mutants: each stopped by the plugin at its
        # own limit; this deadline is only for a process that hangs
        timeout=limit * (2 + MAX_MUTANTS // WORKERS),
        plugins=(LINES_PLUGIN, warm.PLUGIN),
        pythonpath=(LINES_DIR, warm.SWAP_DIR),
        env={
            "TRUEGREEN_LINES_FILES": json.dumps(sorted(files)),
            "TRUEGREEN_LINES_OUT": str(out),
            warm.DIR_VAR: str(where),
            warm.LIMIT_VAR: str(limit),
        },
        writable=(where,),
        sandbox=runner.project.sandbox,
        grant_workdir=True,
        origin=runner.project.root,
        records=where / "probe.jsonl",
    )
    held = WarmRun(request, runner.project.executor, where)
    try:
        held.start()
        baseline = held.wait_ready()
        run = held.outcomes()
    except BaseException:
        if held.alive:  # Ctrl-C on this thread: the run's thread and tree go too
            runner.project.cancel.cancel()
        held.close()
        raise
    side = runner.sides.get(head_tree, str(head_tree))
    for note in run.notes:
        runner.notes.add(f"a run of {', '.join(exam_tests)} on the {side}: {note}")
    try:
        doc = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        doc = None
    kept: WarmRun | None = held
    if doc is None or baseline is None or baseline.get("baseline") != "passed":
        held.close()  # no mutant runs in it: let it end
        if doc is None:
            return None, None, run, {}, None
        kept = None
    duration = doc.pop("__duration__", None)
    early_doc = doc.pop("__early__", None)
    seen: dict[str, set[int]] = {p: set() for p in paths}
    early: Early = {p: set() for p in paths}
    for name, lines in doc.items():
        if name in files:
            seen[files[name]] = set(lines)
    for name, lines in (early_doc or {}).items():
        if name in files:  # "all": imported before the recorder started
            early[files[name]] = set(lines) if isinstance(lines, list) else None
    return seen, duration if isinstance(duration, float) else None, run, early, kept


def function_lines(text: str) -> set[int]:
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
    #: the lines of the changed files run at import or collection time (their mutants
    #: cannot be put into live functions: they run in a fresh process)
    early: Early | None = None
    #: the exams' process, held for the mutants (None: it did not hold)
    warm: WarmRun | None = None

    def release(self) -> None:
        """Let the held process end (once its mutants ran, or when there are none)."""
        if self.warm is not None:
            self.warm.close()


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
    executed, duration, run, early, held = _executed(runner, head_tree, exam_tests, sorted(changed))
    return Recorded(changed, executed, duration, run, early, held)


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
    try:
        return _measure(runner, head_tree, exam_tests, events, rec)
    finally:
        rec.release()


def _measure(
    runner: _Runner, head_tree: Path, exam_tests: Sequence[str], events: Events, rec: Recorded
) -> StrengthEvidence | None:
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
            inside = function_lines(texts[path])
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
    killed = _run_all(runner, head_tree, exam_tests, mutants, texts, rec, limit, events)
    survivors = tuple(
        Survivor(m.path, m.line, m.description)
        for m, k in zip(mutants, killed, strict=True)
        if not k
    )
    return StrengthEvidence(len(mutants) - len(survivors), len(mutants), survivors)


def _in_place(mutants: Sequence[Mutant], texts: dict[str, str], early: Early | None) -> list[bool]:
    """Whether each mutant can be put into the live function (the warm-fork runner): its
    line is inside a function's body (not module-level code, a class body, a decorator or
    a default) and did not run at import or collection time (``early``: None when that
    is not known, and then none can)."""
    if early is None or not hasattr(os, "fork"):
        return [False] * len(mutants)
    bodies = {p: function_lines(t) for p, t in texts.items()}
    ok = []
    for m in mutants:
        before = early.get(m.path, set())
        ok.append(m.line in bodies[m.path] and before is not None and m.line not in before)
    return ok


def _run_all(
    runner: _Runner,
    head_tree: Path,
    exam_tests: Sequence[str],
    mutants: Sequence[Mutant],
    texts: dict[str, str],
    rec: Recorded,
    limit: float,
    events: Events,
) -> list[bool]:
    """Whether each mutant was killed, in the mutants' order: those that can be, in forked
    children of the exams' warm process (``rec.warm``); the others, and any it could not
    apply, each in a fresh pytest process (:func:`_run_mutants`)."""
    step = events.steps("strength", len(mutants))
    got: list[bool | None] = [None] * len(mutants)
    fast = _in_place(mutants, texts, rec.early) if rec.warm is not None and WARM else []
    chosen = [i for i, ok in enumerate(fast) if ok]
    if chosen and rec.warm is not None:
        forked = _run_forked(rec.warm, head_tree, [mutants[i] for i in chosen], limit)
        for i, killed in zip(chosen, forked, strict=True):
            got[i] = killed
            if killed is not None:
                step(f"{mutants[i].path}:{mutants[i].line} {mutants[i].description}")
    rec.release()  # done with it (or nothing for it): its process ends
    rest = [i for i, k in enumerate(got) if k is None]
    if rest:
        slow = _run_mutants(runner, head_tree, exam_tests, [mutants[i] for i in rest], limit, step)
        for i, killed in zip(rest, slow, strict=True):
            got[i] = killed
    return [bool(k) for k in got]


def _run_forked(
    held: WarmRun, head_tree: Path, mutants: Sequence[Mutant], limit: float
) -> list[bool | None]:
    """Run ``mutants`` in forked children of the held process: whether each was killed,
    or None for those it could not apply (the caller runs them the slow way)."""
    spec = {
        "limit": limit,
        "workers": min(WORKERS, os.cpu_count() or 1),
        "mutants": [
            {"file": str(head_tree / m.path), "line": m.line, "source": m.source} for m in mutants
        ],
    }
    doc = held.send(spec)
    results = doc.get("results") if doc is not None else None
    if not isinstance(results, list) or len(results) != len(mutants):
        return [None] * len(mutants)
    return [_FORK_OUTCOMES.get(r) if isinstance(r, str) else None for r in results]


#: what the warm runner's words mean (killed?); any other word ("fallback: ...") is None
_FORK_OUTCOMES = {"killed": True, "timeout": True, "crashed": True, "survived": False}


def _run_mutants(
    runner: _Runner,
    head_tree: Path,
    exam_tests: Sequence[str],
    mutants: Sequence[Mutant],
    limit: float,
    step: Callable[[str | None], None],
) -> list[bool]:
    """Whether each mutant was killed, in the mutants' order: each written into a copy of
    the head's tree and the exam run on it in a fresh pytest process."""
    trees = [head_tree]
    spare: Path | None = None
    workers = min(WORKERS, len(mutants), os.cpu_count() or 1)
    if workers > 1:
        spare = tempdirs.make("truegreen-mutants-")
        shutil.copytree(head_tree, spare / "tree", ignore=_NOT_COPIED, symlinks=True)
        trees.append(spare / "tree")
    free = list(trees)
    lock = threading.Lock()

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
