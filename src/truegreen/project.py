"""A target project as truegreen sees it: its root, interpreter and settings."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from truegreen import carry, config
from truegreen.errors import UsageError
from truegreen.events import QUIET, Events
from truegreen.repo.git import Carry, GitRepo
from truegreen.run.executor import Cancellation, Executor, bound, default_executor
from truegreen.run.interpreter import Interpreter, resolve


@dataclass(frozen=True)
class Project:
    """The project one call works on, and how that call runs things: ``executor`` starts
    every process (bound to ``cancel``, the call's token: see
    :class:`~truegreen.run.executor.Cancellation`)."""

    root: Path
    interpreter: Interpreter
    settings: config.Settings
    git: GitRepo | None
    sandbox: str
    executor: Executor = field(default_factory=default_executor, compare=False)
    cancel: Cancellation = field(default_factory=Cancellation, compare=False)

    def need_git(self) -> GitRepo:
        if self.git is None:
            raise UsageError(
                f"{self.root} is not a git repository",
                hint="this compares revisions: give the path of a git checkout",
                field="repo",
            )
        return self.git

    def carry_plan(self, settings: config.Settings | None = None) -> Carry:
        """What a disposable worktree must get from the checkout to import the project's
        code as the checkout does (:mod:`truegreen.carry`): the git-ignored modules found,
        and the files the ``carry`` entries of ``settings`` (default: the checkout's) name."""
        if self.git is None:
            return Carry()
        return carry.plan(self.git, self.interpreter, (settings or self.settings).carry)


def open_project(
    repo: Path | str | None,
    python: str | None = None,
    sandbox: str | None = None,
    *,
    need_git: bool = False,
    executor: Executor | None = None,
    cancel: Cancellation | None = None,
    events: Events = QUIET,
) -> Project:
    """Resolve the repository, the interpreter and the sandbox into a :class:`Project`
    whose processes run through ``executor`` (default: the real one) bound to ``cancel``
    (default: a token of its own); ``events`` hears of the sandbox chosen."""
    token = cancel if cancel is not None else Cancellation()
    ex = bound(executor if executor is not None else default_executor(), token)
    path = Path(repo if repo is not None else ".").expanduser()
    if not path.exists():
        raise UsageError(
            f"{str(path)!r} does not exist",
            hint="give the path of the project's repository",
            field="repo",
        )
    if not path.is_dir():
        raise UsageError(
            f"{str(path)!r} is not a directory",
            hint="give the path of the project's repository",
            field="repo",
        )
    git: GitRepo | None
    try:
        git = GitRepo.discover(path, ex)
        root = git.root
    except UsageError:
        if need_git:
            raise
        git, root = None, path.resolve()
    settings = config.load(root)
    chosen = sandbox if sandbox is not None else settings.sandbox
    # the sandbox's check (bwrap run once) goes on while the interpreter is asked its facts
    checker: threading.Thread | None = None
    if chosen != "none" and (chosen is None or chosen in config.SANDBOXES):
        from truegreen.sandbox import check_backend

        checker = threading.Thread(target=check_backend, args=(chosen,), daemon=True)
        checker.start()
    try:
        interp = resolve(python, root, ex)
    finally:
        if checker is not None:
            checker.join()
    if chosen is not None and chosen not in config.SANDBOXES:
        raise UsageError(
            f"{chosen!r} is not a sandbox",
            hint=f"use one of {', '.join(config.SANDBOXES)}",
            field="sandbox",
        )
    from truegreen.sandbox import get_backend

    backend = get_backend(chosen, notify=events.notes("sandbox"))
    return Project(
        root=root,
        interpreter=interp,
        settings=settings,
        git=git,
        sandbox=backend.name,
        executor=ex,
        cancel=token,
    )
