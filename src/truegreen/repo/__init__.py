"""Git: revisions, file snapshots at a revision, diffs and disposable worktrees."""

from truegreen.repo.git import ChangedFile, GitRepo, Worktree

__all__ = ["ChangedFile", "GitRepo", "Worktree"]
