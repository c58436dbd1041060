"""A target project as truegreen sees it: its root, interpreter and settings."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from truegreen import config
from truegreen.errors import UsageError
from truegreen.repo.git import GitRepo
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
    interp = resolve(python, root, executor)
    chosen = sandbox if sandbox is not None else settings.sandbox
    if chosen is not None and chosen not in config.SANDBOXES:
        raise UsageError(
            f"--sandbox {chosen!r} is not a sandbox",
            hint=f"use one of {', '.join(config.SANDBOXES)}",
        )
    from truegreen.sandbox import get_backend

    backend = get_backend(chosen, notify=notify)
    return Project(root=root, interpreter=interp, settings=settings, git=git, sandbox=backend.name)
