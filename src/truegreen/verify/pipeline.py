"""``verify``: grade a claimed fix (base -> head, or a patch) against sealed exams.

Layers, each collected as evidence and judged only by :func:`truegreen.verify.verdict.decide`:

1. exam        the sealed copy of each exam runs N times on the base (it must fail with
               its sealed signature) and N times on the head (it must pass every time);
2. tamper      static and collection-based analysis of the change (:mod:`truegreen.verify.tamper`);
3. regression  the suite runs on both sides, and so do the ``always-run`` tests (whatever
               ``tests`` / ``ignore`` leave out); a test that passed on the base and does
               not on the head is rerun there to tell a regression from a flaky test;
+ strength     mutants of the changed lines, and how many the exam kills.

Everything happens in disposable worktrees; the user's working tree is never touched.
The configuration graded is the base's.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import shutil
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from truegreen import __version__, canonical, config, tempdirs
from truegreen.errors import ConfigError, UsageError
from truegreen.events import QUIET, Events
from truegreen.model.exam import Exam as SealedExam
from truegreen.model.reasons import Reason
from truegreen.policy.gates import Gates
from truegreen.policy.rules import ChangeEvidence, FileChange
from truegreen.policy.settings import DEFAULT as DEFAULT_POLICY
from truegreen.policy.settings import Policy
from truegreen.project import Project
from truegreen.repo.git import Carry, GitRepo, Worktree
from truegreen.run.executor import Cancellation, bound
from truegreen.run.pytest_ini import INI_FILES, suite_exclusions
from truegreen.run.pytest_run import (
    PROBE_TB_VAR,
    PytestRequest,
    UnknownTestError,
    run_from_records,
    run_pytest,
)
from truegreen.run.results import PytestRun, TestResult
from truegreen.seal import conftest_paths, refuse_another_checkouts_code
from truegreen.verify import coverage_gate
from truegreen.verify.coverage_gate import Extras
from truegreen.verify.gates import gate_layer
from truegreen.verify.mutate import changed_lines
from truegreen.verify.strength import measure as measure_mutants
from truegreen.verify.strength import passed as _passed
from truegreen.verify.strength import record as record_lines
from truegreen.verify.verdict import (
    VERIFIED_MEANS,
    Evidence,
    ExamEvidence,
    Observation,
    RegressionEvidence,
    StrengthEvidence,
    StrengthLabel,
    Verdict,
    decide,
    strength_label,
)

if TYPE_CHECKING:
    from truegreen.verify.selection import Record
    from truegreen.verify.tamper.snapshot import ChangeSnapshot

#: pytest configuration files; the base's copy is what the head is graded under.
PYTEST_CONFIG_FILES = ("pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml")

FLAKY_RERUNS = 2


@dataclass(frozen=True)
class VerifyOptions:
    base: str
    head: str | None = None
    patch: bytes | None = None
    runs: int = 3
    strength: bool = True
    regression: bool = True
    #: no exam is linked (a pull request that names no sealed issue): grade the tamper
    #: and regression layers only; the verdict is at best inconclusive
    without_exams: bool = False
    #: "full": the suite runs on both sides; "selected": the base's per-test record (made
    #: by the first verification of a base, then reused) picks the head's tests
    #: (:mod:`truegreen.verify.selection`)
    regression_mode: str = "full"


@contextlib.contextmanager
def _head_worktree(
    git: GitRepo, base: str, opts: VerifyOptions, carry: Carry
) -> Iterator[Worktree]:
    # the checkout's files are carried in after the patch or the merge: a file the head
    # adds is the head's, and nothing carried can be committed with it
    if opts.patch is not None:
        with git.worktree(base, prefix="truegreen-head-") as wt:
            wt.apply_patch(opts.patch)
            sha = wt.commit_all("truegreen: the patch under verification")
            yield Worktree(git, wt.path, sha, wt.top, git.bring(wt.path, carry))
        return
    assert opts.head is not None
    if not git.is_ancestor(base, opts.head):
        # a branch made from an older base: what it changes is graded on the base, merged
        # as CI merges a pull request (the base's newer commits are not the branch's doing)
        with git.worktree(base, prefix="truegreen-head-") as wt:
            sha = wt.merge(opts.head)
            yield Worktree(git, wt.path, sha, wt.top, git.bring(wt.path, carry))
        return
    with git.worktree(opts.head, prefix="truegreen-head-", carry=carry) as wt:
        yield wt


@contextlib.contextmanager
def _worktrees(
    git: GitRepo, base: str, opts: VerifyOptions, carry: Carry
) -> Iterator[tuple[Worktree, Worktree]]:
    """The base's and the head's worktrees, checked out at once (two checkouts of a large
    repository, one after the other, were a visible part of a verification), both removed
    on exit; when one cannot be made, the other is removed before the error goes on."""
    makers = (
        git.worktree(base, prefix="truegreen-base-", carry=carry),
        _head_worktree(git, base, opts, carry),
    )
    made: list[Worktree] = []
    error: BaseException | None = None
    with contextlib.ExitStack() as stack:
        pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="truegreen-worktree")
        entering = [pool.submit(m.__enter__) for m in makers]
        try:
            pool.shutdown(wait=True)
        finally:
            # (also on Ctrl-C while they are made: each one made is removed on the way out)
            for maker, future in zip(makers, entering, strict=True):
                try:
                    made.append(future.result())
                except BaseException as exc:  # the first error goes on
                    error = error or exc
                    continue
                stack.push(maker)
        if error is not None:
            raise error
        yield made[0], made[1]


def carry_for(project: Project, settings: config.Settings, events: Events) -> Carry:
    """What the worktrees get from the checkout, with the graded (the base's) ``carry``."""
    plan = project.carry_plan(settings)
    for entry in plan.unmatched:
        events.note(
            "worktrees", f"note: carry entry {entry!r} matches no file git ignores in the checkout"
        )
    return plan


@contextlib.contextmanager
def sealed_exam_files(tree: Path, exams: Sequence[SealedExam]) -> Iterator[None]:
    """While the exams run, their files (the test file, its test-local modules) and the
    conftest.py files on their paths are exactly the sealed ones: a conftest the head
    added or changed there cannot reach the exam. Afterwards the worktree has its own
    files again, so the regression run and the collection see the side as it is (a
    test the head deleted from the exam's file is deleted, not hidden by the sealed copy)."""
    sealed = {f.path: f.content for e in exams for f in e.files}
    paths = sorted(set(sealed) | {p for e in exams for p in conftest_paths(e.path)})
    saved: dict[str, bytes | None] = {}
    try:
        for p in paths:
            target = tree / p
            saved[p] = target.read_bytes() if target.is_file() else None
            if p in sealed:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(sealed[p], encoding="utf-8")
            elif target.is_file():
                target.unlink()
        yield
    finally:
        for p, data in saved.items():
            target = tree / p
            if data is None:
                target.unlink(missing_ok=True)
            else:
                target.write_bytes(data)


def graded_settings(git: GitRepo, base: str) -> config.Settings:
    return graded_config(git, base)[0]


def graded_config(git: GitRepo, base: str) -> tuple[config.Settings, Policy, Gates]:
    """The base's settings, policy and gates (the head's changes to them are evidence,
    not obeyed)."""
    settings, tables = config.parse(
        git.show_text(base, "pyproject.toml"), git.show_text(base, "truegreen.toml")
    )
    policy = tables.get("policy", DEFAULT_POLICY)
    gates = tables.get("gates", Gates())
    assert isinstance(policy, Policy) and isinstance(gates, Gates)
    return settings, policy, gates


def change_evidence(git: GitRepo, base: str, head: str) -> ChangeEvidence:
    """Every file base -> head touches, with its lines added and removed."""
    return ChangeEvidence(tuple(FileChange(p, a, r) for p, a, r in git.numstat(base, head)))


def grade_under_base_config(git: GitRepo, base: str, head_tree: Path) -> list[str]:
    """Put the base's pytest configuration files into the head's worktree (the head's
    own changes to them are judged by the tamper layer, not obeyed)."""
    replaced = []
    for name in PYTEST_CONFIG_FILES:
        text = git.show_text(base, name)
        target = head_tree / name
        current = target.read_text(encoding="utf-8", errors="replace") if target.is_file() else None
        if text is None:
            if current is not None and name in ("pytest.ini", ".pytest.ini"):
                target.unlink()
                replaced.append(name)
            continue
        if current != text:
            target.write_text(text, encoding="utf-8")
            replaced.append(name)
    return replaced


#: what to do about an always-run entry that names nothing
ALWAYS_RUN_HINT = (
    "fix always-run in the base's [tool.truegreen] (pyproject.toml or truegreen.toml): "
    "paths or node ids relative to the repository root, as `python -m pytest "
    "--collect-only -q` lists them"
)


def check_always_run(git: GitRepo, base: str, settings: config.Settings) -> None:
    """Refuse an ``always-run`` entry whose file or directory the base does not track, before
    anything runs (an id whose function does not exist is caught when it runs)."""
    if not settings.always_run:
        return
    files = git.files(base)
    dirs = {"/".join(f.split("/")[:i]) for f in files for i in range(1, f.count("/") + 1)}
    tracked = {".", *files, *dirs}
    missing = [
        e for e in settings.always_run if (e.split("::", 1)[0].rstrip("/") or ".") not in tracked
    ]
    if missing:
        raise ConfigError(
            f"always-run names {', '.join(map(repr, missing))}, which the base "
            f"({base[:12]}) does not track",
            hint=ALWAYS_RUN_HINT,
        )


def base_suite_exclusions(git: GitRepo, base: str) -> tuple[str, ...]:
    """What the base's own pytest ``addopts`` leave out of the suite (``--ignore``,
    ``--ignore-glob``, ``--deselect``), read from the base commit: the suite runs on both
    sides keep them. The head's are never read (a change to them is
    ``tamper.pytest_config_changed``)."""
    return suite_exclusions({name: git.show(base, name) for name in INI_FILES})


def _suite_args(
    settings: config.Settings, exclusions: Sequence[str] = (), paths: Sequence[str] | None = None
) -> tuple[str, ...]:
    """The suite's arguments; ``paths`` in place of the configured ``tests`` (the files a
    selection runs)."""
    # A module that cannot be collected must not stop the rest of the suite from running:
    # it is reported (regression.collection_error), and every other test still counts.
    args = ["--continue-on-collection-errors", *(f"--ignore={p}" for p in settings.ignore)]
    chosen = settings.tests if paths is None else tuple(paths)
    return (*settings.pytest_args, *args, *exclusions, *chosen)


class _Runner:
    def __init__(
        self, project: Project, settings: config.Settings, exclusions: Sequence[str] = ()
    ) -> None:
        self.project = project
        self.settings = settings
        #: the base's own addopts that leave tests out of the suite (suite runs only)
        self.exclusions = tuple(exclusions)
        #: worktree -> "base" / "head", to say where a note comes from
        self.sides: dict[Path, str] = {}
        #: the runner's notes on its runs, each once (added from both sides' threads: a
        #: set, sorted for the document)
        self.notes: set[str] = set()

    def run(
        self,
        tree: Path,
        ids: Sequence[str] = (),
        *,
        suite: bool = False,
        timeout: float | None = None,
        args: Sequence[str] | None = None,
        plugins: Sequence[str] = (),
        pythonpath: Sequence[Path] = (),
        env: Mapping[str, str] | None = None,
        writable: Sequence[Path] = (),
        readonly: Sequence[Path] = (),
        outcomes_only: bool | None = None,
        keep_notes: bool = True,
        cancel: Cancellation | None = None,
        nice: int = 0,
    ) -> PytestRun:
        """One pytest run in ``tree``. ``outcomes_only`` (by default: a ``suite`` run): the
        regression layer reads its tests' outcomes and nothing of their failures' text, so
        no traceback is formatted for them (pytest reads and parses the source of every
        frame of each: seconds on a change that fails a hundred tests). ``cancel``: a child
        of the call's token (:meth:`Cancellation.child`) that can end this run early.
        ``nice``: niceness added to the run (work started early that may wait)."""
        if args is None:
            args = (
                _suite_args(self.settings, self.exclusions) if suite else self.settings.pytest_args
            )
        if suite if outcomes_only is None else outcomes_only:
            env = {PROBE_TB_VAR: "no", **(env or {})}
        request = PytestRequest(
            repo=tree,
            interpreter=self.project.interpreter,
            test_ids=tuple(ids),
            args=tuple(args),
            timeout=timeout or self.settings.suite_timeout,
            plugins=tuple(plugins),
            pythonpath=tuple(pythonpath),
            env=dict(env or {}),
            writable=tuple(writable),
            readonly=tuple(readonly),
            sandbox=self.project.sandbox,
            grant_workdir=True,  # our disposable worktrees
            origin=self.project.root,
            nice=nice,
        )
        executor = self.project.executor
        run = run_pytest(request, executor if cancel is None else bound(executor, cancel))
        if keep_notes:
            self.keep_notes(tree, run, "the suite" if suite else "a run of " + ", ".join(ids))
        return run

    def keep_notes(self, tree: Path, run: PytestRun, what: str) -> None:
        """The run's notes, for the document (a run that is thrown away keeps none)."""
        for note in run.notes:
            self.notes.add(f"{what} on the {self.sides.get(tree, str(tree))}: {note}")

    def run_always(self, tree: Path) -> tuple[PytestRun | None, tuple[str, ...]]:
        """The ``always-run`` tests on one side, named as they are configured, so that
        neither ``tests``, ``ignore`` nor the base's addopts leave them out: (the run, or
        None when none of them exists here; the entries that do not exist here)."""
        entries = list(self.settings.always_run)
        missing: list[str] = []
        args = (*self.settings.pytest_args, "--continue-on-collection-errors")
        while entries:
            try:
                return self.run(tree, entries, args=args, outcomes_only=True), tuple(missing)
            except UnknownTestError as exc:
                gone = [e for e in entries if any(_names(e, m) for m in exc.missing)]
                if not gone:
                    raise
                missing += gone
                entries = [e for e in entries if e not in gone]
        return None, tuple(missing)


T = TypeVar("T")
U = TypeVar("U")


def both_sides(
    first: Callable[[], T], second: Callable[[], U], cancel: Cancellation
) -> tuple[T, U]:
    """Run the base side and the head side at once (they are independent processes in
    separate worktrees). When one side fails, or on Ctrl-C, the call is cancelled: every
    process tree it runs is killed, and the other side starts nothing more (its runs are
    in sessions of their own, never see SIGINT, and would otherwise go on)."""
    pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="truegreen-side")
    try:
        a = pool.submit(first)
        b = pool.submit(second)
        return a.result(), b.result()
    except BaseException:
        cancel.cancel()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _names(entry: str, not_found: str) -> bool:
    """Whether pytest's "not found: X" is about the always-run ``entry`` (pytest names a
    parametrized id by its function)."""
    return entry == not_found or entry.startswith(not_found + "[")


