"""truegreen.repo.git.GitRepo on real repositories: revisions, files at a revision, what
changed, diffs, disposable worktrees, ignored files, patches and merges, bad input
included. The user's working tree and index are never touched."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import git, write_files
from truegreen.errors import RepoError, UsageError
from truegreen.repo.git import Carry, ChangedFile, GitRepo

BASE = {
    "pyproject.toml": "[project]\nname = 'p'\n",
    ".gitignore": "_version.py\n.venv/\n*.log\n",
    "app.py": "def double(x):\n    return x * 2\n",
    "tests/test_app.py": "from app import double\n\n\ndef test_double():\n    assert double(2) == 4\n",
    "old_name.py": "VALUE = 1\n" * 5,
    "gone.py": "X = 1\n",
}


def commit(root: Path, message: str, files: dict[str, str | None]) -> str:
    for rel, text in files.items():
        if text is None:
            git(root, "rm", "-q", rel)
        else:
            write_files(root, {rel: text})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


@pytest.fixture
def repo(make_project: Callable[..., Path]) -> tuple[GitRepo, str, str]:
    """A repository with a base commit and a head that modifies, adds, deletes and renames."""
    root = make_project(BASE)
    base = git(root, "rev-parse", "HEAD")
    git(root, "mv", "old_name.py", "new_name.py")
    head = commit(
        root,
        "change",
        {"app.py": "def double(x):\n    return x + x\n", "added.py": "Y = 2\n", "gone.py": None},
    )
    return GitRepo.discover(root), base, head


def status(root: Path) -> str:
    return git(root, "status", "--porcelain", "--ignored")


# -- revisions --------------------------------------------------------------------------
def test_resolve_gives_the_full_sha_of_names_and_abbreviations(repo) -> None:
    g, base, head = repo
    assert g.resolve("HEAD") == head
    assert g.resolve("main") == head
    assert g.resolve(base[:10]) == base
    assert g.resolve("HEAD~1") == base


@pytest.mark.parametrize("rev", ["", "-x", "--all", "no-such-branch", "HEAD~5", "0" * 40])
def test_resolve_refuses_what_is_not_a_commit_naming_it(repo, rev: str) -> None:
    g, _, _ = repo
    with pytest.raises(UsageError) as exc:
        g.resolve(rev)
    assert repr(rev) in exc.value.message
    assert exc.value.hint


def test_a_tree_is_not_a_commit(repo) -> None:
    g, _, head = repo
    tree = git(g.root, "rev-parse", f"{head}^{{tree}}")
    with pytest.raises(UsageError, match="does not exist"):
        g.resolve(tree)


def test_discover_refuses_a_missing_path_a_file_and_a_directory_outside_git(
    tmp_path: Path,
) -> None:
    with pytest.raises(UsageError, match="does not exist"):
        GitRepo.discover(tmp_path / "nowhere")
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(UsageError, match="is not a directory"):
        GitRepo.discover(tmp_path / "f.txt")
    with pytest.raises(UsageError, match="is not a git repository") as exc:
        GitRepo.discover(tmp_path)
    assert exc.value.hint


def test_discover_finds_the_nearest_project_up_to_the_top_level(make_project) -> None:
    root = make_project({"libs/calc/pyproject.toml": "", "libs/calc/pkg/m.py": "A = 1\n"})
    g = GitRepo.discover(root / "libs" / "calc" / "pkg")
    assert (g.root, g.top, g.prefix) == (
        (root / "libs" / "calc").resolve(),
        root.resolve(),
        "libs/calc",
    )
    assert GitRepo.discover(root / "libs").prefix == ""  # no project marker there: the top


def test_a_failing_git_command_is_a_repo_error_naming_it(repo) -> None:
    g, _, _ = repo
    with pytest.raises(RepoError, match="git cat-file -p nope failed: .*nope"):
        g.git("cat-file", "-p", "nope")
    assert g.git("cat-file", "-p", "nope", check=False).returncode != 0


def test_identity_is_the_first_commit_and_a_repository_without_commits_has_none(
    repo, tmp_path: Path
) -> None:
    g, base, _ = repo
    assert g.identity() == base
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    with pytest.raises(UsageError, match="has no commits yet"):
        GitRepo.discover(empty).identity()


def test_display_name_drops_credentials_from_the_origin_url(repo) -> None:
    g, _, _ = repo
    assert g.display_name() == g.top.name
    git(g.root, "remote", "add", "origin", "https://user:token@example.invalid/o/r.git")
    assert g.display_name() == "https://example.invalid/o/r"


# -- files at a revision, what changed, diffs -----------------------------------------
def test_show_gives_bytes_at_a_revision_or_none(repo) -> None:
    g, base, head = repo
    assert g.show(base, "app.py") == b"def double(x):\n    return x * 2\n"
    assert g.show(head, "app.py") == b"def double(x):\n    return x + x\n"
    assert g.show(base, "added.py") is None
    assert g.show(head, "gone.py") is None
    assert g.show(head, "no/such/file.py") is None
    assert g.show_text(head, "added.py") == "Y = 2\n"
    assert g.show_text(base, "added.py") is None


def test_show_keeps_bytes_that_are_not_utf8(make_project) -> None:
    root = make_project({"pyproject.toml": ""})
    (root / "data.bin").write_bytes(b"\xff\x00\xfe")
    head = commit(root, "binary", {})
    assert GitRepo.discover(root).show(head, "data.bin") == b"\xff\x00\xfe"


def test_files_lists_every_tracked_file_at_a_revision(repo) -> None:
    g, base, head = repo
    assert "gone.py" in g.files(base) and "gone.py" not in g.files(head)
    assert g.files(head) == sorted(g.files(head))
    assert {"new_name.py", "added.py", "tests/test_app.py"} <= set(g.files(head))


def test_changed_names_modifications_additions_deletions_and_renames(repo) -> None:
    g, base, head = repo
    assert sorted(g.changed(base, head), key=lambda c: c.path) == [
        ChangedFile("A", "added.py"),
        ChangedFile("M", "app.py"),
        ChangedFile("D", "gone.py"),
        ChangedFile("R", "new_name.py", "old_name.py"),
    ]
    assert g.changed(head, head) == []


def test_diff_with_context_and_paths(repo) -> None:
    g, base, head = repo
    full = g.diff(base, head)
    assert "-    return x * 2\n+    return x + x\n" in full
    assert "added.py" in full
    only_app = g.diff(base, head, "app.py", context=0)
    assert "added.py" not in only_app
    assert "@@ -2 +2 @@" in only_app
    assert g.is_ancestor(base, head) and not g.is_ancestor(head, base)


def test_a_project_in_a_subdirectory_sees_only_its_own_files(make_project) -> None:
    root = make_project({"libs/calc/pyproject.toml": "", "libs/calc/m.py": "A = 1\n", "top.py": ""})
    base = git(root, "rev-parse", "HEAD")
    head = commit(root, "both", {"libs/calc/m.py": "A = 2\n", "top.py": "B = 1\n"})
    g = GitRepo.discover(root / "libs" / "calc")
    assert g.files(head) == ["m.py", "pyproject.toml"]
    assert g.changed(base, head) == [ChangedFile("M", "m.py")]
    assert g.show(head, "m.py") == b"A = 2\n"
    assert "top.py" not in g.diff(base, head)
    assert g.identity() == f"{base}:libs/calc"


# -- worktrees ----------------------------------------------------------------------------
def test_a_worktree_is_the_revision_and_is_gone_afterwards(repo) -> None:
    g, base, head = repo
    (g.root / "app.py").write_text("uncommitted\n")  # the user's work in progress
    before = status(g.root)
    with g.worktree(base) as wt:
        assert wt.rev == base
        assert (wt.path / "app.py").read_text() == BASE["app.py"]
        assert (wt.path / "gone.py").is_file()
        listed = git(g.root, "worktree", "list", "--porcelain")
        assert str(wt.path) in listed
        where = wt.path
    assert not where.exists() and not where.parent.exists()
    assert str(where) not in git(g.root, "worktree", "list", "--porcelain")
    assert status(g.root) == before
    assert (g.root / "app.py").read_text() == "uncommitted\n"
    assert git(g.root, "rev-parse", "HEAD") == head


def test_a_worktree_is_removed_when_the_block_raises(repo) -> None:
    g, _, head = repo
    with pytest.raises(RuntimeError), g.worktree(head) as wt:
        where = wt.path
        raise RuntimeError("boom")
    assert not where.exists()
    assert str(where) not in git(g.root, "worktree", "list", "--porcelain")


def test_a_worktree_whose_removal_fails_is_still_pruned(repo, monkeypatch) -> None:
    g, _, head = repo
    real = g.git
    calls: list[tuple[str, ...]] = []

    def failing_remove(*args: str, **kw):  # `git worktree remove` fails (and does nothing)
        calls.append(args[:2])
        if args[:2] == ("worktree", "remove"):
            return real("worktree", "remove", "--not-an-option", check=False)
        return real(*args, **kw)

    with g.worktree(head) as wt:
        where = wt.path
        monkeypatch.setattr(g, "git", failing_remove)
    assert ("worktree", "prune") in calls and ("worktree", "unlock") in calls
    assert not where.exists()
    assert str(where) not in git(g.root, "worktree", "list", "--porcelain")


def test_a_worktree_removed_at_once_needs_no_prune(repo, monkeypatch) -> None:
    g, _, head = repo
    real = g.git
    calls: list[tuple[str, ...]] = []

    def seen(*args: str, **kw):
        calls.append(args[:2])
        return real(*args, **kw)

    with g.worktree(head) as wt:
        where = wt.path
        monkeypatch.setattr(g, "git", seen)
    assert calls == [("worktree", "remove")]
    assert str(where) not in git(g.root, "worktree", "list", "--porcelain")


def test_a_worktree_of_a_revision_that_does_not_exist_is_refused_before_anything(repo) -> None:
    g, _, _ = repo
    with pytest.raises(UsageError, match="does not exist"), g.worktree("nope"):
        pass
    assert git(g.root, "worktree", "list", "--porcelain").count("worktree ") == 1


def test_a_worktree_gets_the_ignored_files_it_is_given(repo) -> None:
    g, _, head = repo
    (g.root / "_version.py").write_text("__version__ = '1'\n")
    with g.worktree(head, carry=Carry(found=("_version.py",))) as wt:
        assert wt.carried == ("_version.py",)
        assert (wt.path / "_version.py").read_text() == "__version__ = '1'\n"


# -- ignored files --------------------------------------------------------------------------
def test_ignored_files_lists_ignored_files_but_not_wholly_ignored_directories(repo) -> None:
    g, _, _ = repo
    write_files(
        g.root,
        {
            "_version.py": "V = 1\n",
            "tests/run.log": "log\n",
            ".venv/lib/site.py": "x\n",
            "untracked_not_ignored.py": "x\n",
        },
    )
    assert g.ignored_files() == ["_version.py", "tests/run.log"]
    assert g.ignored_files(["tests"]) == ["tests/run.log"]
    assert g.ignored_matching(".venv/**/*.py") == [".venv/lib/site.py"]
    assert g.ignored_matching("*.md") == []


# -- patches and merges -----------------------------------------------------------------------
def test_a_patch_applies_in_a_worktree_and_commits(repo) -> None:
    g, base, head = repo
    patch = g.diff(base, head, "app.py").encode()
    with g.worktree(base) as wt:
        wt.apply_patch(patch)
        sha = wt.commit_all("the patch")
        assert (wt.path / "app.py").read_text() == "def double(x):\n    return x + x\n"
        assert g.show(sha, "app.py") == (wt.path / "app.py").read_bytes()
    assert g.show("HEAD", "app.py") == b"def double(x):\n    return x + x\n"


@pytest.mark.parametrize(
    "patch",
    [
        b"",
        b"not a patch at all\n",
        b"\xff\xfe\x00binary",
        b"--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n-def triple(x):\n+def triple(y):\n     return x * 3\n",
        b"--- a/missing.py\n+++ b/missing.py\n@@ -1 +1 @@\n-a\n+b\n",
    ],
    ids=["empty", "text", "binary", "context-does-not-match", "file-missing"],
)
def test_a_patch_that_does_not_apply_is_a_usage_error_and_changes_nothing(repo, patch) -> None:
    g, base, _ = repo
    with g.worktree(base) as wt:
        with pytest.raises(UsageError) as exc:
            wt.apply_patch(patch)
        assert exc.value.field == "patch"
        assert exc.value.message.startswith(f"it does not apply to {base[:12]}: ")
        assert exc.value.hint is not None and "base" in exc.value.hint
        assert "--" not in exc.value.hint  # no flag names: each adapter names its inputs
        assert git(wt.path, "status", "--porcelain") == ""


FIX = {"app.py": "def double(x):\n    return 2 * x\n"}


def diverged(make_project, on_base: dict[str, str | None]) -> tuple[GitRepo, str, str]:
    """A repository whose main moved on (``on_base``) after a branch ``fix`` (``FIX``)
    was made: (the repository, main's commit, the fix's commit)."""
    root = make_project(BASE)
    base0 = git(root, "rev-parse", "HEAD")
    newer = commit(root, "newer base", on_base)
    git(root, "checkout", "-q", "-b", "fix", base0)
    fix = commit(root, "fix", FIX)
    git(root, "checkout", "-q", "main")
    return GitRepo.discover(root), newer, fix


def test_a_branch_behind_the_base_merges_into_it(make_project) -> None:
    g, newer, fix = diverged(make_project, {"added_on_base.py": "Z = 3\n"})
    with g.worktree(newer) as wt:
        merged = wt.merge(fix)
        assert merged not in (newer, fix)
        assert g.is_ancestor(newer, merged) and g.is_ancestor(fix, merged)
        assert (wt.path / "added_on_base.py").is_file()
        assert "2 * x" in (wt.path / "app.py").read_text()
    assert git(g.root, "rev-parse", "HEAD") == newer  # the checkout is where it was


def test_a_merge_conflict_is_a_usage_error_and_the_worktree_is_left_clean(make_project) -> None:
    g, newer, fix = diverged(make_project, {"app.py": "def double(x):\n    return x << 1\n"})
    with g.worktree(newer) as wt:
        with pytest.raises(UsageError, match="does not merge cleanly") as exc:
            wt.merge(fix)
        assert exc.value.hint and "rebase" in exc.value.hint
        assert git(wt.path, "status", "--porcelain") == ""
        assert git(wt.path, "rev-parse", "HEAD") == newer
    assert status(g.root) == ""
