"""A small, typed layer over the ``git`` command line.

Every git call goes through :mod:`truegreen.run.executor`. Nothing here writes to the
user's working tree or index: work happens in disposable worktrees under a temporary
directory, removed (and pruned) when the context exits, also on Ctrl-C.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from truegreen import tempdirs
from truegreen.errors import RepoError, UsageError
from truegreen.run.executor import Command, Completed, Executor, default_executor

try:
    import fcntl
except ImportError:  # not POSIX: the threads of this process are kept apart alone
    fcntl = None  # type: ignore[assignment]

_GIT_ENV_KEEP = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")


def _git_env() -> dict[str, str]:
    env = {k: os.environ[k] for k in _GIT_ENV_KEEP if k in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["LC_ALL"] = "C"
    # Deterministic identity for commits truegreen makes in its own worktrees.
    env["GIT_AUTHOR_NAME"] = env["GIT_COMMITTER_NAME"] = "truegreen"
    env["GIT_AUTHOR_EMAIL"] = env["GIT_COMMITTER_EMAIL"] = "truegreen@localhost"
    env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = "2000-01-01T00:00:00+0000"
    return env


@dataclass(frozen=True)
class ChangedFile:
    """One entry of ``git diff --name-status`` between two revisions."""

    status: str  # A, M, D, R (renamed), C, T
    path: str  # the path on the head side (for D: the deleted path)
    old_path: str | None = None  # for R and C: the path on the base side


#: files that make a directory a Python project of its own (pytest's root, truegreen's)
PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "pytest.ini", "tox.ini")

#: (pid, repository) pairs whose dead worktrees this process already looked for
_swept: set[tuple[int, str]] = set()


class GitRepo:
    """A Python project in a git repository: at the repository's top level, or in a
    subdirectory of it (one package of a monorepo, ``libs/calc``).

    ``root`` is the project's directory and ``top`` the repository's. Paths given to and
    returned by these methods are relative to ``root``; a project in a subdirectory sees
    only its own files (a change outside it is not its change)."""

    def __init__(
        self, root: Path, executor: Executor | None = None, top: Path | None = None
    ) -> None:
        self.root = root
        self.top = top or root
        rel = root.relative_to(self.top).as_posix()
        #: the project's directory relative to the top level, ``""`` at the top
        self.prefix = "" if rel == "." else rel
        self._executor = executor or default_executor()

    def _in(self, path: str) -> str:
        """A project-relative path as a path from the top level."""
        return f"{self.prefix}/{path}" if self.prefix else path

    def _out(self, path: str) -> str:
        """A path from the top level as a project-relative path."""
        return path[len(self.prefix) + 1 :] if self.prefix else path

    # -- construction -----------------------------------------------------------------
    @classmethod
    def discover(cls, path: Path | str, executor: Executor | None = None) -> GitRepo:
        """The repository that contains ``path``; a clear :class:`UsageError` otherwise."""
        p = Path(path).expanduser()
        if not p.exists():
            raise UsageError(
                f"{str(path)!r} does not exist",
                hint="give the path of a git repository",
                field="repo",
            )
        if not p.is_dir():
            raise UsageError(
                f"{str(path)!r} is not a directory",
                hint="give the path of a git repository",
                field="repo",
            )
        ex = executor or default_executor()
        done = ex.run(
            Command(
                ("git", "rev-parse", "--show-toplevel"), cwd=p.resolve(), env=_git_env(), timeout=60
            )
        )
        if done.returncode != 0:
            raise UsageError(
                f"{str(path)!r} is not a git repository",
                hint="run truegreen inside a git checkout, or give the path of one",
                field="repo",
            )
        top = Path(done.stdout.strip()).resolve()
        root = p.resolve()
        # the nearest directory from ``path`` up to the top level that is a project
        while root != top and not any((root / m).is_file() for m in PROJECT_MARKERS):
            root = root.parent
        return cls(root, ex, top)

    # -- plumbing ---------------------------------------------------------------------
    def git(
        self,
        *args: str,
        cwd: Path | None = None,
        stdin: bytes | None = None,
        check: bool = True,
        timeout: float = 300,
        cleanup: bool = False,
        index_file: str | None = None,
        binary: bool = False,
    ) -> Completed:
        """Run git; ``cleanup``: the clean-up a cancelled call still owes (it runs anyway);
        ``index_file``: an index of truegreen's own instead of the repository's."""
        env = _git_env()
        if index_file is not None:
            env["GIT_INDEX_FILE"] = index_file
        done = self._executor.run(
            Command(
                ("git", *args),
                cwd=cwd or self.top,
                env=env,
                timeout=timeout,
                stdin=stdin,
                capture_limit=256 * 1024 * 1024,
                cancellable=not cleanup,
                binary=binary,
            )
        )
        if check and done.returncode != 0:
            raise RepoError(
                f"git {' '.join(args[:3])} failed: {done.stderr.strip() or done.stdout.strip()}"
            )
        return done

    def resolve(self, rev: str, *, field: str | None = "rev") -> str:
        """The full commit sha of ``rev``; a :class:`UsageError` naming it when it does not
        exist (about the request's ``field``: the input ``rev`` came from)."""
        if not rev or rev.startswith("-"):
            raise UsageError(
                f"invalid revision {rev!r}", hint="give a commit, branch or tag", field=field
            )
        done = self.git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", check=False)
        if done.returncode != 0:
            raise UsageError(
                f"revision {rev!r} does not exist in {self.root}",
                hint="check the name with `git log --oneline`, or fetch it first",
                field=field,
            )
        return done.stdout.strip()

    def identity(self) -> str:
        """A name for the project that is the same in every clone: the repository's first
        commit, and the project's directory in it when that is not the top level."""
        done = self.git("rev-list", "--max-parents=0", "HEAD", check=False)
        roots = sorted(done.stdout.split())
        if not roots:
            raise UsageError(f"{self.top} has no commits yet", hint="commit the project first")
        return f"{roots[0]}:{self.prefix}" if self.prefix else roots[0]

    def display_name(self) -> str:
        """The origin URL without credentials, else the directory name."""
        done = self.git("config", "--get", "remote.origin.url", check=False)
        url = done.stdout.strip()
        if url:
            if "@" in url and "://" in url:
                scheme, rest = url.split("://", 1)
                url = f"{scheme}://{rest.split('@', 1)[1]}"
            name = url.removesuffix(".git")
        else:
            name = self.top.name
        return f"{name}/{self.prefix}" if self.prefix else name

    def show(self, rev: str, path: str) -> bytes | None:
        """The content of ``path`` at ``rev``, or None when it does not exist there."""
        done = self._executor.run(
            Command(
                ("git", "show", f"{rev}:{self._in(path)}"),
                cwd=self.top,
                env=_git_env(),
                timeout=60,
                capture_limit=256 * 1024 * 1024,
                binary=True,
            )
        )
        if done.returncode != 0:
            return None
        if done.stdout_bytes is None:  # an executor that keeps no bytes (a fake one)
            return done.stdout.encode("utf-8", errors="surrogateescape")
        return done.stdout_bytes

    def show_text(self, rev: str, path: str) -> str | None:
        done = self.git("show", f"{rev}:{self._in(path)}", check=False)
        return done.stdout if done.returncode == 0 else None

    def blame(
        self, path: str, lines: Sequence[tuple[int, int]] = (), timeout: float = 60
    ) -> str | None:
        """``git blame --porcelain`` of ``path`` as it is in the working tree (uncommitted
        lines have the all-zero sha), of the inclusive line ranges ``lines`` only when given
        (faster on a long file); None when git cannot blame it (not tracked)."""
        ranges = [f"-L{lo},{hi}" for lo, hi in lines]
        done = self.git(
            "blame", "--porcelain", *ranges, "--", self._in(path), check=False, timeout=timeout
        )
        return done.stdout if done.returncode == 0 else None

    def files(self, rev: str) -> list[str]:
        """Every file path tracked at ``rev``."""
        done = self.git("ls-tree", "-r", "-z", "--name-only", rev, "--", self.prefix or ".")
        return sorted(self._out(p) for p in done.stdout.split("\0") if p)

    def changed(self, base: str, head: str) -> list[ChangedFile]:
        """Files that differ between two revisions (renames detected)."""
        done = self.git("diff", "--name-status", "-z", "-M", *self._relative(), base, head)
        parts = [p for p in done.stdout.split("\0")]
        out: list[ChangedFile] = []
        i = 0
        while i < len(parts) and parts[i]:
            status = parts[i]
            code = status[0]
            if code in "RC":
                out.append(ChangedFile(code, parts[i + 2], parts[i + 1]))
                i += 3
            else:
                out.append(ChangedFile(code, parts[i + 1]))
                i += 2
        return out

    def numstat(self, base: str, head: str) -> list[tuple[str, int, int]]:
        """(path, lines added, lines removed) of every file that differs between two
        revisions, sorted by path (a binary file counts 0 and 0; no rename detection: a
        renamed file is a removed and an added one)."""
        done = self.git("diff", "--numstat", "-z", "--no-renames", *self._relative(), base, head)
        out = []
        for entry in done.stdout.split("\0"):
            if not entry:
                continue
            added, removed, path = entry.split("\t", 2)
            out.append(
                (
                    self._out(path),
                    int(added) if added != "-" else 0,
                    int(removed) if removed != "-" else 0,
                )
            )
        return sorted(out)

    def is_ancestor(self, ancestor: str, rev: str) -> bool:
        """Whether ``ancestor`` is ``rev`` or one of its ancestors."""
        return self.git("merge-base", "--is-ancestor", ancestor, rev, check=False).returncode == 0

    def diff(self, base: str, head: str, *paths: str, context: int = 3) -> str:
        return self.git(
            "diff", f"-U{context}", *self._relative(), base, head, "--", *map(self._in, paths)
        ).stdout

    def changed_paths(self) -> list[str]:
        """The project's files the working tree changed against HEAD (untracked ones not
        ignored included), relative to the project's directory, sorted."""
        done = self.git("status", "--porcelain", "-z", "--untracked-files=all", "--", ".",
                        cwd=self.root)  # fmt: skip
        out: set[str] = set()
        entries = done.stdout.split("\0")
        i = 0
        while i < len(entries):
            entry = entries[i]
            i += 1
            if len(entry) < 4:
                continue
            if entry[0] in "RC":  # a rename's or copy's source follows it
                i += 1
            path = entry[3:]
            if not self.prefix or path.startswith(self.prefix + "/"):
                out.add(self._out(path))
        return sorted(out)

    def working_tree_patch(self, base: str) -> bytes:
        """The working tree's changes against ``base`` as a binary patch from the
        project's directory (tracked and untracked files, as ``git add -A`` takes them,
        ignored files left out), made through a temporary index: the user's index and
        working tree are not touched."""
        sha = self.resolve(base, field="base")
        where = tempdirs.make("truegreen-index-")
        try:
            env = ("-c", "core.hooksPath=/dev/null")
            index = str(where / "index")
            self.git(*env, "read-tree", sha, index_file=index)
            self.git(*env, "add", "-A", "--", self.prefix or ".", index_file=index)
            done = self.git(
                *env, "diff", "--cached", "--binary", *self._relative(), sha,
                index_file=index, binary=True,
            )  # fmt: skip
        finally:
            shutil.rmtree(where, ignore_errors=True)
        return done.stdout_bytes or b""

    def _relative(self) -> tuple[str, ...]:
        return (f"--relative={self.prefix}",) if self.prefix else ()

    # -- worktrees --------------------------------------------------------------------
    def other_checkouts(self) -> list[Path]:
        """The repository's other working trees (``git worktree add``, the main checkout
        seen from a linked one), each at the project's directory."""
        done = self.git("worktree", "list", "--porcelain", check=False)
        out: list[Path] = []
        for entry in done.stdout.splitlines():
            if not entry.startswith("worktree "):
                continue
            path = Path(entry.removeprefix("worktree ")).resolve()
            if path != self.top.resolve():
                out.append(path / self.prefix if self.prefix else path)
        return out

    def ignored_files(self, under: Sequence[str] = ()) -> list[str]:
        """Untracked, git-ignored files in the checkout under the directories ``under``
        (relative paths; the whole project when empty); a wholly ignored directory (a
        virtualenv, a build tree) is skipped."""
        spec = [self._in(u) for u in under] or [self.prefix or "."]
        return self._ls_ignored("--directory", "--", *spec)

    def ignored_matching(self, pattern: str) -> list[str]:
        """Untracked, git-ignored files in the checkout that the glob ``pattern`` (relative,
        git's pathspec glob: ``*`` within a directory, ``**`` across them) matches, also
        inside wholly ignored directories."""
        return self._ls_ignored("--", f":(glob){self._in(pattern)}")

    def _ls_ignored(self, *args: str) -> list[str]:
        done = self.git(
            "ls-files", "-z", "--others", "--ignored", "--exclude-standard", *args, check=False
        )
        if done.returncode != 0:
            return []
        return sorted(self._out(p) for p in done.stdout.split("\0") if p and not p.endswith("/"))

    def bring(self, tree: Path, carry: Carry) -> tuple[str, ...]:
        """Copy the checkout's files ``carry`` names into ``tree``, a disposable worktree's
        project directory; the ones copied. A file is never copied over anything the
        revision has at its path, nor through a directory that leads out of ``tree``; a
        file found by truegreen only where its directory exists at the revision, one the
        configuration names also where it does not (the directory is made)."""
        inside, checkout = tree.resolve(), self.root.resolve()
        copied: list[str] = []
        named = set(carry.named)
        for rel in carry.files:
            source, target = self.root / rel, tree / rel
            if (
                not source.is_file()
                or not source.resolve().is_relative_to(checkout)  # a link out of the checkout
                or os.path.lexists(target)  # the revision's own file (or link) stays
            ):
                continue
            existing = target.parent
            while not existing.exists():
                existing = existing.parent
            if not existing.resolve().is_relative_to(inside):
                continue  # a tracked symbolic link to a directory elsewhere
            if existing != target.parent and rel not in named:
                continue
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
            except OSError:
                continue  # a file of the revision where a directory would go
            copied.append(rel)
        return tuple(copied)

    def remove_dead_worktrees(self) -> list[Path]:
        """Remove the repository's worktrees left by a truegreen process that is gone (one
        killed with SIGKILL cleans up nothing), with their records: also one still locked
        "initializing" by a ``git worktree add`` it was killed in. Never one whose process
        is alive (:func:`truegreen.tempdirs.stale`). The worktrees removed."""
        done = self.git("worktree", "list", "--porcelain", check=False)
        dead = [
            Path(line.removeprefix("worktree "))
            for line in done.stdout.splitlines()
            if line.startswith("worktree ")
            and tempdirs.stale(Path(line.removeprefix("worktree ")).parent.name)
        ]
        if dead:
            with self._records():
                for path in dead:
                    self.git("worktree", "unlock", str(path), check=False)
                    self.git("worktree", "remove", "--force", "--force", str(path), check=False)
                    shutil.rmtree(path.parent, ignore_errors=True)
                self.git("worktree", "prune", check=False)
        return dead

    @contextlib.contextmanager
    def _records(self) -> Iterator[None]:
        """Held while a worktree is added to or removed from the repository's records,
        by the threads of this process and by other truegreen processes: ``git worktree
        add`` reads every worktree's record, and one half written or half removed by a
        concurrent add or remove made it fail ("failed to read .git/worktrees/wt/commondir",
        "could not create directory of '.git/worktrees/wt'"). The checkouts themselves,
        the slow part, are not held."""
        common = self._common_dir()
        with _thread_lock(common):
            if fcntl is None:
                yield
                return
            try:
                fd = os.open(common / "truegreen-worktrees.lock", os.O_RDWR | os.O_CREAT, 0o644)
            except OSError:  # a repository truegreen cannot write in: its adds fail anyway
                yield
                return
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)  # (releases the lock)

    def _common_dir(self) -> Path:
        """The repository's common git directory (the main checkout's ``.git``, also
        from a linked worktree), asked of git once per repository and process."""
        key = str(self.top)
        if key not in _common_dirs:
            out = self.git("rev-parse", "--git-common-dir").stdout.strip()
            _common_dirs[key] = (self.top / out).resolve()
        return _common_dirs[key]

    @contextlib.contextmanager
    def worktree(
        self, rev: str, *, prefix: str = "truegreen-", carry: Carry | None = None
    ) -> Iterator[Worktree]:
        """A detached worktree of ``rev`` in a temporary directory, removed on exit.

        ``carry``: untracked files of the checkout copied into the worktree (see
        :meth:`bring`): generated modules the project's code imports (a ``_version.py``
        written by setuptools-scm, extension modules built in place)."""
        sha = self.resolve(rev)
        key = (os.getpid(), str(self.top))
        if key not in _swept:  # once per process and repository: one git call
            _swept.add(key)
            self.remove_dead_worktrees()
        parent = tempdirs.make(prefix)
        path = parent / "wt"
        try:
            with self._records():
                self.git("worktree", "add", "--detach", "--no-checkout", "--force", str(path), sha)
            # the checkout, beside other worktrees' (and no post-checkout hook runs)
            self.git("reset", "--hard", "--quiet", cwd=path)
            project = path / self.prefix if self.prefix else path
            carried = self.bring(project, carry) if carry is not None else ()
            yield Worktree(self, project, sha, path, carried)
        finally:
            # twice --force: a worktree whose `git worktree add` was cut short (a Ctrl-C
            # while it checked out) is still locked "initializing", and one --force leaves
            # it; when the removal fails, unlock it too, since prune keeps the record of a
            # locked one (a removal that succeeded left no record: two git calls saved)
            removed = False
            with self._records():
                with contextlib.suppress(Exception):
                    removed = (
                        self.git(
                            "worktree",
                            "remove",
                            "--force",
                            "--force",
                            str(path),
                            check=False,
                            cleanup=True,
                        ).returncode
                        == 0
                    )
                shutil.rmtree(parent, ignore_errors=True)
                if not removed:
                    with contextlib.suppress(Exception):
                        self.git("worktree", "unlock", str(path), check=False, cleanup=True)
                    with contextlib.suppress(Exception):
                        self.git("worktree", "prune", check=False, cleanup=True)