@dataclass(frozen=True)
class SideRuns:
    """One side's runs for the regression layer: the suite, and the always-run tests."""

    suite: PytestRun
    always: PytestRun | None = None
    #: always-run entries that do not exist on this side
    missing: tuple[str, ...] = ()

    @property
    def runs(self) -> tuple[PytestRun, ...]:
        return (self.suite,) if self.always is None else (self.suite, self.always)

    def results(self, tree: Path, root: Path) -> dict[str, TestResult]:
        """Every test's result by normalized id; a test both runs reported counts as the
        first result that is not a pass (it must pass wherever it ran)."""
        out: dict[str, TestResult] = {}
        for run in self.runs:
            for t in run.tests:
                tid = _norm(t.id, tree, root)
                if tid not in out or out[tid].outcome == "passed":
                    out[tid] = t
        return out

    def collected(self, tree: Path, root: Path) -> set[str]:
        return {_norm(i, tree, root) for run in self.runs for i in run.collected}

    def collection_errors(self) -> set[str]:
        return {c.nodeid for run in self.runs for c in run.collection_errors}


def _side_runs(
    runner: _Runner,
    tree: Path,
    side: str,
    events: Events,
    suite: Callable[[], PytestRun] | None = None,
) -> SideRuns:
    suite_run = suite() if suite is not None else runner.run(tree, suite=True)
    if not runner.settings.always_run:
        return SideRuns(suite_run)
    always, missing = runner.run_always(tree)
    if missing and side == "base":
        raise ConfigError(
            f"always-run names {', '.join(map(repr, missing))}, which the base does not have",
            hint=ALWAYS_RUN_HINT,
        )
    if missing:
        events.note(
            "regression",
            f"regression: always-run {', '.join(missing)} does not exist on the head "
            "(a deleted or renamed test is the tamper layer's finding)",
        )
    return SideRuns(suite_run, always, missing)


