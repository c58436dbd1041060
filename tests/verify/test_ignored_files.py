"""Files git ignores but the project needs (#33): a ``_version.py`` written by
setuptools-scm or hatch-vcs, a generated data file the code reads next to itself.

truegreen's worktrees hold the revision's tracked files only; the checkout's generated,
git-ignored files are brought in (``truegreen.carry``), in flat and src layouts, with the
project installed editable, installed as a copy, or not installed at all. Found on pooch
(flat layout, ``pooch/_version.py`` from setuptools-scm): seal refused every test as an
error in collection unless the package was installed in editable mode.
"""

from __future__ import annotations

import json
import site
import subprocess
import sys
from pathlib import Path

import pytest

from tests.calls import seal_exam, verify_fix
from tests.conftest import cli, git, write_files
from truegreen import carry
from truegreen.errors import ConfigError
from truegreen.project import open_project
from truegreen.repo.git import Carry, GitRepo
from truegreen.report.markdown import render as render_markdown
from truegreen.seal import SealRefused

BUGGY = "def double(x):\n    return x * 3\n"
FIXED = "def double(x):\n    return x * 2\n"
EXAM = "from pkg.core import double\n\n\ndef test_double():\n    assert double(2) == 4\n"
TEST = "tests/test_exam.py::test_double"
VERSION = "version = '1.0'\n"


def make_repo(root: Path, files: dict[str, str]) -> Path:
    write_files(root, files)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root


def version_project(tmp_path: Path, src: str = "", *, pyproject: str = "") -> Path:
    """A package whose ``__init__`` imports a generated ``_version.py`` that git ignores,
    under ``src`` ("" for a flat layout); a branch ``fix`` fixes ``pkg.core``. The checkout
    has the generated file (the build wrote it)."""
    pkg = f"{src}/pkg" if src else "pkg"
    root = make_repo(
        tmp_path / "proj",
        {
            f"{pkg}/__init__.py": "from pkg._version import version as __version__\n",
            f"{pkg}/core.py": BUGGY,
            "tests/test_other.py": "import pkg\n\n\ndef test_version():\n    assert pkg.__version__\n",
            ".gitignore": "_version.py\n.venv/\n__pycache__/\n",
            "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n' + pyproject,
        },
    )
    git(root, "checkout", "-q", "-b", "fix")
    (root / pkg / "core.py").write_text(FIXED)
    git(root, "commit", "-qam", "fix double")
    git(root, "checkout", "-q", "main")
    (root / pkg / "_version.py").write_text(VERSION)
    return root


def venv(tmp_path: Path, *, pth: Path | None = None, copy_of: Path | None = None) -> Path:
    """A virtualenv with the running interpreter's packages (pytest); the project added by
    a .pth line naming ``pth`` (an editable install), or as a copy of the package
    ``copy_of`` in site-packages (a regular install), or not at all."""
    env = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    purelib = next((env / "lib").glob("python3*/site-packages"))
    here = [p for p in site.getsitepackages() if "site-packages" in p]
    (purelib / "_deps.pth").write_text("\n".join(here) + "\n")
    if pth is not None:
        (purelib / "_pkg.pth").write_text(f"{pth}\n")
    if copy_of is not None:
        import shutil

        shutil.copytree(copy_of, purelib / "pkg")
    return env / "bin" / "python"


def seal_and_verify(tmp_path: Path, root: Path, python: Path) -> dict:
    exam_file = tmp_path / "test_exam.py"
    exam_file.write_text(EXAM)
    project = open_project(root, str(python), "none", need_git=True)
    sealed = seal_exam(project, TEST, test_file=exam_file, runs=1)
    doc = verify_fix(
        project, base="main", head="fix", exams=[sealed.exam.id], runs=1, strength=False
    )
    assert git(root, "status", "--porcelain") == ""  # the checkout is untouched
    return {"sealed": sealed, "doc": doc}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("layout", "install"),
    [
        ("flat", "none"),  # the root is on sys.path only through `python -m pytest`
        ("flat", "copy"),  # installed as a copy: the root's package still comes first
        ("flat", "editable"),
        ("src", "pythonpath"),  # not installed: pytest's `pythonpath = ["src"]`
        ("src", "editable"),
    ],
)
def test_a_generated_version_module_is_carried_into_the_worktrees(tmp_path, layout, install):
    src = "src" if layout == "src" else ""
    extra = 'pythonpath = ["src"]\n' if install == "pythonpath" else ""
    root = version_project(tmp_path, src, pyproject=extra)
    pkg = root / src / "pkg" if src else root / "pkg"
    python = {
        "none": lambda: venv(tmp_path),
        "pythonpath": lambda: venv(tmp_path),
        "copy": lambda: venv(tmp_path, copy_of=pkg),
        "editable": lambda: venv(tmp_path, pth=root / src if src else root),
    }[install]()
    got = seal_and_verify(tmp_path, root, python)
    version = f"{src}/pkg/_version.py" if src else "pkg/_version.py"
    assert got["sealed"].carried == (version,)
    doc = got["doc"]
    assert doc["carried"] == [version]
    assert doc["exams"][0]["base"]["outcome"] == "failed"
    assert doc["exams"][0]["head"]["outcome"] == "passed", doc["reasons"]
    assert doc["regression"]["collection_errors"] == []
    assert doc["verdict"] == "verified", doc["reasons"]


