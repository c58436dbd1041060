"""A target project as truegreen sees it: its root, interpreter and settings."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from truegreen import carry, config
from truegreen.errors import UsageError
from truegreen.repo.git import Carry, GitRepo
from truegreen.run.executor import Executor
from truegreen.run.interpreter import Interpreter, resolve


@dataclass(frozen=True)
class Project:
    root: Path
    interpreter: Interpreter
    settings: config.Settings
    git: GitRepo | None
    sandbox: str

    def need_git(self) -> GitRepo:
        if self.git is None:
            raise UsageError(
                f"{self.root} is not a git repository",
                hint="this command compares revisions; run it in a git checkout or pass --repo",
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
    notify: Callable[[str], None] | None = None,
) -> Project:
    """Resolve ``--repo``, ``--python`` and ``--sandbox`` into a :class:`Project`."""
    path = Path(repo if repo is not None else ".").expanduser()
    if not path.exists():
        raise UsageError(
            f"--repo {str(path)!r} does not exist", hint="pass the path of the project's repository"
        )
    if not path.is_dir():
        raise UsageError(
            f"--repo {str(path)!r} is not a directory",
            hint="pass the path of the project's repository",
        )
    git: GitRepo | None
    try:
        git = GitRepo.discover(path, executor)
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
        interp = resolve(python, root, executor)
    finally:
        if checker is not None:
            checker.join()
    if chosen is not None and chosen not in config.SANDBOXES:
        raise UsageError(
            f"--sandbox {chosen!r} is not a sandbox",
            hint=f"use one of {', '.join(config.SANDBOXES)}",
        )
    from truegreen.sandbox import get_backend

    backend = get_backend(chosen, notify=notify)
    return Project(root=root, interpreter=interp, settings=settings, git=git, sandbox=backend.name)
