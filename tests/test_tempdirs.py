"""truegreen's temporary directories and worktrees, named after the process that made them:
removed by a later process once their owner is gone, never while it is alive (many
truegreen processes share one temp dir: xdist workers, parallel CI jobs)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import git
from truegreen import tempdirs
from truegreen.repo.git import GitRepo


@pytest.fixture
def tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temp dir of this test's own, as truegreen's (``tempfile.gettempdir()``)."""
    where = tmp_path / "tmp"
    where.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(where))
    return where


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    """Another live process."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield proc
    proc.kill()
    proc.wait()


def owner_of(pid: int) -> str:
    """The owner part of the directories process ``pid`` would name."""
    start = tempdirs._start_time(pid)
    assert start is not None
    return f"p{pid}.{start:x}.{tempdirs._pid_namespace():x}"


def dead_owner() -> str:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    name = owner_of(proc.pid)
    proc.wait()
    return name


def test_a_directory_is_named_after_its_process_and_lives_while_it_does(tmp: Path) -> None:
    made = tempdirs.make("truegreen-probe-")
    assert made.parent == tmp and made.is_dir()
    assert made.name.startswith(f"truegreen-probe-{tempdirs.owner()}-")
    assert tempdirs.owner().startswith(f"p{os.getpid()}.")
    assert not tempdirs.stale(made.name)
    assert tempdirs.sweep(tmp) == [] and made.is_dir()


def test_only_the_directories_of_owners_that_are_gone_are_removed(tmp: Path, sleeper) -> None:
    dead = dead_owner()
    alive = owner_of(sleeper.pid)
    start = int(alive.split(".")[1], 16)
    reused = alive.replace(f".{start:x}.", f".{start + 1:x}.")  # the pid of another process
    other_ns = f"{alive.rsplit('.', 1)[0]}.{tempdirs._pid_namespace() + 1:x}"
    names = {
        f"truegreen-{dead}-abc123": True,
        f"truegreen-head-{dead}-k_9z": True,
        f"truegreen-probe-{reused}-x1": True,
        f"truegreen-base-{alive}-x2": False,  # alive: never
        f"truegreen-{other_ns}-x3": False,  # a pid of another namespace says nothing here
        "truegreen-oldstyle1": False,  # made before owners were named: cannot be told
        f"other-{dead}-x4": False,  # not truegreen's
    }
    for name in names:
        (tmp / name).mkdir()
        (tmp / name / "file").write_text("x")
    assert {tempdirs.stale(n) for n in names} == {True, False}
    removed = tempdirs.sweep(tmp)
    assert sorted(p.name for p in removed) == sorted(n for n, gone in names.items() if gone)
    assert sorted(p.name for p in tmp.iterdir()) == sorted(n for n, g in names.items() if not g)


def test_the_first_directory_a_process_makes_sweeps_the_dead_ones(tmp: Path, monkeypatch) -> None:
    monkeypatch.setattr(tempdirs, "_swept", set())
    left = tmp / f"truegreen-localize-{dead_owner()}-abc"
    left.mkdir()
    tempdirs.make("truegreen-localize-")
    assert not left.exists()
    again = tmp / f"truegreen-localize-{dead_owner()}-def"
    again.mkdir()
    tempdirs.make("truegreen-localize-")  # once per process: no second listing
    assert again.exists()


def test_a_prefix_that_is_not_truegreens_is_refused(tmp: Path) -> None:
    with pytest.raises(ValueError, match="starts with 'truegreen-'"):
        tempdirs.make("probe-")


def test_worktrees_of_a_dead_process_are_removed_those_of_a_live_one_kept(
    make_project, tmp: Path, sleeper
) -> None:
    root = make_project({"a.py": "x = 1\n"})
    dead = tmp / f"truegreen-head-{dead_owner()}-abc" / "wt"
    locked = tmp / f"truegreen-{dead_owner()}-def" / "wt"
    live = tmp / f"truegreen-base-{owner_of(sleeper.pid)}-ghi" / "wt"
    for path in (dead, locked, live):
        path.parent.mkdir()
        git(root, "worktree", "add", "-q", "--detach", str(path), "HEAD")
    # killed while `git worktree add` checked out: locked, and prune keeps it
    git(root, "worktree", "lock", "--reason", "initializing", str(locked))
    repo = GitRepo.discover(root)
    assert sorted(repo.remove_dead_worktrees()) == sorted([dead.resolve(), locked.resolve()])
    listed = [
        line for line in git(root, "worktree", "list", "--porcelain").splitlines()
        if line.startswith("worktree ")
    ]  # fmt: skip
    assert listed == [f"worktree {root.resolve()}", f"worktree {live.resolve()}"]
    assert not dead.parent.exists() and not locked.parent.exists() and live.is_dir()


def test_a_process_giving_up_removes_its_own_directories_only(tmp: Path, sleeper) -> None:
    mine = [tempdirs.make("truegreen-localize-"), tempdirs.make("truegreen-probe-")]
    (mine[0] / "measured").mkdir()
    (mine[0] / "measured" / "trace.json").write_text("{}")
    # a live process's and a dead one's: not this process's to remove (the dead one's is
    # the sweep's)
    live = tmp / f"truegreen-probe-{owner_of(sleeper.pid)}-abc"
    dead = tmp / f"truegreen-probe-{dead_owner()}-def"
    other = tmp / "not-truegreen-at-all"
    for d in (live, dead, other):
        d.mkdir()
    assert sorted(tempdirs.remove_own(tmp)) == sorted(mine)
    assert not any(d.exists() for d in mine)
    assert live.is_dir() and dead.is_dir() and other.is_dir()
    # nothing of its own left: nothing to do
    assert tempdirs.remove_own(tmp) == []
