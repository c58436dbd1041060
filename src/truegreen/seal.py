"""Sealing an exam: a failing test for a bug, stored before anyone writes the fix.

The test runs N times at a revision, in a disposable worktree (the user's working tree
is never touched). It must fail on every run with one stable signature; anything else
is refused with the reason and its evidence. The exam records the test's file (and the
conftest.py files on its path and the test-local helpers it imports) with their hashes,
the signature, the revision, the interpreter and a fingerprint of the environment, the
exact command and every run's result. Its id is derived from its content.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, Protocol

from truegreen.carry import missing_file_hint
from truegreen.errors import UsageError
from truegreen.events import QUIET, Events
from truegreen.model.exam import ExamFile
from truegreen.project import Project
from truegreen.run.pytest_run import PytestRequest, UnknownTestError, rerun_command, run_pytest
from truegreen.run.results import PytestRun, TestResult
from truegreen.testpaths import is_test_code, test_id_problem


class SealRefused(UsageError):
    """The test cannot be an exam: it passes, is flaky, or errors instead of failing."""

    slug = "seal-refused"

    def __init__(
        self,
        message: str,
        *,
        hint: str | None = None,
        evidence: Sequence[str] = (),
        field: str | None = None,
        suggest: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message, hint=hint, field=field, suggest=suggest)
        self.evidence = tuple(evidence)


def split_test_id(test_id: str) -> tuple[str, str]:
    """``tests/test_x.py::test_y[p]`` -> (``tests/test_x.py``, ``test_y[p]``)."""
    path, sep, name = test_id.partition("::")
    if not sep or not name or not path.endswith(".py"):
        raise UsageError(
            f"{test_id!r} is not a pytest node id",
            hint="give one like tests/test_x.py::test_name (relative to the repository root)",
            field="test_id",
        )
    problem = test_id_problem(test_id)
    if problem is not None:
        raise UsageError(f"{test_id!r}: {problem}", field="test_id")
    return path, name


def conftest_paths(test_path: str) -> list[str]:
    """conftest.py files pytest would load for ``test_path``, outermost first."""
    parts = PurePosixPath(test_path).parts[:-1]
    return [str(PurePosixPath(*parts[:i], "conftest.py")) for i in range(len(parts) + 1)]


def helper_modules(test_path: str, source: str, exists: Any) -> list[str]:
    """Test-local modules the test file imports (files under a test directory, not the
    library under test). ``exists(path) -> bool`` says whether a repo path is a file."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    test_dir = PurePosixPath(test_path).parent
    found: list[str] = []
    for node in ast.walk(tree):
        names: list[tuple[int, str]] = []
        if isinstance(node, ast.Import):
            names = [(0, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            names = [(node.level, base)]
            names += [(node.level, f"{base}.{a.name}" if base else a.name) for a in node.names]
        for level, dotted in names:
            if not dotted:
                continue
            rel = PurePosixPath(*dotted.split("."))
            bases = []
            if level:
                anchor = test_dir
                for _ in range(level - 1):
                    anchor = anchor.parent
                bases.append(anchor)
            else:
                bases += [PurePosixPath("."), test_dir]
            for base_dir in bases:
                for candidate in (base_dir / f"{rel}.py", base_dir / rel / "__init__.py"):
                    c = str(candidate).removeprefix("./")
                    if c != test_path and is_test_code(c) and exists(c) and c not in found:
                        found.append(c)
    return sorted(found)


class FileLike(Protocol):
    @property
    def path(self) -> str: ...
    @property
    def content(self) -> str: ...


def overlay(root: Path, files: Sequence[FileLike]) -> None:
    """Write ``files`` into a worktree, over whatever is at their paths."""
    for f in files:
        target = root / f.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f.content, encoding="utf-8")


def run_repeated(
    project: Project,
    worktree: Path,
    test_ids: Sequence[str],
    runs: int,
    timeout: float | None = None,
    events: Events = QUIET,
) -> tuple[list[PytestRun], PytestRequest]:
    request = PytestRequest(
        repo=worktree,
        interpreter=project.interpreter,
        test_ids=tuple(test_ids),
        args=project.settings.pytest_args,
        timeout=timeout or project.settings.suite_timeout,
        sandbox=project.sandbox,
        grant_workdir=True,  # a disposable worktree
        origin=project.root,
    )
    done: list[PytestRun] = []
    for n in range(1, runs + 1):
        events.step("exam", n, runs, subject=" ".join(test_ids))
        done.append(run_pytest(request, project.executor))
        result = [done[-1].outcome_of(t) for t in test_ids]
        if any(r is not None and r.outcome != "failed" for r in result):
            break  # it cannot be an exam whatever the other runs say: do not wait for them
    return done, request


def judge_seal_runs(
    test_id: str, results: Sequence[TestResult | None], rev: str, timed_out: bool = False
) -> str:
    """The stable signature of a test that failed on every run; :class:`SealRefused` otherwise."""
    short = rev[:12]
    outcomes = [r.outcome if r is not None else "no_report" for r in results]
    n = len(outcomes)
    evidence: list[str] = []
    for i, r in enumerate(results, 1):
        line = f"run {i}: {outcomes[i - 1]}"
        if r is not None and r.signature:
            line += f"  {r.signature}"
        evidence.append(line)
    first_bad = next(
        (r for r in results if r is not None and r.outcome != "failed" and r.excerpt), None
    )
    if first_bad is not None:
        evidence += first_bad.excerpt.splitlines()[-15:]
    failed = outcomes.count("failed")
    if outcomes.count("passed") == n:
        raise SealRefused(
            f"{test_id} passes at {short} ({n} of {n} runs): an exam must fail before the fix",
            hint="check that the test reproduces the bug at this revision, or write one that does",
            field="rev",
            evidence=evidence,
        )
    if "error" in outcomes:
        r = next(r for r in results if r is not None and r.outcome == "error")
        if r.phase == "collect" and r.reason:
            # name the module (or conftest.py) and its error, not just "collection"
            raise SealRefused(
                f"{test_id} cannot run at {short}: {r.reason}",
                hint="fix the import or collection problem so that the test runs and fails on the bug",
                evidence=evidence,
            )
        where = {"collect": "collection", "setup": "setup", "teardown": "teardown"}.get(
            r.phase or "", "setup"
        )
        raise SealRefused(
            f"{test_id} errors in {where} at {short} rather than failing ({r.exc_type or 'error'}): "
            "an exam must fail in the test itself",
            hint="fix the import, fixture or collection problem so that the test runs and fails on the bug",
            evidence=evidence,
        )
    if timed_out and "no_report" in outcomes:
        raise SealRefused(
            f"{test_id} did not finish at {short}: the run passed its deadline (suite-timeout) "
            "and was killed",
            hint="an exam must fail, not hang: give the test a deadline of its own "
            "(@pytest.mark.timeout(N) with pytest-timeout, or run the call in a thread, join "
            "it with a timeout and assert it finished)",
            evidence=evidence,
        )
    if "no_report" in outcomes:
        raise SealRefused(
            f"{test_id} ended without a report at {short} ({outcomes.count('no_report')} of {n} runs): "
            "the process died or timed out",
            hint="an exam must fail with an exception, not exit, crash or hang",
            evidence=evidence,
        )
    if any(o in ("skipped", "xfailed", "xpassed") for o in outcomes):
        kind = next(o for o in outcomes if o in ("skipped", "xfailed", "xpassed"))
        raise SealRefused(
            f"{test_id} is {kind} at {short}: an exam must run and fail",
            hint="remove the skip/xfail marker from the exam",
            evidence=evidence,
        )
    if failed != n:
        raise SealRefused(
            f"{test_id} fails only sometimes at {short} ({failed} of {n} runs failed): a flaky test cannot be an exam",
            hint="make the test deterministic (seed, time, order), then seal it",
            evidence=evidence,
        )
    signatures = sorted({r.signature or "" for r in results if r is not None})
    if len(signatures) != 1 or not signatures[0]:
        raise SealRefused(
            f"{test_id} fails at {short} but not the same way every time ({len(signatures)} signatures)",
            hint="make the failure deterministic, then seal it",
            evidence=evidence + [f"signature: {s}" for s in signatures],
        )
    return signatures[0]


def refuse_another_checkouts_code(project: Project) -> None:
    """Refuse to run when the interpreter imports the project's code from another checkout
    of the same repository (an editable install made in the main checkout, used from a
    linked ``git worktree``): runs here could not redirect it, and would grade that
    checkout's code, not this one's."""
    git = project.git
    if git is None:
        return
    here = git.top.resolve()
    for other in git.other_checkouts():
        for rel in project.interpreter.paths_under(other):
            where = other / rel
            if where == here or here in where.parents:
                continue
            raise UsageError(
                f"{project.interpreter.path} imports this project's code from {where}, in "
                f"another checkout of this repository, not from {project.root}",
                hint="run truegreen in that checkout, or give this checkout its own "
                "environment with an editable install (pip install -e .) and give its "
                "interpreter",
                field="python",
            )


def refuse_a_group(test_id: str, runs: Sequence[PytestRun]) -> None:
    """An id that names several tests (a parametrized function without its case, a class)
    ran them all and reported none under its own id: say so, and name the cases that
    fail, instead of calling it a run that ended without a report."""
    under = sorted(
        {t.id for r in runs for t in r.tests if t.id.startswith((test_id + "[", test_id + "::"))}
    )
    if not under:
        return
    failing = [
        t for t in under if all((res := r.outcome_of(t)) and res.outcome == "failed" for r in runs)
    ]
    hint = (
        f"seal one case: {failing[0]!r}"
        + (f" (or another of the {len(failing)} that fail)" if len(failing) > 1 else "")
        if failing
        else "none of them fails on every run; seal one test that does"
    )
    raise SealRefused(
        f"{test_id} is {len(under)} tests, not one: an exam is one test id",
        hint=hint,
        evidence=[f"fails: {t}" for t in failing[:20]]
        + ([f"... and {len(failing) - 20} more"] if len(failing) > 20 else []),
    )


def _uncommitted_hint(project: Project, path: str, sealed: str | None) -> str | None:
    """When the test file in the user's working tree differs from the copy that was run
    (the revision's), say so: seal never reads uncommitted changes, and a test written
    but not committed is the usual reason an id "does not exist" or "passes"."""
    if sealed is None:
        return None
    try:
        working = (project.root / path).read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    if working == sealed:
        return None
    return (
        f"{path} in your working tree differs from the copy at that revision, and seal runs "
        "the revision: commit the test, or give it as the test file to seal"
    )


def _missing_file_hint(
    project: Project, results: Sequence[TestResult | None], tree: Path
) -> str | None:
    """When the test could not be collected because a module or file is missing in the
    worktree: which file of the checkout to carry, or that the build must write it."""
    failed = next((r for r in results if r is not None and r.phase == "collect"), None)
    if failed is None or project.git is None:
        return None
    message = f"{failed.exc_type}: {failed.message or ''}"
    return missing_file_hint(project.git, project.interpreter, message, tree)


def seal(
    project: Project,
    test_id: str,
    *,
    rev: str = "HEAD",
    test_file: Path | None = None,
    runs: int = 3,
    hidden: bool = False,
    issue: str | None = None,
    events: Events = QUIET,
) -> dict[str, Any]:
    """Run the test ``runs`` times at ``rev`` and return the exam's fields (not yet stored)."""
    events.start(
        "exam",
        f"sealing {test_id}: {runs} run(s) at {rev} in a disposable worktree",
        total=runs,
    )
    git = project.need_git()
    refuse_another_checkouts_code(project)
    if runs < 1:
        raise UsageError(f"must be at least 1, not {runs}", field="runs")
    path, _name = split_test_id(test_id)
    sha = git.resolve(rev)
    content: str
    if test_file is not None:
        if not test_file.is_file():
            raise UsageError(
                f"{str(test_file)!r} does not exist or is not a file",
                hint="give the path of the test file to seal",
                field="test_file",
            )
        try:
            # bytes, not read_text: CRLF must stay CRLF or the hash is not the file's
            content = test_file.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UsageError(f"{str(test_file)!r} is not UTF-8 text", field="test_file") from exc
        try:
            ast.parse(content)
        except SyntaxError as exc:
            raise UsageError(
                f"{str(test_file)!r} is not valid Python: {exc.msg} (line {exc.lineno})",
                field="test_file",
            ) from exc
    else:
        at_rev = git.show_text(sha, path)
        if at_rev is None:
            raise UsageError(
                f"{path} does not exist at {sha[:12]}",
                hint="to seal a test written outside the repository, give its file as the "
                "test file",
                field="test_id",
            )
        content = at_rev
    tracked = set(git.files(sha))
    carry = project.carry_plan()
    with git.worktree(sha, carry=carry) as wt:
        overlay(wt.path, [ExamFile.of(path, content)])

        def exists(p: str) -> bool:
            return (wt.path / p).is_file()

        try:
            results_runs, request = run_repeated(project, wt.path, [test_id], runs, events=events)
        except UnknownTestError as exc:
            uncommitted = _uncommitted_hint(project, path, content if test_file is None else None)
            raise UnknownTestError(
                f"test id {test_id!r} does not exist at {sha[:12]}",
                hint=uncommitted
                or "list the test ids with `python -m pytest --collect-only -q` (ids are "
                "relative to the repository root)",
                field="test_id",
                suggest={"test_file": path} if uncommitted else None,
            ) from exc
        results = [r.outcome_of(test_id) for r in results_runs]
        if all(r is None or r.outcome == "no_report" for r in results):
            refuse_a_group(test_id, results_runs)
        try:
            timed_out = any(r.timed_out for r in results_runs)
            signature = judge_seal_runs(test_id, results, sha, timed_out)
        except SealRefused as exc:
            uncommitted = _uncommitted_hint(project, path, content if test_file is None else None)
            hint = uncommitted or _missing_file_hint(project, results, wt.path)
            if hint is None:
                raise
            raise SealRefused(
                exc.message,
                hint=hint,
                evidence=exc.evidence,
                field=exc.field,
                suggest={"test_file": path} if uncommitted else None,
            ) from exc
        files = [ExamFile.of(path, content)]
        for extra in [*conftest_paths(path), *helper_modules(path, content, exists)]:
            if extra != path and extra in tracked and exists(extra):
                files.append(ExamFile.of(extra, (wt.path / extra).read_bytes()))
    command = rerun_command(request)
    command[0] = "python"  # the exam is portable; the interpreter is recorded apart
    events.end("exam")
    return {
        "test": test_id,
        "files": {f.path: f.content for f in files},
        "rev": sha,
        "repo": git.identity(),
        "signature": signature,
        "hidden": hidden,
        "runs": [
            {"outcome": r.outcome if r else "no_report", "signature": r.signature if r else None}
            for r in results
        ],
        "command": command,
        "environment": {
            **project.interpreter.fingerprint(),
            "interpreter": str(project.interpreter.path),
        },
        "issue": int(issue) if issue is not None and issue.isdigit() else issue,
        # not part of the exam: what the worktree got from the checkout, for the report
        "carried": wt.carried,
        "carry_unmatched": carry.unmatched,
    }