@pytest.mark.slow
def test_seal_says_which_module_failed_to_collect_and_that_the_build_writes_it(tmp_path):
    """Never built: the checkout has no ``_version.py`` either."""
    root = version_project(tmp_path)
    (root / "pkg/_version.py").unlink()
    exam_file = tmp_path / "test_exam.py"
    exam_file.write_text(EXAM)
    project = open_project(root, sys.executable, "none", need_git=True)
    with pytest.raises(SealRefused) as err:
        seal_exam(project, TEST, test_file=exam_file, runs=1)
    assert err.value.message.endswith(
        "tests/test_exam.py could not be collected: "
        "ModuleNotFoundError: No module named 'pkg._version'"
    )
    assert "does not exist" not in str(err.value)
    assert "build the project in the checkout (pip install -e .)" in (err.value.hint or "")


@pytest.mark.slow
def test_a_missing_module_truegreen_cannot_tell_is_imported_is_named_to_carry(tmp_path):
    """A module in a directory that is no package, put on sys.path by a conftest.py: not
    carried unasked, and the refusal names the file and the ``carry`` entry to add."""
    root = make_repo(
        tmp_path / "proj",
        {
            "conftest.py": "import sys\nsys.path.insert(0, 'tools')\n",
            "tools/gen/__keep__": "",
            "pkg/__init__.py": "",
            "pkg/core.py": "from gen.table import FACTOR\n\n\ndef double(x):\n    return x * FACTOR\n",
            ".gitignore": "tools/gen/table.py\n",
        },
    )
    (root / "tools/gen/table.py").write_text("FACTOR = 3\n")
    exam_file = tmp_path / "test_exam.py"
    exam_file.write_text(EXAM)
    project = open_project(root, sys.executable, "none", need_git=True)
    with pytest.raises(SealRefused) as err:
        seal_exam(project, TEST, test_file=exam_file, runs=1)
    assert "No module named 'gen.table'" in err.value.message
    assert 'add carry = ["tools/gen/table.py"] to [tool.truegreen]' in (err.value.hint or "")
    # named in the configuration, it is carried and the exam seals
    (root / "truegreen.toml").write_text('carry = ["tools/gen/table.py"]\n')
    project = open_project(root, sys.executable, "none", need_git=True)
    sealed = seal_exam(project, TEST, test_file=exam_file, runs=1)
    assert sealed.carried == ("tools/gen/table.py",)
    assert sealed.exam.runs[0].outcome == "failed"


GRAMMAR_PKG = {
    "pkg/__init__.py": "",
    "pkg/core.py": (
        "import json\nfrom pathlib import Path\n\n"
        "RULES = json.loads((Path(__file__).parent / 'grammar' / 'rules.json').read_text())\n\n\n"
        "def double(x):\n    return x * RULES['factor']\n"
    ),
    ".gitignore": "pkg/grammar/\n",
}


@pytest.mark.slow
def test_a_generated_data_file_is_carried_when_the_configuration_names_it(tmp_path):
    """A generated directory git ignores as a whole is never copied unasked; a ``carry``
    glob brings the files it names (the directory is made in the worktree), and seal and
    verify list them."""
    root = make_repo(tmp_path / "proj", GRAMMAR_PKG)
    git(root, "checkout", "-q", "-b", "fix")
    fixed = GRAMMAR_PKG["pkg/core.py"].replace("x * RULES['factor']", "x * RULES['factor'] - x")
    (root / "pkg/core.py").write_text(fixed)
    git(root, "commit", "-qam", "fix")
    git(root, "checkout", "-q", "main")
    (root / "pkg/grammar").mkdir()
    (root / "pkg/grammar/rules.json").write_text('{"factor": 3}')
    (root / "pkg/grammar/cache.bin").write_text("not named")
    exam_file = tmp_path / "test_exam.py"
    exam_file.write_text(EXAM)
    project = open_project(root, sys.executable, "none", need_git=True)
    assert project.carry_plan().files == ()
    with pytest.raises(SealRefused) as err:
        seal_exam(project, TEST, test_file=exam_file, runs=1)
    assert "FileNotFoundError" in err.value.message
    assert 'add carry = ["pkg/grammar/rules.json"]' in (err.value.hint or "")

    # committed on the base, which verify reads its configuration from (the fix, made
    # before it, is graded merged into the base)
    (root / "pyproject.toml").write_text('[tool.truegreen]\ncarry = ["pkg/grammar/*.json"]\n')
    git(root, "add", "pyproject.toml")
    git(root, "commit", "-qm", "carry the grammar")
    project = open_project(root, sys.executable, "none", need_git=True)
    sealed = seal_exam(project, TEST, test_file=exam_file, runs=1)
    assert sealed.carried == ("pkg/grammar/rules.json",)
    doc = verify_fix(
        project, base="main", head="fix", exams=[sealed.exam.id], runs=1, strength=False
    )
    assert doc["carried"] == ["pkg/grammar/rules.json"]
    assert doc["verdict"] == "verified", doc["reasons"]
    report = render_markdown(doc)
    assert "- carried from the checkout (git ignores them): `pkg/grammar/rules.json`" in report