def _norm(test_id: str, tree: Path, root: Path) -> str:
    """A node id with a worktree's absolute path (in parametrize ids) replaced by ``root``."""
    return test_id.replace(str(tree), str(root))


def _outcome(run: PytestRun, test: str) -> str:
    result = run.outcome_of(test)
    return result.outcome if result is not None else "no_report"


def _observations(
    runs: Sequence[PytestRun], test: str, tree: Path, sealed: str | None = None
) -> tuple[Observation, ...]:
    """Each run's outcome and signature. An exam sealed before the signature's
    normalisation changed carries the legacy signature: a run that fails with it is read
    as failing the sealed way."""
    obs = []
    for run in runs:
        r = run.outcome_of(test)
        if r is None:
            obs.append(Observation("no_report"))
            continue
        detail = None
        if r.phase == "collect" and r.reason:
            # relative paths: the worktree's directory is new on every run
            detail = r.reason.replace(f"{tree}/", "")
        sealed_then = sealed is not None and r.legacy_signature == sealed
        obs.append(Observation(r.outcome, sealed if sealed_then else r.signature, detail))
    return tuple(obs)


def _sandbox_findings(runs: Sequence[PytestRun], test: str) -> tuple[Reason, ...]:
    from truegreen.sandbox import blocked

    found: set[Reason] = set()
    for run in runs:
        r = run.outcome_of(test)
        if r is not None and r.outcome in ("failed", "error") and r.exc_type:
            code = blocked.classify(r.exc_type, r.message or "")
            if code:
                found.add(
                    Reason(
                        code,
                        test.split("::")[0],
                        None,
                        f"{test}: {r.exc_type}: {(r.message or '')[:200]}",
                    )
                )
    return tuple(sorted(found, key=Reason.sort_key))


def _summary(obs: Sequence[Observation]) -> dict[str, Any]:
    outcomes = [o.outcome for o in obs]
    distinct = sorted(set(outcomes))
    doc: dict[str, Any] = {
        "outcome": distinct[0] if len(distinct) == 1 else "flaky",
        "runs": len(outcomes),
    }
    if len(distinct) > 1:
        doc["outcomes"] = outcomes
    sigs = sorted({o.signature for o in obs if o.signature})
    if sigs:
        doc["signature"] = sigs[0] if len(sigs) == 1 else sigs
    return doc