#: a repository's common git directory, by its top level (see GitRepo._common_dir)
_common_dirs: dict[str, Path] = {}
_thread_locks: dict[Path, threading.Lock] = {}
_thread_locks_guard = threading.Lock()


def _thread_lock(common: Path) -> threading.Lock:
    """The lock that keeps this process's threads apart on a repository's worktree
    records (flock alone would not: a descriptor per thread is not guaranteed apart on
    every system)."""
    with _thread_locks_guard:
        return _thread_locks.setdefault(common, threading.Lock())


@dataclass(frozen=True)
class Carry:
    """Untracked files of the checkout that disposable worktrees get (planned by
    :func:`truegreen.carry.plan`), as paths relative to the project's directory."""

    #: found by truegreen (git-ignored modules the code imports)
    found: tuple[str, ...] = ()
    #: named by the configuration's ``carry`` entries
    named: tuple[str, ...] = ()
    #: configuration entries that match no file git ignores in the checkout
    unmatched: tuple[str, ...] = ()

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(sorted({*self.found, *self.named}))


@dataclass(frozen=True)
class Worktree:
    """A disposable checkout of one revision."""

    repo: GitRepo
    #: the project's directory in the worktree
    path: Path
    rev: str
    #: the worktree's top level (``path`` unless the project is in a subdirectory)
    top: Path | None = None
    #: the files copied into it from the checkout (:meth:`GitRepo.bring`)
    carried: tuple[str, ...] = ()

    @property
    def top_level(self) -> Path:
        return self.top or self.path

    def apply_patch(self, patch: bytes) -> None:
        """Apply a unified diff; a :class:`UsageError` when it does not apply. Paths in it
        are from the repository's top level (``git diff``), or from the project's
        directory when it is in a subdirectory (``git diff --relative``)."""
        # as given; then, in a subdirectory project, with the project's directory in front
        tries = [()] + ([(f"--directory={self.repo.prefix}",)] if self.repo.prefix else [])
        failed = []
        for extra in tries:
            done = self.repo.git(
                "apply", "--index", "--whitespace=nowarn", *extra, "-",
                cwd=self.top_level, stdin=patch, check=False,
            )  # fmt: skip
            if done.returncode == 0:
                return
            failed.append(done.stderr.strip())
        why = failed[0].splitlines()[0] if failed[0] else "git apply failed"  # as given
        raise UsageError(
            f"it does not apply to {self.rev[:12]}: {why}",
            hint="make the patch against the base revision (git diff BASE), or give the base "
            "it was made against",
            field="patch",
        )

    def merge(self, rev: str) -> str:
        """Merge ``rev`` into this worktree's revision (a merge commit, as CI tests a pull
        request); returns its sha. A :class:`UsageError` when it does not merge cleanly."""
        top = self.top_level
        done = self.repo.git(
            "merge", "--no-ff", "--no-edit", "--no-verify", "-q", "-m", f"truegreen: merge {rev}", rev,
            cwd=top, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            self.repo.git("merge", "--abort", cwd=top, check=False, cleanup=True)
            raise UsageError(
                f"{rev} does not merge cleanly into {self.rev[:12]}, which it is behind",
                hint="rebase the branch on the base (or give as the base the commit it was "
                "made from)",
                field="head",
            )
        return self.repo.git("rev-parse", "HEAD", cwd=top).stdout.strip()

    def commit_all(self, message: str) -> str:
        """Commit everything in the worktree (used for patches and exam placement); returns the sha."""
        top = self.top_level
        self.repo.git("add", "-A", cwd=top)
        self.repo.git("commit", "-q", "--no-verify", "--allow-empty", "-m", message, cwd=top)
        return self.repo.git("rev-parse", "HEAD", cwd=top).stdout.strip()


def clone_or_fetch(
    url: str,
    dest: Path,
    refspecs: Sequence[str],
    executor: Executor | None = None,
    *,
    timeout: float = 900,
) -> GitRepo:
    """A clone of ``url`` at ``dest``, made once and reused, with ``refspecs`` fetched into
    it (``+refs/pull/7/head:refs/truegreen/pull/7``). A clone that fails leaves nothing."""
    ex = executor or default_executor()
    env = _git_env()

    def run(args: Sequence[str], cwd: Path, what: str) -> None:
        done = ex.run(Command(("git", *args), cwd=cwd, env=env, timeout=timeout))
        if done.returncode != 0:
            detail = done.stderr.strip().splitlines()[-1:] or ["no reason given"]
            raise RepoError(
                f"cannot {what} {url}: {detail[0]}",
                hint="check the repository's URL (TRUEGREEN_CLONE_URL) and that git can read it",
            )

    if not (dest / ".git").is_dir():
        dest.parent.mkdir(parents=True, exist_ok=True)
        partial = dest.with_name(dest.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        try:
            run(("clone", "--quiet", "--", url, str(partial)), dest.parent, "clone")
        except BaseException:
            shutil.rmtree(partial, ignore_errors=True)
            raise
        partial.rename(dest)
    run(("fetch", "--quiet", "--force", "--", url, *refspecs), dest, "fetch from")
    return GitRepo.discover(dest, ex)