def test_what_is_carried_unasked_and_what_is_not(tmp_path):
    root = make_repo(
        tmp_path / "proj",
        {
            "pkg/__init__.py": "",
            "pkg/sub/__init__.py": "",
            "notes/readme.txt": "",
            "tests/__init__.py": "",
            ".gitignore": "*.gen.py\n_version.py\n*.so\nbuild/\n.venv/\n__pycache__/\ntest_gen*.py\nconftest.py\nlocal.py\n",
        },
    )
    for rel in [
        "top.gen.py",  # the root: on sys.path under python -m pytest
        "pkg/_version.py",  # in a package
        "pkg/sub/_speedups.so",  # an extension module built in place
        "notes/local.py",  # in a directory that is no package nor an import path
        "build/lib/pkg/_version.py",  # inside an ignored build tree
        ".venv/lib/site-packages/x/_version.py",  # a virtualenv
        "pkg/__pycache__/_version.cpython-311.pyc",
        "tests/test_generated.py",  # test modules are the revision's business
        "tests/conftest.py",
        "pkg/test_gen_cases.py",
    ]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x = 1\n")
    project = open_project(root, sys.executable, "none", need_git=True)
    plan = project.carry_plan()
    assert plan.found == ("pkg/_version.py", "pkg/sub/_speedups.so", "top.gen.py")
    assert plan == project.carry_plan()  # the same checkout, the same plan


def test_a_carried_file_never_replaces_the_revisions_own(tmp_path):
    """The revision tracks the file the checkout has as an ignored, generated one (an older
    revision committed its _version.py): the worktree keeps the revision's."""
    root = make_repo(tmp_path / "proj", {"pkg/__init__.py": "", "pkg/_version.py": "old = 1\n"})
    git(root, "rm", "-q", "--cached", "pkg/_version.py")
    (root / ".gitignore").write_text("_version.py\n")
    git(root, "add", ".gitignore")
    git(root, "commit", "-qm", "generate _version.py")
    (root / "pkg/_version.py").write_text("new = 1\n")
    repo = GitRepo.discover(root)
    plan = Carry(found=("pkg/_version.py",))
    with repo.worktree("HEAD~1", carry=plan) as old, repo.worktree("HEAD", carry=plan) as new:
        assert (old.path / "pkg/_version.py").read_text() == "old = 1\n"
        assert old.carried == ()
        assert (new.path / "pkg/_version.py").read_text() == "new = 1\n"
        assert new.carried == ("pkg/_version.py",)