@dataclass(frozen=True)
class Selection:
    """Which tests the regression layer ran on the head, and why (the document's
    ``regression.selection``)."""

    mode: str  # "selected" | "full"
    reason: str | None = None
    #: node ids run on the head (None: the whole suite)
    tests: int | None = None
    #: node ids the base collected
    of: int | None = None
    #: "recorded" (this verification made the base's record), "reused", or None
    base_record: str | None = None
    why: tuple[tuple[str, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "reason": self.reason,
            "tests": self.tests,
            "of": self.of,
            "base_record": self.base_record,
            "why": dict(self.why),
        }


FULL_ASKED = "--regression full: the whole suite on both sides, no selection"


@dataclass(frozen=True)
class SelectionContext:
    """What regression selection needs besides the runner: the revisions and the record's
    cache key."""

    git: GitRepo
    base: str
    head: str
    key: str


@dataclass(frozen=True)
class _BaseView:
    """The base side as the comparison needs it: each test's result, what it collected
    (node ids, with the base's worktree path), its collection errors, the always-run run."""

    results: Mapping[str, str]
    collected: frozenset[str]
    errors: frozenset[str]
    always: PytestRun | None = None
    #: what the head collects, when it ran only some files: the base's ids elsewhere, and
    #: the head's own in the files it ran whole (None: the head's suite run says)
    head_collected: frozenset[str] | None = None

    @classmethod
    def of(cls, side: SideRuns, tree: Path) -> _BaseView:
        return cls(
            {k: r.outcome for k, r in side.results(tree, tree).items()},
            frozenset(side.collected(tree, tree)),
            frozenset(side.collection_errors()),
            side.always,
        )


#: a worktree's path inside a recorded node id (parametrize ids that hold a path)
_ROOT_MARK = "{truegreen-root}"


def _head_suite(
    runner: _Runner, tree: Path, extras: Extras | None
) -> Callable[[], PytestRun] | None:
    """The head's whole-suite run with ``extras`` (a recorder) loaded; None: the plain one."""
    if extras is None:
        return None
    return lambda: runner.run(
        tree,
        suite=True,
        plugins=extras.plugins,
        pythonpath=extras.pythonpath,
        env=extras.env,
        writable=extras.writable,
    )


def _nothing_ran(tree: Path) -> PytestRun:
    return PytestRun((), str(tree), 0, False, True, (), (), (), 0.0)


def _in_suite(path: str, collected_files: set[str], settings: config.Settings) -> bool:
    """Whether a test module the change touches belongs to the suite the base ran: the base
    collected from it, or it lies beside a file the base collected from, or under one of
    the configured ``tests`` paths."""
    if path in collected_files:
        return True
    parent = path.rsplit("/", 1)[0] if "/" in path else ""
    if any((f.rsplit("/", 1)[0] if "/" in f else "") == parent for f in collected_files):
        return True
    return any(path.startswith(t.rstrip("/") + "/") for t in settings.tests)


def _recorded_run(runner: _Runner, tree: Path, out_dir: Path) -> Callable[[], PytestRun]:
    from truegreen.verify import selection

    def run() -> PytestRun:
        return runner.run(
            tree,
            suite=True,
            plugins=(selection.RECORD_PLUGIN,),
            pythonpath=(selection.RECORD_DIR,),
            env={
                "TRUEGREEN_RECORD_OUT": str(out_dir / "record.json"),
                "TRUEGREEN_RECORD_ROOT": str(tree),
            },
            writable=(out_dir,),
        )

    return run


def _record_and_compare(
    runner: _Runner,
    base_tree: Path,
    head_tree: Path,
    events: Events,
    ctx: SelectionContext,
    extras: Extras | None = None,
) -> tuple[_BaseView, SideRuns, SideRuns | None, Selection]:
    """The first verification of a base: the base's suite runs under the recorder while
    the head's runs whole; the record is kept for the next verification."""
    from truegreen.verify import selection

    events.note(
        "regression",
        "regression: recording the base's per-test coverage for selection (the next "
        "verification of this base runs only the tests the change can affect)",
    )
    out_dir = selection.scratch_dir()
    try:
        base, head = both_sides(
            lambda: _side_runs(
                runner, base_tree, "base", events, _recorded_run(runner, base_tree, out_dir)
            ),
            lambda: _side_runs(
                runner, head_tree, "head", events, _head_suite(runner, head_tree, extras)
            ),
            runner.project.cancel,
        )
        doc = selection.read_plugin_output(out_dir / "record.json")
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
    view = _BaseView.of(base, base_tree)
    of = len(view.collected)
    if not base.suite.complete or doc is None:
        why = (
            "the base's suite did not complete"
            if not base.suite.complete
            else "the recorder wrote nothing (an interpreter that would not load it?)"
        )
        return view, head, base, Selection("full", f"no per-test record of the base: {why}")
    marked = str(base_tree)
    suite = base.suite
    doc["tests"] = {k.replace(marked, _ROOT_MARK): v for k, v in doc["tests"].items()}
    record = selection.Record.from_plugin(
        doc,
        {t.id.replace(marked, _ROOT_MARK): t.outcome for t in suite.tests},
        (i.replace(marked, _ROOT_MARK) for i in suite.collected),
        (c.nodeid for c in suite.collection_errors),
    )
    selection.save(ctx.key, record, revision=ctx.base)
    return (
        view,
        head,
        base,
        Selection(
            "full",
            "this verification recorded the base's per-test coverage while the suite ran "
            "whole on both sides; the next verification of this base selects",
            of=of,
            base_record="recorded",
        ),
    )


def _select_and_run(
    runner: _Runner,
    base_tree: Path,
    head_tree: Path,
    exam_tests: set[str],
    events: Events,
    ctx: SelectionContext,
    record: Record,
    extras: Extras | None = None,
    meanwhile: Callable[[], object] = lambda: None,
) -> tuple[_BaseView, SideRuns, SideRuns | None, Selection, _Prepared | None]:
    """A later verification of a base: the record stands for the base's suite, and the
    head runs the tests the change can affect (or the whole suite, when the change is one
    the record cannot see). The head's process starts before the plan is made and waits
    for its test files (:class:`_GatedRun`). With the selected tests, the reruns of new
    failures are made ready as they run (:class:`_Prepared`): the caller closes what it
    returns. ``meanwhile`` is called once the plan is made, while the head runs."""
    from truegreen.verify import selection

    here = str(base_tree)
    collected = frozenset(i.replace(_ROOT_MARK, here) for i in record.collected)
    results = {k.replace(_ROOT_MARK, here): v for k, v in record.outcomes.items()}
    of = len(collected)
    always_base: SideRuns | None = None
    head_collected: frozenset[str] | None = None

    def base_always() -> SideRuns | None:
        if not runner.settings.always_run:
            return None
        return _side_runs(runner, base_tree, "base", events, lambda: _nothing_ran(base_tree))

    spec_dir = selection.scratch_dir()
    spec = spec_dir / "select.json"
    prepared: _Prepared | None = None
    stopped: _Prepared | None = None
    gated: _GatedRun | None = None
    try:
        more = extras or Extras()
        plugins: tuple[str, ...] = (selection.SELECT_PLUGIN, *more.plugins)
        env = {"TRUEGREEN_SELECT": str(spec), **more.env}
        writable = tuple(more.writable)
        if extras is None:
            # the head's process reruns its own new failures, each from the state after
            # collection (not with a coverage gate's recorder loaded: its lines would
            # count the reruns)
            prepared = _Prepared(runner, head_tree, base_tree, selection.scratch_dir())
            if not runner.settings.always_run:
                # a process on the base starts too, and at the gate waits for the same
                # files, to collect them while the head runs and hold for the base's
                # reruns (not beside the base's always-run run: two runs in one worktree
                # at once could trip over each other's files)
                prepared.base = _HeldBase(runner, base_tree, None, FLAKY_RERUNS)
            plugins += (selection.REPEAT_PLUGIN,)
            env |= {
                REPEAT_DIR_VAR: str(prepared.head_dir),
                REPEAT_COUNT_VAR: str(FLAKY_RERUNS),
                REPEAT_FIRST_VAR: str(spec_dir / "eligible.json"),
            }
            writable += (prepared.head_dir,)
        gated = _GatedRun(
            runner,
            head_tree,
            spec_dir / "collect.json",
            plugins=plugins,
            pythonpath=(selection.RECORD_DIR, *more.pythonpath),
            env=env,
            writable=writable,
        )
        chosen = selection.plan(
            ctx.git,
            ctx.base,
            ctx.head,
            record,
            skip={t.replace(here, _ROOT_MARK) for t in exam_tests},
        )
        if chosen.full:
            gated.stop()
            if prepared is not None:
                prepared.stop()  # (waited for once the suite has run)
                stopped, prepared = prepared, None
            events.note(
                "regression", f"regression: the whole suite runs on the head: {chosen.reason}"
            )
            meanwhile()
            maybe_head, always_base = both_sides(
                lambda: _side_runs(
                    runner, head_tree, "head", events, _head_suite(runner, head_tree, extras)
                ),
                base_always,
                runner.project.cancel,
            )
            sel = Selection("full", chosen.reason, of=of, base_record="reused")
        else:
            collected_files = {i.split("::", 1)[0] for i in collected}
            whole = {
                f for f in chosen.whole_files if _in_suite(f, collected_files, runner.settings)
            }
            files = sorted(
                f
                for f in {i.split("::", 1)[0] for i in chosen.ids} | whole
                if (head_tree / f).is_file()
            )
            ids = sorted(i.replace(_ROOT_MARK, str(head_tree)) for i in chosen.ids)
            events.note(
                "regression",
                f"regression: running {len(ids)} of the base's {of} tests on the head "
                f"(and every test of {len(whole)} changed test file(s)), picked from the "
                "base's per-test record",
            )
            if not files:
                gated.stop()
                if prepared is not None:
                    prepared.stop()
            if prepared is not None and files:
                (spec_dir / "eligible.json").write_text(
                    json.dumps(
                        sorted(
                            k.replace(_ROOT_MARK, str(head_tree))
                            for k, v in record.outcomes.items()
                            if v == "passed"
                        )
                    ),
                    encoding="utf-8",
                )
                if prepared.base is not None:
                    on_base = [f for f in files if (base_tree / f).is_file()]
                    if on_base:
                        prepared.base.collect(on_base)
                        prepared.watch()
                    else:
                        prepared.stop()
            spec.write_text(
                json.dumps(
                    {
                        "ids": ids,
                        "whole": sorted(whole),
                        "known": sorted(i.replace(here, str(head_tree)) for i in collected),
                    }
                ),
                encoding="utf-8",
            )
            meanwhile()

            def head_run() -> PytestRun:
                if not files:
                    return _nothing_ran(head_tree)
                assert gated is not None
                run: PytestRun | None = None
                try:
                    run = gated.open(files)
                finally:
                    if prepared is not None:
                        prepared.head_ended(run)
                return run

            maybe_head, always_base = both_sides(
                lambda: _side_runs(runner, head_tree, "head", events, head_run),
                base_always,
                runner.project.cancel,
            )
            assert maybe_head is not None
            sel = Selection(
                "selected",
                None,
                tests=len(maybe_head.suite.collected),
                of=of,
                base_record="reused",
                why=tuple(sorted(chosen.why.items())),
            )
            # what the head collects outside the files it ran whole is what the base
            # collected
            ran = {
                _norm(i, head_tree, base_tree)
                for i in maybe_head.suite.collected
                if i.split("::", 1)[0] in whole
            }
            # (a test module the change removes collects nothing on the head)
            changed_files = whole | chosen.whole_files | chosen.gone_files
            head_collected = frozenset(
                {i for i in collected if i.split("::", 1)[0] not in changed_files} | ran
            )
    except BaseException:
        if prepared is not None:
            prepared.close()
        raise
    finally:
        if gated is not None:
            gated.join()  # (told to stop, it ends at its gate: its files can go)
        if stopped is not None:
            stopped.close()
        shutil.rmtree(spec_dir, ignore_errors=True)
    if always_base is not None and always_base.always is not None:
        for t in always_base.always.tests:
            tid = _norm(t.id, base_tree, base_tree)
            if results.get(tid, "passed") == "passed":
                results[tid] = t.outcome
    view = _BaseView(
        results,
        collected,
        frozenset(record.collection_errors),
        always_base.always if always_base is not None else None,
        head_collected,
    )
    assert maybe_head is not None
    return view, maybe_head, None, sel, prepared


#: the rerun plugin's environment (``_regress/truegreen_repeat.py``)
REPEAT_DIR_VAR = "TRUEGREEN_REPEAT_DIR"
REPEAT_COUNT_VAR = "TRUEGREEN_REPEAT"
REPEAT_FIRST_VAR = "TRUEGREEN_REPEAT_FIRST"
REPEAT_HOLD_VAR = "TRUEGREEN_REPEAT_HOLD"


def _forked_runs(
    where: Path, like: PytestRun, ids: Sequence[str], times: int
) -> list[PytestRun] | None:
    """The repetitions the rerun plugin of ``like``'s process made in ``where``, when they
    cover every one of ``ids``; None otherwise (they run the slow way)."""
    try:
        reran = json.loads((where / "reran.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(reran, list) or not set(ids) <= set(reran):
        return None
    return [run_from_records(where / f"run-{k}.jsonl", like, ids) for k in range(1, times + 1)]


def rerun(
    runner: _Runner, tree: Path, ids: Sequence[str], times: int = FLAKY_RERUNS
) -> list[PytestRun]:
    """``ids`` run ``times`` times in ``tree``, one run after the other, each from the state
    of a fresh process: one pytest process collects them once and forks a child per run
    (``_regress/truegreen_repeat.py``); where it cannot fork, a process per run."""
    return rerun_forked(runner, tree, ids, times)[0]


#: a rerun is read for its outcomes only: no traceback is formatted (pytest reads and
#: parses the source of every frame of a failure's: most of a rerun of many failures)
RERUN_ARGS = ("--tb=no",)


def fresh_reruns(
    runner: _Runner, tree: Path, ids: Sequence[str], times: int = FLAKY_RERUNS
) -> list[PytestRun]:
    """``ids`` run ``times`` times in ``tree``, a pytest process per run."""
    args = (*runner.settings.pytest_args, *RERUN_ARGS)
    return [runner.run(tree, ids, args=args) for _ in range(times)]


def rerun_forked(
    runner: _Runner, tree: Path, ids: Sequence[str], times: int = FLAKY_RERUNS
) -> tuple[list[PytestRun], bool]:
    """:func:`rerun`, and whether its runs were forked children (not fresh processes)."""
    from truegreen.verify import selection

    where = selection.scratch_dir()
    try:
        first = runner.run(
            tree,
            ids,
            args=(*runner.settings.pytest_args, *RERUN_ARGS),
            plugins=(selection.REPEAT_PLUGIN,),
            pythonpath=(selection.RECORD_DIR,),
            env={REPEAT_DIR_VAR: str(where), REPEAT_COUNT_VAR: str(times)},
            writable=(where,),
        )
        if not (where / "forked").is_file():  # pytest's own loop ran them once
            return [first, *fresh_reruns(runner, tree, ids, times - 1)], False
        got = _forked_runs(where, first, ids, times)
        if got is None:
            return fresh_reruns(runner, tree, ids, times), False
        return got, True
    finally:
        shutil.rmtree(where, ignore_errors=True)


#: the selection plugin's gate (``_regress/truegreen_select.py``)
GATE_VAR = "TRUEGREEN_GATE"
GATE_WAIT_VAR = "TRUEGREEN_GATE_WAIT"


class _GatedRun:
    """The head's selected run, started on the suite's own arguments before the plan is
    made: the interpreter's start, pytest's plugins and the suite's conftest files are
    behind it when the plan names its test files (:meth:`open`), or it is told to stop
    having run nothing (:meth:`stop`: a plan that runs the whole suite, or no test)."""

    def __init__(
        self,
        runner: _Runner,
        tree: Path,
        gate: Path,
        *,
        plugins: Sequence[str],
        pythonpath: Sequence[Path],
        env: Mapping[str, str],
        writable: Sequence[Path],
    ) -> None:
        import threading

        self.runner, self.tree, self.gate = runner, tree, gate
        self._run: PytestRun | None = None
        self._error: BaseException | None = None
        self._token = runner.project.cancel.child()
        timeout = runner.settings.suite_timeout
        kwargs: dict[str, Any] = {
            "args": _suite_args(runner.settings, runner.exclusions),
            "plugins": tuple(plugins),
            "pythonpath": tuple(pythonpath),
            "env": {**env, GATE_VAR: str(gate), GATE_WAIT_VAR: str(timeout)},
            "writable": tuple(writable),
            # the gate and the selection: a sandbox shows the run only the paths it is
            # given (its /tmp is its own)
            "readonly": (gate.parent,),
            "outcomes_only": True,
            "keep_notes": False,
            "cancel": self._token,
        }
        self._thread = threading.Thread(
            target=self._target, args=(kwargs,), daemon=True, name="truegreen-gated-head"
        )
        self._thread.start()

    def _target(self, kwargs: dict[str, Any]) -> None:
        try:
            self._run = self.runner.run(self.tree, **kwargs)
        except BaseException as exc:  # raised by open(), in the caller's thread
            self._error = exc

    def open(self, files: Sequence[str]) -> PytestRun:
        """Collect ``files`` (relative to the worktree), run, and return the run."""
        _tell(self.gate, {"files": list(files)})
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._run is not None
        self.runner.keep_notes(self.tree, self._run, "the suite")
        return self._run

    def stop(self) -> None:
        """End the process now, unless it was told its files (it has run nothing: it is
        ended, not waited for at its gate); :meth:`join` waits for its thread."""
        if not self.gate.exists():
            _tell(self.gate, {"stop": True})
            self._token.cancel()

    def join(self) -> None:
        self.stop()
        self._thread.join()


#: niceness of the base's held process (:class:`_HeldBase`)
HELD_NICE = 10


class _HeldBase:
    """A pytest process on the base that collects the selected files while the head's
    selected tests run, then holds until it is told which of its tests to rerun (or to
    stop): when the head's new failures are known, the base's reruns do not wait for a
    start-up. Without ``files`` it starts before they are known and waits at the gate for
    them (:meth:`collect`)."""

    def __init__(
        self, runner: _Runner, tree: Path, files: Sequence[str] | None, times: int
    ) -> None:
        import threading

        from truegreen.verify import selection

        self.runner, self.tree, self.times = runner, tree, times
        self.where = selection.scratch_dir()
        self.gate = self.where / "collect.json" if files is None else None
        self._token = runner.project.cancel.child()
        self._run: PytestRun | None = None
        self._done = False
        self._asked: frozenset[str] = frozenset()
        timeout = runner.settings.suite_timeout
        self._thread = threading.Thread(
            target=self._target,
            args=(files, timeout),
            daemon=True,
            name="truegreen-held-base",
        )
        self._thread.start()

    def _target(self, files: Sequence[str] | None, timeout: float) -> None:
        from truegreen.verify import selection

        plugins: tuple[str, ...] = (selection.REPEAT_PLUGIN,)
        env = {
            REPEAT_DIR_VAR: str(self.where),
            REPEAT_COUNT_VAR: str(self.times),
            REPEAT_HOLD_VAR: str(timeout),
        }
        if self.gate is not None:
            plugins += (selection.SELECT_PLUGIN,)
            env |= {GATE_VAR: str(self.gate), GATE_WAIT_VAR: str(timeout)}
        try:
            self._run = self.runner.run(
                self.tree,
                args=(
                    *_suite_args(self.runner.settings, self.runner.exclusions, files),
                    *RERUN_ARGS,
                ),
                plugins=plugins,
                pythonpath=(selection.RECORD_DIR,),
                env=env,
                writable=(self.where,),
                keep_notes=False,
                cancel=self._token,
                # it collects while the head's tests run, which are waited for: on a
                # machine with few cores it takes what CPU they leave
                nice=HELD_NICE,
            )
        except Exception:  # nothing to read: the reruns run the slow way
            self._run = None

    def collect(self, files: Sequence[str]) -> None:
        """The files to collect (relative to the worktree), for a process at the gate."""
        if self.gate is not None and not self.gate.exists():
            _tell(self.gate, {"files": list(files)})

    def ask(self, ids: Sequence[str]) -> bool:
        """Tell the held process which tests to rerun, once (False: it was told before, or
        is still at its gate and has collected nothing)."""
        if self._done or (self.gate is not None and not self.gate.exists()):
            return False
        self._done = True
        self._asked = frozenset(ids)
        _tell(self.where / "spec.json", {"ids": sorted(ids)})
        return True

    def reruns(self, ids: Sequence[str]) -> list[PytestRun] | None:
        """``ids`` rerun by the held process (None: it could not; they run the slow way).
        Asked before (:meth:`ask`), it gives the reruns of ``ids`` when it reran them all."""
        if not self.ask(ids) and not (self._asked and set(ids) <= self._asked):
            return None
        self._thread.join()
        if self._run is None:
            return None
        self.runner.keep_notes(self.tree, self._run, "the reruns")
        return _forked_runs(self.where, self._run, ids, self.times)

    def stop(self) -> None:
        """End the process at its gate (it has collected nothing), or tell it to end where
        it holds (:meth:`close` waits)."""
        if self.gate is not None and not self.gate.exists():
            _tell(self.gate, {"stop": True})
            self._token.cancel()
        if not self._done:
            self._done = True
            (self.where / "stop").write_text("stop\n", encoding="utf-8")

    def close(self) -> None:
        """Let the process end (told to stop if it holds), wait for it, remove its files."""
        try:
            self.stop()
            self._thread.join()
        finally:
            shutil.rmtree(self.where, ignore_errors=True)


def _tell(path: Path, doc: Mapping[str, Any]) -> None:
    """Write ``doc`` to ``path`` at once (a waiting process never reads half of it)."""
    part = path.with_name(path.name + ".tmp")
    part.write_text(json.dumps(doc), encoding="utf-8")
    part.replace(path)


@dataclass
class _Prepared:
    """Reruns made ready while the head's selected tests ran: the head's process reran its
    own new failures (``head_dir``: its repetitions), and the base may have a held
    process."""

    runner: _Runner
    head_tree: Path
    base_tree: Path
    head_dir: Path
    base: _HeldBase | None = None
    head_run: PytestRun | None = None
    _watcher: threading.Thread | None = None
    _head_done: threading.Event = field(default_factory=threading.Event)

    def watch(self) -> None:
        """While the head's selected run runs: once its first run is over (the plugin lists
        the tests that did not pass in it and passed on the base), the base's held process
        is told to rerun them, beside the head's own reruns."""
        if self.base is None:
            return
        self._watcher = threading.Thread(
            target=self._watch, daemon=True, name="truegreen-first-watch"
        )
        self._watcher.start()

    def _watch(self) -> None:
        first = self.head_dir / "first.json"
        while not self._head_done.is_set():
            try:
                bad = json.loads(first.read_text(encoding="utf-8"))
            except (OSError, ValueError):  # not yet written (its writer renames it in)
                self._head_done.wait(0.005)
                continue
            if isinstance(bad, list) and bad and self.base is not None:
                self.base.ask([_norm(str(i), self.head_tree, self.base_tree) for i in bad])
            return

    def head_ended(self, run: PytestRun | None) -> None:
        """The head's selected run is over (``run``: what it reported)."""
        self.head_run = run
        self._head_done.set()
        if self._watcher is not None:
            self._watcher.join()

    def reruns(
        self, head_ids: Sequence[str], base_ids: Sequence[str]
    ) -> tuple[list[PytestRun], tuple[list[PytestRun], bool]]:
        """The head's reruns, and the base's with whether they were forked children."""

        def head() -> list[PytestRun]:
            got = None
            if self.head_run is not None:
                got = _forked_runs(self.head_dir, self.head_run, head_ids, FLAKY_RERUNS)
            return got if got is not None else rerun(self.runner, self.head_tree, head_ids)

        def base() -> tuple[list[PytestRun], bool]:
            got = self.base.reruns(base_ids) if self.base is not None else None
            if got is not None:
                return got, True
            if self.base is not None:
                self.base.close()  # (never two runs in the base's worktree at once)
            return rerun_forked(self.runner, self.base_tree, base_ids)

        return both_sides(head, base, self.runner.project.cancel)

    def stop(self) -> None:
        """Tell the base's held process to end (:meth:`close` waits for it)."""
        if self.base is not None:
            self.base.stop()

    def close(self) -> None:
        try:
            self.head_ended(self.head_run)
            if self.base is not None:
                self.base.close()
        finally:
            shutil.rmtree(self.head_dir, ignore_errors=True)


def regression_layer(
    runner: _Runner,
    base_tree: Path,
    head_tree: Path,
    exam_tests: set[str],
    events: Events,
    ctx: SelectionContext | None = None,
    head_extras: Extras | None = None,
    meanwhile: Callable[[], object] = lambda: None,
) -> tuple[RegressionEvidence, _BaseView, SideRuns, Selection]:
    """The regression layer: the suite on both sides (or, with ``ctx``, the base's record
    and the head's selected tests), then every test that passed on the base and not on the
    head rerun on both sides. ``meanwhile`` is called once the suites are under way (with
    a record, once the plan is made: not beside it, which the head's run waits for)."""
    kept = f" (leaving out, as the base's addopts do: {shlex.join(runner.exclusions)})"
    always = runner.settings.always_run
    record = None
    if ctx is not None:
        from truegreen.verify import selection

        record = selection.load(ctx.key)
    events.start(
        "regression",
        (
            "regression: running the suite on the base and the head"
            if record is None
            else "regression: the base's per-test record is reused"
        )
        + (kept if runner.exclusions else ""),
    )
    if always:
        events.note(
            "regression",
            f"regression: and the always-run tests on both sides, whatever tests / ignore "
            f"leave out: {shlex.join(always)}",
        )
    base_side: SideRuns | None
    prepared: _Prepared | None = None
    if record is None:
        meanwhile()
    if ctx is None:
        full_base, head = both_sides(
            lambda: _side_runs(runner, base_tree, "base", events),
            lambda: _side_runs(
                runner, head_tree, "head", events, _head_suite(runner, head_tree, head_extras)
            ),
            runner.project.cancel,
        )
        base_side = full_base
        view = _BaseView.of(full_base, base_tree)
        sel = Selection("full", FULL_ASKED)
    elif record is None:
        view, head, base_side, sel = _record_and_compare(
            runner, base_tree, head_tree, events, ctx, head_extras
        )
    else:
        view, head, base_side, sel, prepared = _select_and_run(
            runner, base_tree, head_tree, exam_tests, events, ctx, record, head_extras, meanwhile
        )
    try:
        return _compare(
            runner, base_tree, head_tree, exam_tests, events, view, head, base_side, sel, prepared
        )
    finally:
        if prepared is not None:
            prepared.close()


def _compare(
    runner: _Runner,
    base_tree: Path,
    head_tree: Path,
    exam_tests: set[str],
    events: Events,
    view: _BaseView,
    head: SideRuns,
    base_side: SideRuns | None,
    sel: Selection,
    prepared: _Prepared | None,
) -> tuple[RegressionEvidence, _BaseView, SideRuns, Selection]:
    """Each test's outcome on both sides compared; the new failures rerun on both sides
    (by ``prepared`` where it can)."""
    always = runner.settings.always_run
    sides = [("head", head)] if base_side is None else [("base", base_side), ("head", head)]
    for side, runs in sides:
        for run, what in zip(runs.runs, ("the suite run", "the always-run run"), strict=False):
            if not run.complete:
                why = "passed the suite-timeout" if run.timed_out else run.meaning
                return (
                    RegressionEvidence(False, detail=f"{what} on the {side}: {why}"),
                    view,
                    head,
                    sel,
                )
    # ids match across the two worktrees with each worktree's path replaced by one root
    before = view.results
    after = head.results(head_tree, base_tree)
    real_id = {_norm(t.id, head_tree, base_tree): t.id for r in head.runs for t in r.tests}
    candidates, both = [], []
    compared = 0
    for tid, outcome in sorted(before.items()):
        if tid in exam_tests:
            continue
        now = after.get(tid)
        if now is None:
            continue  # gone on the head: the tamper layer's business (test_deleted / renamed)
        compared += 1
        if outcome == "passed" and now.outcome != "passed" and now.outcome != "skipped":
            candidates.append(tid)
        elif outcome in ("failed", "error") and now.outcome in ("failed", "error"):
            both.append(tid)
    new_failures, flaky = [], []
    flaky_outcomes: list[tuple[str, str]] = []
    if candidates:
        # rerun on the head (does it pass now?) and, at the same time, on the base (does it
        # flip there too? then its failure is not the change's doing)
        events.note(
            "regression",
            f"regression: rerunning {len(candidates)} new failure(s) on the head and the base",
        )
        # both sides at once, each side's reruns one after the other: two runs in one
        # worktree at once could trip over each other's files (a suite that writes into
        # its tree), which would read as flakiness
        head_ids = [real_id[t] for t in candidates]
        if prepared is not None:
            reruns, (base_reruns, forked) = prepared.reruns(head_ids, candidates)
        else:
            reruns, (base_reruns, forked) = both_sides(
                lambda: rerun(runner, head_tree, head_ids),
                lambda: rerun_forked(runner, base_tree, list(candidates)),
                runner.project.cancel,
            )
        # a test that did not pass in a forked rerun on the base is rerun in fresh
        # processes on both sides, and those runs decide: a suite that does not bear a
        # fork (a thread, a connection made at import) must not make a regression "flaky"
        suspect = (
            [t for t in candidates if not all(_passed(r, t) for r in base_reruns)] if forked else []
        )
        fresh: tuple[list[PytestRun], list[PytestRun]] = ([], [])
        if suspect:
            events.note(
                "regression",
                f"regression: {len(suspect)} failed in a forked rerun on the base: rerun in "
                "fresh processes on both sides",
            )
            fresh = both_sides(
                lambda: fresh_reruns(runner, head_tree, [real_id[t] for t in suspect]),
                lambda: fresh_reruns(runner, base_tree, suspect),
                runner.project.cancel,
            )
        for tid in candidates:
            head_runs, base_runs = fresh if tid in suspect else (reruns, base_reruns)
            ran = [after[tid].outcome, *(_outcome(r, real_id[tid]) for r in head_runs)]
            on_base = [before[tid], *(_outcome(r, tid) for r in base_runs)]
            if any(_passed(r, real_id[tid]) for r in head_runs):
                flaky.append(tid)
                flaky_outcomes.append((tid, f"on the head: {', '.join(ran)}"))
            elif not all(_passed(r, tid) for r in base_runs):
                flaky.append(tid)
                flaky_outcomes.append(
                    (tid, f"on the base: {', '.join(on_base)}; on the head: {', '.join(ran)}")
                )
            else:
                new_failures.append(tid)
    new_errors = sorted(head.collection_errors() - view.errors)
    always_tests = (
        {_norm(t.id, base_tree, base_tree) for t in view.always.tests} - exam_tests
        if view.always is not None
        else set()
    )
    return (
        RegressionEvidence(
            True,
            tuple(new_failures),
            tuple(flaky),
            tuple(new_errors),
            tuple(both),
            compared=compared,
            head_outcomes=tuple((t, after[t].outcome) for t in new_failures),
            flaky_outcomes=tuple(flaky_outcomes),
            always_run=always,
            always_run_tests=len(always_tests & set(after)),
        ),
        view,
        head,
        sel,
    )


class _Tamper:
    """The tamper layer of one verification (:mod:`truegreen.verify.tamper`). The part
    that needs no collection (the change's source modules, most of its time) can be
    started beforehand on a thread of its own (:meth:`start`), beside the suites' runs;
    :meth:`findings` waits for it, or makes it there when it was never started."""

    def __init__(self, git: GitRepo, base: str, head: str, exams: Sequence[SealedExam]) -> None:
        self._where = (git, base, head, exams)
        self._sources: Future[tuple[ChangeSnapshot, dict[str, list[Reason]]]] | None = None

    def _snapshot_and_sources(self) -> tuple[ChangeSnapshot, dict[str, list[Reason]]]:
        # imported here: the analyses (syntax trees, YAML) are only needed when verifying
        from truegreen.verify import tamper

        git, base, head, exams = self._where
        snapshot = tamper.ChangeSnapshot.from_git(
            git,
            base,
            head,
            exams=[
                tamper.ExamRef(test=e.test, path=e.path, content=e.file(e.path).content)
                for e in exams
            ],
        )
        return snapshot, tamper.source_findings(snapshot)

    def start(self) -> None:
        if self._sources is None:
            pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="truegreen-tamper")
            self._sources = pool.submit(self._snapshot_and_sources)
            pool.shutdown(wait=False)

    def findings(
        self, base_collected: set[str] | None, head_collected: set[str] | None
    ) -> tuple[Reason, ...]:
        """What the change base -> head did to the evidence, with the node ids pytest
        collects on each side when the regression layer ran."""
        from truegreen.verify import tamper

        if self._sources is None:
            snapshot, sources = self._snapshot_and_sources()
        else:
            snapshot, sources = self._sources.result()
        snapshot = replace(snapshot, base_collected=base_collected, head_collected=head_collected)
        return tuple(tamper.analyze(snapshot, sources))


def tamper_layer(
    git: GitRepo,
    base: str,
    head: str,
    exams: Sequence[SealedExam],
    base_collected: set[str] | None,
    head_collected: set[str] | None,
) -> tuple[Reason, ...]:
    """What the change base -> head did to the evidence (:mod:`truegreen.verify.tamper`),
    with the node ids pytest collects on each side when the regression layer ran."""
    return _Tamper(git, base, head, exams).findings(base_collected, head_collected)


#: mutate the changed lines of non-test code the exams execute; count mutants the exams
#: kill (None when no mutant could be made, or the exams execute no changed line); the
#: label is the verdict's (:func:`strength_label`)
strength_layer = measure_mutants


def strength_json(
    strength: StrengthEvidence | None, label: StrengthLabel | None
) -> dict[str, Any] | None:
    """The document's ``strength``: ``{killed, mutants, label, survivors}``, or null;
    ``label`` is the verdict's (:func:`truegreen.verify.verdict.strength_label`)."""
    if strength is None:
        return None
    return {
        "killed": strength.killed,
        "mutants": strength.mutants,
        "label": label,
        "survivors": [
            {"file": s.file, "line": s.line, "mutation": s.mutation, "killed": False}
            for s in strength.survivors
        ],
    }


def verify(
    project: Project,
    exams: Sequence[SealedExam],
    opts: VerifyOptions,
    *,
    events: Events = QUIET,
) -> dict[str, Any]:
    """Collect the evidence, decide, and return the ``truegreen.verification/1`` document
    (without its receipt, which the caller adds)."""
    git = project.need_git()
    refuse_another_checkouts_code(project)
    if opts.runs < 1:
        raise UsageError(f"must be at least 1, not {opts.runs}", field="runs")
    if not exams and not opts.without_exams:
        raise UsageError(
            "no exam to verify against",
            hint="seal one first (truegreen seal TEST_ID), or name the exams to verify against",
            field="exams",
        )
    base = git.resolve(opts.base, field="base")
    head_sha = ""
    if opts.patch is None:
        if opts.head is None:
            raise UsageError("give the revision with the fix, or a patch", field="head")
        head_sha = git.resolve(opts.head, field="head")
        if head_sha == base:
            raise UsageError(
                f"it is the same commit as the base ({base[:12]})",
                hint="give the commit of the fix as the head, or a patch",
                field="head",
            )
        if git.is_ancestor(head_sha, base):
            raise UsageError(
                f"{opts.head} is already part of the base {opts.base}: it brings no change",
                hint="give the commit the fix is made on as the base and the fix as the head "
                "(are they swapped?)",
                field="head",
            )
    settings, policy, gates = graded_config(git, base)
    if opts.regression:
        check_always_run(git, base, settings)
    runner = _Runner(project, settings, base_suite_exclusions(git, base))
    exam_tests = [e.test for e in exams]
    carry = carry_for(project, settings, events)
    with _worktrees(git, base, opts, carry) as (wb, wh):
        head = wh.rev
        carried = sorted({*wb.carried, *wh.carried})
        if carried:
            events.note(
                "worktrees",
                f"worktrees: carried from the checkout (git ignores them): {', '.join(carried)}",
            )
        runner.sides = {wb.path: "base", wh.path: "head"}
        if opts.patch is None and head != head_sha:
            events.note(
                "worktrees",
                f"verify: {opts.head} does not contain the base {base[:12]}: its change is "
                f"graded merged into the base (merge commit {head[:12]})",
            )
        if head == base:
            raise UsageError("it changes nothing", hint="give a patch with the fix", field="patch")
        grade_under_base_config(git, base, wh.path)
        rounds = opts.runs if exams else 0  # no exam: nothing to run (not the whole suite)
        events.start(
            "exam",
            f"exam: running {len(exams)} sealed exam(s) {rounds}x on the base and the head",
            total=2 * rounds,
        )
        step = events.steps("exam", 2 * rounds)

        def exam_runs(tree: Path, side: str) -> list[PytestRun]:
            runs = []
            for _ in range(rounds):
                step(side)
                runs.append(runner.run(tree, exam_tests))
            return runs

        with sealed_exam_files(wb.path, exams), sealed_exam_files(wh.path, exams):
            base_runs, head_runs = both_sides(
                lambda: exam_runs(wb.path, "base"),
                lambda: exam_runs(wh.path, "head"),
                project.cancel,
            )
        exam_ev = tuple(
            ExamEvidence(
                exam_id=e.id,
                test=e.test,
                path=e.path,
                sealed_signature=e.signature or "",
                base=_observations(base_runs, e.test, wb.path, e.signature),
                head=_observations(head_runs, e.test, wh.path),
                sandbox=_sandbox_findings(head_runs, e.test),
                hidden=e.hidden,
            )
            for e in exams
        )
        regression: RegressionEvidence | None = None
        selected: Selection | None = None
        coverage: coverage_gate.Coverage | None = None
        base_collected: set[str] | None = None
        head_collected: set[str] | None = None
        changed = changed_lines(git.diff(base, head, context=0)) if gates.on else {}
        if gates.coverage_min is not None and not opts.regression:
            coverage = coverage_gate.Coverage(
                gates.coverage_min, measured=False, why="the regression layer did not run"
            )
        tampering = _Tamper(git, base, head, exams)
        if opts.regression:
            ctx = None
            if opts.regression_mode == "selected":
                ctx = SelectionContext(git, base, head, record_key(project, runner, wb))
            lines_dir = tempdirs.make("truegreen-coverage-")
            try:
                measured: dict[str, set[int]] = {}
                extras = None
                if gates.coverage_min is not None:
                    measured = coverage_gate.changed_executable(wh.path, changed)
                    extras = (
                        coverage_gate.extras(wh.path, measured, lines_dir) if measured else None
                    )
                regression, base_view, head_side, selected = regression_layer(
                    runner, wb.path, wh.path, set(exam_tests), events, ctx, extras, tampering.start
                )
                if gates.coverage_min is not None:
                    coverage = coverage_gate.measure(
                        gates.coverage_min, wh.path, measured, lines_dir
                    )
            finally:
                shutil.rmtree(lines_dir, ignore_errors=True)
            base_collected = {_norm(i, wb.path, git.root) for i in base_view.collected}
            if base_view.head_collected is None:
                head_collected = head_side.collected(wh.path, git.root)
            else:
                head_collected = {_norm(i, wb.path, git.root) for i in base_view.head_collected}
        events.start("tamper", "tamper: analysing the change")
        tamper_findings = tampering.findings(base_collected, head_collected)
        events.end("tamper")
        gate_findings = None
        if gates.on:
            found: list[Reason] = []
            if gates.tools:
                events.start("gates", f"gates: {', '.join(gates.tools)} on the changed files")
                found += gate_layer(project, gates.tools, wb.path, wh.path, changed, runner.notes)
                events.end("gates")
            short = coverage.reason() if coverage is not None else None
            if short is not None:
                found.append(short)
            gate_findings = tuple(found)
        strength = None
        passed = all(o.outcome == "passed" for ev in exam_ev for o in ev.head)
        if opts.strength and exams and passed:
            with sealed_exam_files(wh.path, exams):
                strength = strength_layer(runner, git, base, head, wh.path, exam_tests, events)
        change = change_evidence(git, base, head)
    verdict = decide(
        Evidence(
            exams=exam_ev,
            tamper=tamper_findings,
            regression=regression,
            gates=gate_findings,
            strength=strength,
            change=change,
        ),
        policy,
    )
    doc = document(git, base, head, exams, exam_ev, verdict, regression, strength, opts, carried)
    if doc["regression"] is not None and selected is not None:
        doc["regression"]["selection"] = selected.to_json()
    if coverage is not None:
        doc["coverage"] = coverage.to_json()
    doc["notes"] = sorted(runner.notes)
    return doc


def record_key(project: Project, runner: _Runner, base_tree: Worktree) -> str:
    """The cache key of the base's per-test record: the base commit, the interpreter and
    its distributions, the suite's arguments, the sandbox, the environment variables passed
    through, and the git-ignored files carried into the worktree (their content)."""
    import hashlib
    import os

    from truegreen.run.pytest_run import PASS_ENV_VAR
    from truegreen.verify import selection

    carried: dict[str, str | None] = {}
    for name in sorted(base_tree.carried):
        path = base_tree.path / name
        try:
            carried[name] = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            carried[name] = None
    passed = sorted(n.strip() for n in os.environ.get(PASS_ENV_VAR, "").split(",") if n.strip())
    return selection.record_key(
        {
            "base": base_tree.rev,
            "interpreter": str(project.interpreter.path),
            "environment": project.interpreter.fingerprint(),
            "args": list(_suite_args(runner.settings, runner.exclusions)),
            "sandbox": project.sandbox,
            "carried": carried,
            "env": {n: os.environ.get(n) for n in passed},
        }
    )


def document(
    git: GitRepo,
    base: str,
    head: str,
    exams: Sequence[SealedExam],
    exam_ev: Sequence[ExamEvidence],
    verdict: Verdict,
    regression: RegressionEvidence | None,
    strength: StrengthEvidence | None,
    opts: VerifyOptions,
    carried: Sequence[str] = (),
) -> dict[str, Any]:
    return {
        "schema": "truegreen.verification/1",
        "repo": git.display_name(),
        "base": base,
        "head": head,
        "patch_sha256": canonical.sha256_bytes(opts.patch) if opts.patch is not None else None,
        "exams": [
            {
                "id": e.id,
                "test": e.test,
                "sha256": e.sha256,
                "sealed_signature": e.signature,
                "base": _summary(ev.base),
                "head": _summary(ev.head),
            }
            for e, ev in zip(exams, exam_ev, strict=True)
        ],
        "layers": dict(verdict.layers),
        "regression": None
        if regression is None
        else {
            "complete": regression.complete,
            "compared": regression.compared,
            "new_failures": list(regression.new_failures),
            "flaky": list(regression.flaky),
            "failing_on_both": list(regression.failing_on_both),
            "collection_errors": list(regression.collection_errors),
            **(
                {
                    "always_run": {
                        "entries": list(regression.always_run),
                        "tests": regression.always_run_tests,
                    }
                }
                if regression.always_run
                else {}
            ),
        },
        "strength": strength_json(strength, verdict.strength),
        # git-ignored files of the checkout the worktrees got (truegreen.carry)
        "carried": list(carried),
        "verdict": verdict.verdict,
        "decision": verdict.decision,
        "reasons": [f.to_json() for f in verdict.reasons],
        "meaning": VERIFIED_MEANS,
        "truegreen": __version__,
    }


def measure_strength(
    project: Project,
    exams: Sequence[SealedExam],
    base: str,
    head: str,
    *,
    events: Events = QUIET,
) -> dict[str, Any]:
    """``truegreen strength``: how many mutants of the changed lines the exams kill.

    The ``truegreen.strength/1`` document; ``strength`` is null when no mutant of a changed
    line of non-test code could be made, and the exams must pass on the head first."""
    git = project.need_git()
    refuse_another_checkouts_code(project)
    base_sha, head_sha = git.resolve(base, field="base"), git.resolve(head, field="head")
    if base_sha == head_sha:
        raise UsageError(f"it is the same commit as the base ({base_sha[:12]})", field="head")
    settings = graded_settings(git, base_sha)
    runner = _Runner(project, settings)
    tests = [e.test for e in exams]
    carry = carry_for(project, settings, events)
    with git.worktree(head_sha, prefix="truegreen-head-", carry=carry) as wh:
        runner.sides = {wh.path: "head"}
        grade_under_base_config(git, base_sha, wh.path)
        with sealed_exam_files(wh.path, exams):
            # the exams' run that checks they pass is the one that records the lines
            # they execute (one run fewer before the mutants)
            recorded = record_lines(runner, git, base_sha, head_sha, wh.path, tests)
            try:
                first = recorded.run or runner.run(wh.path, tests)
                failing = sorted(t for t in tests if not _passed(first, t))
                strength = None
                if not failing:
                    strength = strength_layer(
                        runner, git, base_sha, head_sha, wh.path, tests, events, recorded
                    )
            finally:
                recorded.release()  # its process may be held for the mutants
    return {
        "schema": "truegreen.strength/1",
        "base": base_sha,
        "head": head_sha,
        "exams": [e.id for e in exams],
        "not_passing_at_head": failing,
        "strength": strength_json(strength, strength_label(strength) if strength else None),
        "notes": sorted(runner.notes),
    }
