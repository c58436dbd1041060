"""truegreen.repo.copy: the private copy of a working tree that the bare run of
``truegreen localize`` uses without a sandbox."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from truegreen.repo.copy import Copied, TreeTooLarge, copy_tree


def _tree(root: Path) -> None:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "mod.py").write_text("X = 1  # uncommitted, untracked: copied as it is\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_mod.py").write_text("def test(): pass\n")
    (root / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "run.sh").chmod(0o755)
    (root / "link.py").symlink_to("pkg/mod.py")
    for skipped in (".git", "pkg/__pycache__", ".pytest_cache", ".tox/py311", "node_modules"):
        (root / skipped).mkdir(parents=True)
        (root / skipped / "big.bin").write_bytes(b"x" * 100)
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "env2").mkdir()  # a virtual environment by its marker, whatever its name
    (root / "env2" / "pyvenv.cfg").write_text("home = /usr/bin\n")


def test_the_copy_has_the_working_tree_as_it_is_without_metadata_venvs_or_caches(tmp_path):
    src, dst = tmp_path / "proj", tmp_path / "copy" / "proj"
    _tree(src)
    copied = copy_tree(src, dst)
    got = sorted(str(p.relative_to(dst)) for p in dst.rglob("*"))
    assert got == [
        "link.py",
        "pkg",
        "pkg/__init__.py",
        "pkg/mod.py",
        "run.sh",
        "tests",
        "tests/test_mod.py",
    ]
    assert (dst / "pkg" / "mod.py").read_text() == (src / "pkg" / "mod.py").read_text()
    assert os.readlink(dst / "link.py") == "pkg/mod.py"  # a link stays a link
    assert (dst / "link.py").read_text().startswith("X = 1")
    assert stat.S_IMODE((dst / "run.sh").stat().st_mode) == 0o755
    files = ("pkg/__init__.py", "pkg/mod.py", "run.sh", "tests/test_mod.py")
    assert copied == Copied(files=4, bytes=sum((src / f).stat().st_size for f in files))


def test_a_tree_over_the_limits_is_not_copied_and_nothing_is_left(tmp_path):
    src, dst = tmp_path / "proj", tmp_path / "copy" / "proj"
    _tree(src)
    with pytest.raises(TreeTooLarge, match="over 2 files"):
        copy_tree(src, dst, max_files=2)
    with pytest.raises(TreeTooLarge):
        copy_tree(src, dst, max_bytes=10)
    assert not dst.exists()


def test_a_copy_that_fails_halfway_leaves_nothing(tmp_path, monkeypatch):
    src, dst = tmp_path / "proj", tmp_path / "copy" / "proj"
    _tree(src)
    real = shutil.copyfile
    calls = []

    def copyfile(a, b):
        calls.append(a)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real(a, b)

    monkeypatch.setattr(shutil, "copyfile", copyfile)
    with pytest.raises(OSError, match="No space"):
        copy_tree(src, dst)
    assert len(calls) == 3 and not dst.exists()
    assert (src / "pkg" / "mod.py").exists()  # the tree copied from is untouched


def test_the_destination_must_not_exist(tmp_path):
    src, dst = tmp_path / "proj", tmp_path / "copy" / "proj"
    _tree(src)
    (dst / "mine").mkdir(parents=True)
    with pytest.raises(FileExistsError):
        copy_tree(src, dst)
    assert (dst / "mine").is_dir()  # what was there is not the copy's to remove
