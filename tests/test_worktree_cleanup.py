"""A disposable worktree leaves nothing behind, even when its creation was cut short."""

from __future__ import annotations

import pytest

from tests.conftest import git
from truegreen.repo.git import GitRepo


def _listed(root) -> list[str]:
    return [
        line
        for line in git(root, "worktree", "list", "--porcelain").splitlines()
        if line.startswith("worktree ")
    ]


def test_a_worktree_still_locked_by_an_interrupted_add_is_removed(make_project):
    """A Ctrl-C while ``git worktree add`` checks out kills it with its worktree locked
    "initializing": one ``--force`` does not remove that, and prune keeps its record."""
    root = make_project({"a.py": "x = 1\n"})
    repo = GitRepo.discover(root)
    with pytest.raises(KeyboardInterrupt), repo.worktree("HEAD") as wt:
        git(root, "worktree", "lock", "--reason", "initializing", str(wt.top_level))
        made = wt.top_level
        raise KeyboardInterrupt
    assert _listed(root) == [f"worktree {root.resolve()}"]
    assert not made.exists() and not made.parent.exists()
