"""A private copy of a working tree, for a second test run beside a first one.

``truegreen localize`` runs the tests twice at once: under its tracer and bare (the check
that measuring changed no outcome). In a sandbox each run sees the checkout read-only,
with its own temporary directories. Without one (``--sandbox none``, and wherever
bubblewrap does not work) both would write into the one checkout, and tests that write
generated files or caches there would see each other's writes. The bare run then gets a
copy of the working tree as it is, uncommitted changes included: what this module makes.

What is left out: version-control metadata (``.git``, ``.hg``, ``.svn``), virtual
environments (a directory holding ``pyvenv.cfg``), and tool caches that a run makes again
(``__pycache__``, ``.pytest_cache``, ``.tox``, ``node_modules`` and the like). Symbolic
links are copied as links; sockets, pipes and devices are left out. A tree over the limits
is not copied (:class:`TreeTooLarge`): the caller runs one after the other instead.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

#: directories never copied: version control and caches a run makes again
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".hypothesis",
        ".tox",
        ".nox",
        "node_modules",
    }
)
MAX_FILES = 20_000
MAX_BYTES = 256 * 1024 * 1024


class TreeTooLarge(Exception):
    """The tree has more files or bytes than the limits allow."""


@dataclass(frozen=True)
class Copied:
    """What :func:`copy_tree` copied."""

    files: int
    bytes: int


def _plan(
    src: Path, max_files: int, max_bytes: int
) -> tuple[list[str], list[tuple[str, int]], list[tuple[str, str]]]:
    """The directories, files (with sizes) and links to copy, as paths relative to
    ``src``; :class:`TreeTooLarge` as soon as a limit is passed."""
    dirs: list[str] = []
    files: list[tuple[str, int]] = []
    links: list[tuple[str, str]] = []
    total = 0
    todo = [""]
    while todo:
        rel = todo.pop()
        with os.scandir(src / rel if rel else src) as it:
            entries = sorted(it, key=lambda e: e.name)
        for entry in entries:
            sub = f"{rel}/{entry.name}" if rel else entry.name
            if entry.is_symlink():
                links.append((sub, os.readlink(entry.path)))
            elif entry.is_dir(follow_symlinks=False):
                if entry.name in SKIPPED_DIRS or os.path.exists(
                    os.path.join(entry.path, "pyvenv.cfg")
                ):
                    continue
                dirs.append(sub)
                todo.append(sub)
            elif entry.is_file(follow_symlinks=False):
                size = entry.stat(follow_symlinks=False).st_size
                files.append((sub, size))
                total += size
                if len(files) > max_files or total > max_bytes:
                    raise TreeTooLarge(
                        f"{src} has over {max_files} files or {max_bytes // (1024 * 1024)} MiB"
                    )
    return dirs, files, links


def copy_tree(
    src: Path, dst: Path, *, max_files: int = MAX_FILES, max_bytes: int = MAX_BYTES
) -> Copied:
    """Copy the working tree ``src`` into ``dst``, which must not exist yet. On any
    failure (:class:`TreeTooLarge`, an ``OSError``) nothing is left at ``dst``."""
    dirs, files, links = _plan(src, max_files, max_bytes)
    dst.mkdir(parents=True)
    try:
        for rel in dirs:
            (dst / rel).mkdir()
        for rel, _size in files:
            # the content and the permission bits (an executable script stays one)
            shutil.copyfile(src / rel, dst / rel)
            shutil.copymode(src / rel, dst / rel)
        for rel, target in links:
            os.symlink(target, dst / rel)
    except BaseException:
        shutil.rmtree(dst, ignore_errors=True)
        raise
    return Copied(files=len(files), bytes=sum(size for _rel, size in files))
