"""What the tamper layer reads: the two trees of a change, the sealed exams, and the node
ids pytest collected on each side."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from truegreen.repo.git import GitRepo


@dataclass(frozen=True)
class ExamRef:
    """A sealed exam: its node id, its file's path and the sealed file's text."""

    test: str
    path: str
    content: str

    @property
    def qualname(self) -> str:
        """``Class::test`` or ``test`` (no parameters)."""
        return self.test.split("::", 1)[1].split("[", 1)[0] if "::" in self.test else ""


class _GitTree(Mapping[str, bytes]):
    """Every file of one revision, each read from git on first use."""

    def __init__(self, repo: GitRepo, rev: str) -> None:
        self._repo, self._rev = repo, rev
        self._paths = frozenset(repo.files(rev))
        self._cache: dict[str, bytes] = {}

    def __getitem__(self, path: str) -> bytes:
        if path not in self._paths:
            raise KeyError(path)
        if path not in self._cache:
            data = self._repo.show(self._rev, path)
            if data is None:
                raise KeyError(path)
            self._cache[path] = data
        return self._cache[path]

    def __contains__(self, path: object) -> bool:
        return path in self._paths

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._paths))

    def __len__(self) -> int:
        return len(self._paths)


@dataclass
class ChangeSnapshot:
    """A change (base -> head) as the tamper layer sees it.

    ``base_files`` / ``head_files`` map every repository-relative path (forward slashes)
    to its bytes; they may be lazy. ``changed`` lists the paths that differ; when None
    it is computed by comparing the two mappings (which reads every file).
    ``base_collected`` / ``head_collected`` are pytest's node ids on each side, with
    worktree paths in parametrize ids already replaced by the repository root; None
    when collection was not available (deleted and renamed tests are then found from
    the syntax trees alone).
    """

    base_files: Mapping[str, bytes]
    head_files: Mapping[str, bytes]
    exams: list[ExamRef] = field(default_factory=list)
    base_collected: set[str] | None = None
    head_collected: set[str] | None = None
    changed: list[str] | None = None

    @classmethod
    def from_git(
        cls,
        repo: GitRepo,
        base_sha: str,
        head_sha: str,
        exams: list[ExamRef] | None = None,
        base_collected: set[str] | None = None,
        head_collected: set[str] | None = None,
    ) -> ChangeSnapshot:
        """Lazy trees of two revisions; only the files the analysis opens are read."""
        changed: set[str] = set()
        for c in repo.changed(base_sha, head_sha):
            changed.add(c.path)
            if c.old_path:
                changed.add(c.old_path)
        return cls(
            _GitTree(repo, base_sha),
            _GitTree(repo, head_sha),
            list(exams or []),
            base_collected,
            head_collected,
            sorted(changed),
        )

    def changed_paths(self) -> list[str]:
        if self.changed is not None:
            return sorted(self.changed)
        paths = set(self.base_files) | set(self.head_files)
        return sorted(p for p in paths if self.base_files.get(p) != self.head_files.get(p))

    def base_text(self, path: str) -> str | None:
        return _text(self.base_files, path)

    def head_text(self, path: str) -> str | None:
        return _text(self.head_files, path)


def _text(files: Mapping[str, bytes], path: str) -> str | None:
    data = files.get(path)
    return None if data is None else data.decode("utf-8", errors="replace")