def test_carrying_never_writes_through_a_link_out_of_the_worktree(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    root = make_repo(tmp_path / "proj", {"pkg/__init__.py": "", ".gitignore": "gen/\n"})
    (root / "pkg/data").symlink_to(outside)
    git(root, "add", "pkg/data")
    git(root, "commit", "-qm", "a link")
    (root / "pkg/data").unlink()
    (root / "pkg/data").mkdir()
    (root / "pkg/data/x.json").write_text("{}")
    repo = GitRepo.discover(root)
    with repo.worktree("HEAD", carry=Carry(named=("pkg/data/x.json",))) as wt:
        assert wt.carried == ()
    assert list(outside.iterdir()) == []


@pytest.mark.slow
def test_a_patch_is_committed_without_the_carried_files(tmp_path):
    """verify --patch: the checkout's files are carried after the patch is committed, so
    the head commit is the patch's alone, even when the revision's .gitignore does not
    ignore them (the rule is only in the checkout)."""
    root = version_project(tmp_path)
    (root / ".gitignore").write_text(".venv/\n__pycache__/\n")
    git(root, "commit", "-qam", "the rule goes")
    (root / ".gitignore").write_text("_version.py\n")  # back, uncommitted: the checkout's only
    patch = git(root, "diff", "main", "fix", "--", "pkg/core.py") + "\n"
    exam_file = tmp_path / "test_exam.py"
    exam_file.write_text(EXAM)
    project = open_project(root, sys.executable, "none", need_git=True)
    sealed = seal_exam(project, TEST, test_file=exam_file, runs=1)
    doc = verify_fix(
        project,
        base="main",
        patch=patch.encode(),
        exams=[sealed.exam.id],
        runs=1,
        strength=False,
    )
    assert doc["carried"] == ["pkg/_version.py"]
    assert doc["verdict"] == "verified", doc["reasons"]
    changed = git(root, "diff", "--name-only", doc["base"], doc["head"])
    assert changed.split() == ["pkg/core.py"]


def test_named_entries_that_match_nothing_are_said_and_too_many_files_refused(
    tmp_path, monkeypatch
):
    root = make_repo(tmp_path / "proj", {"pkg/__init__.py": "", ".gitignore": "gen/\n"})
    (root / "gen").mkdir()
    for i in range(5):
        (root / f"gen/{i}.json").write_text("{}")
    repo = GitRepo.discover(root)
    project = open_project(root, sys.executable, "none", need_git=True)
    files, unmatched = carry.named(repo, project.interpreter, ["gen/*.json", "pkg/nothing.py"])
    assert files == tuple(f"gen/{i}.json" for i in range(5))
    assert unmatched == ("pkg/nothing.py",)
    monkeypatch.setattr(carry, "MAX_NAMED", 3)
    with pytest.raises(ConfigError, match="past 3"):
        carry.named(repo, project.interpreter, ["gen/*.json"])


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"pkg/_version.py"', "carry must be a list of strings"),
        ("[1]", "carry must be a list of strings"),
        (
            '["/etc/passwd"]',
            "carry entry '/etc/passwd' is not a path relative to the repository root",
        ),
        ('["C:/x.py"]', "carry entry 'C:/x.py' is not a path relative to the repository root"),
        (
            '["../other/_version.py"]',
            "carry entry '../other/_version.py' leads out of the repository",
        ),
        ('["pkg/../../x"]', "carry entry 'pkg/../../x' leads out of the repository"),
        ('["./pkg/x.py"]', "carry entry './pkg/x.py' is not a plain path"),
        ('[""]', "carry entry '' is not a path relative to the repository root"),
    ],
)
def test_a_bad_carry_entry_is_an_error_naming_it(make_project, capsys, value, message):
    root = make_project(
        {
            "tests/test_a.py": "def test_a():\n    pass\n",
            "pyproject.toml": f"[tool.truegreen]\ncarry = {value}\n",
        }
    )
    code, out, err = cli(
        capsys, "run", "tests/test_a.py::test_a", "--repo", str(root), "--sandbox", "none",
        "--python", sys.executable,
    )  # fmt: skip
    assert code == 2
    assert out == ""
    assert f"pyproject.toml [tool.truegreen]: {message}" in err
    assert len(err.strip().splitlines()) == 1


def test_seal_json_lists_the_carried_files_on_stderr_only(tmp_path, capsys):
    root = version_project(tmp_path)
    exam_file = tmp_path / "test_exam.py"
    exam_file.write_text(EXAM)
    code, out, err = cli(
        capsys, "seal", TEST, "--test-file", str(exam_file), "--repo", str(root), "--runs", "1",
        "--sandbox", "none", "--python", sys.executable, "--json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["test"] == TEST
    assert "carried from the checkout (git ignores them): pkg/_version.py" in err


@pytest.mark.slow
def test_verify_names_the_file_the_head_cannot_collect_without_its_worktree_path(tmp_path):
    root = version_project(tmp_path)
    git(root, "checkout", "-q", "fix")
    (root / "pkg/core.py").write_text(
        "from pathlib import Path\n\nFACTOR = (Path(__file__).parent / 'factor.txt').read_text()\n"
        + FIXED
    )
    git(root, "commit", "-qam", "read a file nobody wrote")
    git(root, "checkout", "-q", "main")
    exam_file = tmp_path / "test_exam.py"
    exam_file.write_text(EXAM)
    project = open_project(root, sys.executable, "none", need_git=True)
    sealed = seal_exam(project, TEST, test_file=exam_file, runs=1)
    doc = verify_fix(
        project, base="main", head="fix", exams=[sealed.exam.id], runs=1, strength=False
    )
    (reason,) = [r for r in doc["reasons"] if r["code"] == "exam.error_at_head"]
    assert reason["detail"] == (
        f"{TEST} cannot be collected or set up on the head: tests/test_exam.py could not be "
        "collected: FileNotFoundError: [Errno 2] No such file or directory: 'pkg/factor.txt'"
    )
