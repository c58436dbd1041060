"""Files a disposable worktree needs from the user's checkout: the ones git ignores that
the project's code imports there.

A worktree holds the revision's tracked files only. What a build wrote and git ignores (a
``_version.py`` from setuptools-scm or hatch-vcs, an extension module built in place, a
generated parser) is missing there, and the tests that import it fail to collect.

Brought without being asked (:func:`found`): untracked, git-ignored modules (``.py``,
``.pyi``, ``.so``, ``.pyd``) that Python imports as the checkout does:

* inside a package (a directory with an ``__init__.py``), whatever puts its parent on
  ``sys.path`` (an editable install, pytest's ``pythonpath``, the repository root under
  ``python -m pytest``, a conftest.py);
* at the top of the project (on ``sys.path`` under ``python -m pytest``);
* under the interpreter's import paths in the checkout (an editable install's ``src/``,
  namespace packages included).

Never test modules or conftest.py files (the suite graded is the revision's), nothing in
``__pycache__`` or inside the interpreter's environment, and nothing inside a directory
git ignores as a whole (virtualenvs, build trees, caches): those are listed as the
directory, not as files. A found file goes only where its directory exists at the
revision.

Named by the configuration (:func:`named`): ``carry = ["src/pkg/grammar/*.json"]``, globs
relative to the project's root, matched against the files git ignores (also inside
ignored directories: a generated ``grammar/``), at most :data:`MAX_NAMED` files; their
directories are made where the revision has none.

Nothing carried ever replaces a file of the revision (:meth:`GitRepo.bring`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from truegreen.errors import ConfigError
from truegreen.repo.git import Carry, GitRepo
from truegreen.run.interpreter import Interpreter
from truegreen.testpaths import is_conftest, is_test_module

#: what :func:`found` brings: importable modules
MODULE_SUFFIXES = (".py", ".pyi", ".so", ".pyd")

#: the most files the configuration's ``carry`` entries may bring: a worktree gets the
#: files the tests need, not a copy of an ignored tree
MAX_NAMED = 1000


def _environment(git: GitRepo, interpreter: Interpreter) -> list[str]:
    """The interpreter's environment directories inside the checkout (a ``.venv``), relative."""
    root = git.root.resolve()
    out = []
    for prefix in {interpreter.prefix, interpreter.base_prefix}:
        path = Path(prefix).resolve()
        if path.is_relative_to(root) and path != root:
            out.append(path.relative_to(root).as_posix())
    return out


def _excluded(rel: str, environment: Sequence[str]) -> bool:
    return "__pycache__" in rel.split("/") or any(rel.startswith(e + "/") for e in environment)


def found(git: GitRepo, interpreter: Interpreter) -> tuple[str, ...]:
    """The git-ignored modules of the checkout its code imports (see the module's doc)."""
    roots = [r.as_posix() for r in interpreter.paths_under(git.root) if r != Path(".")]
    environment = _environment(git, interpreter)
    out = []
    for rel in git.ignored_files():
        if not rel.endswith(MODULE_SUFFIXES) or is_test_module(rel) or is_conftest(rel):
            continue
        if _excluded(rel, environment):
            continue
        parent = rel.rpartition("/")[0]
        if (
            not parent
            or any(rel.startswith(r + "/") for r in roots)
            or (git.root / parent / "__init__.py").is_file()
        ):
            out.append(rel)
    return tuple(sorted(out))


def named(
    git: GitRepo, interpreter: Interpreter, patterns: Sequence[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the git-ignored files the ``carry`` entries match, the entries that match none)."""
    environment = _environment(git, interpreter)
    files: set[str] = set()
    unmatched: list[str] = []
    for pattern in patterns:
        matched = [f for f in git.ignored_matching(pattern) if not _excluded(f, environment)]
        if not matched:
            unmatched.append(pattern)
        files.update(matched)
        if len(files) > MAX_NAMED:
            raise ConfigError(
                f"carry entry {pattern!r} brings the number of files to carry past {MAX_NAMED}",
                hint="name the files the tests need (src/pkg/_version.py, src/pkg/grammar/*.json), "
                "not a directory tree",
            )
    return tuple(sorted(files)), tuple(unmatched)


def plan(git: GitRepo, interpreter: Interpreter, patterns: Sequence[str] = ()) -> Carry:
    """What disposable worktrees of ``git`` get from its checkout."""
    files, unmatched = named(git, interpreter, patterns)
    return Carry(found=found(git, interpreter), named=files, unmatched=unmatched)


_NO_MODULE = re.compile(r"No module named '([\w.]+)'")
_QUOTED_PATH = re.compile(r"'(/[^']+)'")


def missing_file_hint(
    git: GitRepo, interpreter: Interpreter, message: str, tree: Path
) -> str | None:
    """What to do when a run in the worktree ``tree`` failed because a module or file was
    missing (``message`` is its error): name the checkout's file to carry, or say that
    the build must write it first. None when the error is about something else (a
    dependency that is not installed)."""
    module = _NO_MODULE.search(message)
    candidates: list[str] = []
    roots = ["", *(r.as_posix() for r in interpreter.paths_under(git.root)), "src"]
    roots = [r for r in dict.fromkeys("" if r == "." else r for r in roots)]
    if module is not None:
        dotted = module.group(1).replace(".", "/")
        tails = (f"{dotted}.py", f"{dotted}/__init__.py")
        for root in roots:
            candidates += [f"{root}/{tail}" if root else tail for tail in tails]
        # wherever a conftest.py or a .pth put its directory on sys.path
        candidates += [f for f in git.ignored_files() if f.endswith(tuple(f"/{t}" for t in tails))]
    prefix = f"{tree}/"
    candidates += [p[len(prefix) :] for p in _QUOTED_PATH.findall(message) if p.startswith(prefix)]
    for rel in candidates:
        if (git.root / rel).is_file() and not (tree / rel).exists():
            return (
                f"your checkout has {rel}, which the worktree lacks (git ignores it, and truegreen "
                f'brings only the modules it can tell the code imports): add carry = ["{rel}"] to '
                "[tool.truegreen] (docs/runner.md)"
            )
    if module is None:
        return None
    top = module.group(1).split(".")[0]
    if not any(
        (tree / root / top).exists() or (tree / root / f"{top}.py").exists() for root in roots
    ):
        return None  # not the project's own package: a dependency that is not installed
    return (
        f"your checkout has no file for {module.group(1)!r} either: if the project's build writes "
        "it (a _version.py from setuptools-scm or hatch-vcs), build the project in the checkout "
        "(pip install -e .) and run again: truegreen brings such git-ignored modules into its worktrees"
    )
