"""The engine API an agent adapter uses: a context's handles expanded, the working
tree's changes (verify_fix grades them), the exams' status and a fixer's task."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git
from truegreen import api
from truegreen.repo.git import GitRepo

SOURCE = "import os\n\n\nclass Box:\n    def get(self, key):\n        value = self.data.get(key)\n        return value.upper()\n\n\ndef other():\n    return 1\n"


def _localization(root: Path) -> api.Localization:
    (root / "box.py").write_text(SOURCE, encoding="utf-8")
    doc: dict[str, Any] = {
        "schema": "truegreen.localization/1",
        "repo": str(root),
        "target": ["tests/test_box.py::test_get"],
        "formula": "ochiai",
        "ranking": [
            {
                "file": "box.py",
                "line": 7,
                "score": "sqrt(1/1)",
                "rank": 1,
                "ties": 1,
                "evidence": ["the crash site"],
            },
        ],
        "values": {
            "origins": [
                {
                    "var": "value",
                    "value": None,
                    "type": "NoneType",
                    "used_at": {"file": "box.py", "line": 7},
                    "assigned_at": {"file": "box.py", "line": 6},
                }
            ],
            "differences": [
                {
                    "file": "box.py",
                    "line": 6,
                    "var": "key",
                    "failing": ["b"],
                    "passing": ["a"],
                    "passing_reached": True,
                }
            ],
        },
        "excerpt": "E   AttributeError: 'NoneType' object has no attribute 'upper'",
        "context": {"files": {}},
    }
    return api.Localization.model_validate(doc)


@pytest.mark.parametrize(
    ("handle", "kind", "shows"),
    [
        (
            "suspect:box.py:7",
            "suspect",
            [
                "rank 1",
                "the crash site",
                "def get(self, key):",
                "> 7 |         return value.upper()",
            ],
        ),
        ("values:box.py:6:key", "values", ['key: failing "b" | passing "a"']),
        ("values:box.py:6", "values", ["key: failing"]),
        ("origin:value", "origin", ['"assigned_at"']),
        ("function:box.py:11", "function", ["def other():", "box.py:10-11"]),
        ("file:box.py:1", "file", [">  1 | import os", " 11 | "]),
        ("excerpt", "excerpt", ["AttributeError"]),
    ],
)
def test_a_handle_expands_to_what_it_names(
    tmp_path: Path, handle: str, kind: str, shows: list[str]
) -> None:
    evidence = api.expand_evidence(_localization(tmp_path), handle)
    assert evidence.kind == kind and evidence.handle == handle
    for text in shows:
        assert text in evidence.text, evidence.text
    assert evidence.to_json()["schema"] == "truegreen.evidence/1"


@pytest.mark.parametrize(
    ("handle", "says"),
    [
        ("bogus", "is not a handle"),
        ("suspect:box.py", "does not name FILE:LINE"),
        ("suspect:box.py:6", "is not a ranked line"),
        ("values:box.py:9:x", "names no value difference"),
        ("origin:nothing", "names no origin"),
        ("file:box.py:99", "names line 99; box.py has 11"),
        ("file:../../etc/passwd:1", "outside the repository"),
        ("file:missing.py:1", "cannot be read"),
    ],
)
def test_an_unknown_handle_is_a_usage_error_about_the_handle(
    tmp_path: Path, handle: str, says: str
) -> None:
    with pytest.raises(api.UsageError) as caught:
        api.expand_evidence(_localization(tmp_path), handle)
    assert caught.value.field == "handle" and says in caught.value.message


def test_the_working_tree_s_changes_leave_the_index_and_the_tree_alone(
    make_project: Callable[..., Path],
) -> None:
    root = make_project({"a.py": "A = 1\n", "b.py": "B = 1\n", ".gitignore": "*.log\n"})
    (root / "a.py").write_text("A = 2\n", encoding="utf-8")
    (root / "new.py").write_text("N = 1\n", encoding="utf-8")
    (root / "run.log").write_text("ignored\n", encoding="utf-8")
    (root / "b.py").unlink()
    status = git(root, "status", "--porcelain")
    assert api.working_tree_changes(root) == ("a.py", "b.py", "new.py")
    patch = GitRepo.discover(root).working_tree_patch("HEAD").decode()
    assert "+A = 2" in patch and "+N = 1" in patch and "deleted file mode" in patch
    assert "run.log" not in patch
    assert git(root, "status", "--porcelain") == status  # index and tree as they were


def test_a_request_for_the_working_tree_takes_neither_a_head_nor_a_patch() -> None:
    assert api.VerifyRequest(working_tree=True).base_rev == "HEAD"
    with pytest.raises(api.UsageError) as caught:
        api.VerifyRequest(working_tree=True, head="fix", base="main")
    assert caught.value.field == "working_tree"


def test_the_project_root_of_a_directory_in_it(make_project: Callable[..., Path]) -> None:
    root = make_project({"pyproject.toml": "[project]\nname = 'p'\n", "tests/test_a.py": ""})
    # from a subdirectory (pytest run in tests/): the project's directory
    assert api.project_root(root / "tests") == root.resolve()
    assert api.project_root(root) == root.resolve()
    # a package of a monorepo with a marker of its own is a project of its own
    (root / "libs" / "calc").mkdir(parents=True)
    (root / "libs" / "calc" / "setup.cfg").write_text("", encoding="utf-8")
    assert api.project_root(root / "libs" / "calc") == (root / "libs" / "calc").resolve()
    with pytest.raises(api.UsageError):
        api.project_root(root.parent)


def test_a_file_at_a_revision_and_the_repository_s_exclude_file(
    make_project: Callable[..., Path],
) -> None:
    root = make_project({"pyproject.toml": "", "libs/calc/setup.cfg": "x = 1\n"})
    assert api.file_at(root, "HEAD", "pyproject.toml") == b""
    assert api.file_at(root, "HEAD", "missing.py") is None
    sub = root / "libs" / "calc"
    assert api.file_at(sub, "HEAD", "setup.cfg") == b"x = 1\n"  # from the project's dir
    assert api.exclude_file(root) == ((root / ".git" / "info" / "exclude").resolve(), "")
    path, prefix = api.exclude_file(sub)
    assert path.resolve() == (root / ".git" / "info" / "exclude").resolve()
    assert prefix == "libs/calc/"
    linked = root.parent / "linked"
    git(root, "worktree", "add", "-q", str(linked))
    # a linked worktree shares the repository's
    assert api.exclude_file(linked)[0].resolve() == (root / ".git" / "info" / "exclude").resolve()
