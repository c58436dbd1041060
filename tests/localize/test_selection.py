"""Which test files localize runs next to the failing test (spectrum.choose_test_files)."""

from __future__ import annotations

from pathlib import Path

from truegreen.localize.spectrum import choose_test_files
from truegreen.localize.spectrum import test_files as find_test_files


def _chosen(root: Path, files: dict[str, str], under: str, failing: str) -> list[str]:
    """Write ``files`` under ``root``; the test files chosen next to ``failing``."""
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return choose_test_files(root, [failing], find_test_files(root, [under]))


def test_chooses_files_importing_the_modules_the_failing_file_imports(tmp_path: Path) -> None:
    chosen = _chosen(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/core.py": "X = 1\n",
            "pkg/other.py": "Y = 2\n",
            "tests/test_fail.py": "from pkg.core import X\n\ndef test_x():\n    assert X == 2\n",
            # every way an import is written: parenthesised and backslash-continued lists,
            # inside a function, after a statement on the same line
            "tests/test_paren.py": "from pkg.core import (\n    X,  # the value\n)\n",
            "tests/test_backslash.py": "from pkg import \\\n    core\n",
            "tests/test_inner.py": "def test_y():\n    import pkg.core\n",
            "tests/test_semicolon.py": "x = 1; import os\nimport pkg.core as c\n",
            # not an import: a docstring line that reads like one, an import in a string
            "tests/test_doc.py": '"""\nimport pkg.core\n"""\nS = "from pkg.core import X"\n',
            "tests/test_unrelated.py": "from pkg.other import Y\n",
            "tests/test_broken.py": "from pkg.core import X\ndef (:\n",
        },
        "tests",
        "tests/test_fail.py::test_x",
    )
    assert chosen[0] == "tests/test_fail.py"
    assert set(chosen) == {
        "tests/test_fail.py",
        "tests/test_paren.py",
        "tests/test_backslash.py",
        "tests/test_inner.py",
        "tests/test_semicolon.py",
        # a file that does not parse still names its imports
        "tests/test_broken.py",
    }


def test_relative_imports_resolve_from_the_file_s_package(tmp_path: Path) -> None:
    chosen = _chosen(
        tmp_path,
        {
            "src/lib/__init__.py": "",
            "src/lib/a.py": "",
            "src/lib/tests/__init__.py": "",
            "src/lib/tests/test_a.py": "from ..a import f\n",
            "src/lib/tests/test_b.py": "from .. import a\n",
        },
        "src",
        "src/lib/tests/test_a.py::test_f",
    )
    assert chosen == ["src/lib/tests/test_a.py", "src/lib/tests/test_b.py"]


def test_stops_at_max_files(tmp_path: Path) -> None:
    files = {"mod.py": "", "test_0.py": "import mod\n"}
    files.update({f"test_{i}.py": "import mod\n" for i in range(1, 10)})
    for rel, text in files.items():
        (tmp_path / rel).write_text(text, encoding="utf-8")
    chosen = choose_test_files(
        tmp_path, ["test_0.py::t"], find_test_files(tmp_path, ["."]), max_files=4
    )
    assert len(chosen) == 4 and chosen[0] == "test_0.py"
