from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import git, write_files
from tests.github.fake import RECORDED, FakeGitHub
from truegreen import api
from truegreen.github.auth import TokenAuth
from truegreen.github.client import GitHubClient


class Clock:
    """A clock the tests move by hand (installation tokens expire on it)."""

    def __init__(self, now: float = 1_893_456_000.0) -> None:  # 2030-01-01T00:00:00Z
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def gh() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        yield fake


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def client(gh: FakeGitHub, clock: Clock) -> Iterator[GitHubClient]:
    with GitHubClient(api=gh.url, auth=TokenAuth("ghs_test"), sleep=gh.sleep, clock=clock) as c:
        yield c


# -- a repository whose base holds the exam sealed for issue #12 ---------------------------

PROJECT = {
    "pyproject.toml": """
        [project]
        name = "shop"
        version = "0"

        [tool.pytest.ini_options]
        testpaths = ["tests"]
    """,
    "shop/__init__.py": "",
    "shop/num.py": """
        def clamp(x, lo, hi):
            if x < lo:
                return lo
            if x > hi:
                return lo
            return x
    """,
    "tests/test_num.py": """
        from shop.num import clamp


        def test_inside():
            assert clamp(5, 0, 10) == 5


        def test_below():
            assert clamp(-1, 0, 10) == 0
    """,
}
EXAM_TEST = "tests/test_issue12.py::test_above_is_clamped_to_hi"
EXAM_FILE = """
from shop.num import clamp


def test_above_is_clamped_to_hi():
    assert clamp(11, 0, 10) == 10
"""
FIXED = PROJECT["shop/num.py"].replace(
    "                return lo\n            return x",
    "                return hi\n            return x",
)


def _commit(root: Path, branch: str, files: dict[str, str], message: str) -> None:
    git(root, "checkout", "-q", "-b", branch, "main")
    write_files(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    git(root, "checkout", "-q", "main")


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The repository: main with the exam for #12 committed, and one branch per pull request."""
    where = tmp_path_factory.mktemp("ci")
    root = where / "shop"
    root.mkdir()
    write_files(root, PROJECT)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    (where / "exam.py").write_text(EXAM_FILE, encoding="utf-8")
    sealed = api.seal(
        api.SealRequest(
            repo=root,
            test_id=EXAM_TEST,
            test_file=where / "exam.py",
            runs=1,
            issue="12",
            export=root / ".truegreen" / "exams",
            db=str(where / "seal.db"),
            sandbox="none",
            python=sys.executable,
        )
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Seal the exam for #12")
    _commit(root, "fix", {"shop/num.py": FIXED}, "Clamp to hi above the range")
    _commit(
        root,
        "cheat",
        {
            "tests/test_issue12.py": "def test_above_is_clamped_to_hi():\n    assert True\n",
            "tests/test_num.py": textwrap.dedent(PROJECT["tests/test_num.py"]).replace(
                "def test_below", "import pytest\n\n\n@pytest.mark.skip\ndef test_below"
            ),
        },
        "Make the tests green",
    )
    bundle = f".truegreen/exams/{sealed.exam.id}.json"
    _commit(root, "fix-and-exam", {"shop/num.py": FIXED, bundle: "{}\n"}, "Fix, and drop the exam")
    _commit(root, "docs", {"README.md": "# shop\n"}, "Add a README")
    return root, sealed.exam.id


@pytest.fixture
def repo(template: tuple[Path, str], tmp_path: Path) -> Path:
    dest = tmp_path / "shop"
    shutil.copytree(template[0], dest, symlinks=True)
    return dest


def event(
    repo: Path, tmp_path: Path, branch: str, body: str, *, head_repo: str = "acme/shop"
) -> Path:
    text = (RECORDED / "event_pull_request.json").read_text(encoding="utf-8")
    values = {
        "@TITLE@": f"PR from {branch}",
        "@BODY@": body,
        "@HEAD@": git(repo, "rev-parse", branch),
        "@BASE@": git(repo, "rev-parse", "main"),
        "@HEAD_REPO@": head_repo,
        "@HEAD_OWNER@": head_repo.split("/")[0],
    }
    for k, v in values.items():
        text = text.replace(k, v)
    path = tmp_path / "event.json"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def actions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gh: FakeGitHub) -> dict[str, Path]:
    """The environment a step of a GitHub Actions job gets."""
    files = {"summary": tmp_path / "step_summary.md", "output": tmp_path / "output.txt"}
    for f in files.values():
        f.write_text("", encoding="utf-8")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme/shop")
    monkeypatch.setenv("GITHUB_RUN_ID", "99")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(files["summary"]))
    monkeypatch.setenv("GITHUB_OUTPUT", str(files["output"]))
    monkeypatch.setenv("GITHUB_API_URL", gh.url)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_jobtoken")
    return files
