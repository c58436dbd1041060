"""Shared by the localize tests that rank a small fixture project."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from truegreen.localize import LocalizeOptions, localize
from truegreen.project import open_project


def localized(
    make_project: Callable[..., Path],
    files: Mapping[str, str],
    test_id: str,
    *,
    mutants: bool = False,
) -> dict[str, Any]:
    """The localization document of ``test_id`` in a project made of ``files`` (no git, no
    sandbox, this interpreter). Without mutants unless asked: each test that uses this
    checks one kind of evidence (test_mutation.py checks the mutants')."""
    root = make_project(files, use_git=False)
    opts = LocalizeOptions(timeout=60, mutants=mutants)
    return localize(open_project(root, sys.executable, "none"), [test_id], opts)


def ranked_in(doc: Mapping[str, Any], file: str) -> dict[int, dict[str, Any]]:
    """The ranking entries of ``file``, by line."""
    return {r["line"]: r for r in doc["ranking"] if r["file"] == file}


def ranked_by_text(doc: Mapping[str, Any], file: str) -> dict[str, dict[str, Any]]:
    """The ranking entries of ``file``, by their statement's first line stripped (the
    source read from the document's checkout)."""
    lines = (Path(doc["repo"]) / file).read_text().splitlines()
    at = {text.strip(): n for n, text in enumerate(lines, 1)}
    by_line = ranked_in(doc, file)
    return {text: by_line[n] for text, n in at.items() if n in by_line}
