"""The tamper layer: what a change did to the evidence, found with syntax trees and
pytest's own collection, not line regexes.

``analyze(snap) -> list[Reason]`` reports only what the change *added* (base vs head):
a skip marker or a ``sys.exit`` that was already there is not the change's doing. Every
code is from DESIGN.md's "Tamper layer" list (see docs/tamper.md).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import PurePosixPath

from truegreen.model import reasons as R
from truegreen.model.reasons import Reason
from truegreen.testpaths import is_test_code, is_test_data, is_test_module
from truegreen.verify.tamper import ci, config, source
from truegreen.verify.tamper.names import parse
from truegreen.verify.tamper.snapshot import ChangeSnapshot, ExamRef
from truegreen.verify.tamper.testcode import TestAnalysis

__all__ = ["ChangeSnapshot", "ExamRef", "Reason", "analyze", "source_findings"]

_DOC_SUFFIXES = (".md", ".rst", ".txt.in")
_CONFIG_SUFFIXES = (".toml", ".cfg", ".ini", ".lock", "Makefile", ".in")


def _changed(snap: ChangeSnapshot) -> list[str]:
    # a path listed as changed with equal bytes on both sides is not a change
    return [p for p in snap.changed_paths() if snap.base_files.get(p) != snap.head_files.get(p)]


def _plugins(snap: ChangeSnapshot) -> set[str]:
    """The modules pytest loads as plugins (by the configuration) on either side."""
    return config.plugin_modules(snap, snap.base_files, snap.base_text) | config.plugin_modules(
        snap, snap.head_files, snap.head_text
    )


def _is_source(path: str, plugins: set[str]) -> bool:
    """A Python module of the code under test (not a test, a conftest or a plugin)."""
    return (
        path.endswith(".py")
        and not is_test_code(path)
        and PurePosixPath(path).name != "conftest.py"
        and path not in plugins
    )


def source_findings(snap: ChangeSnapshot) -> dict[str, list[Reason]]:
    """What each changed source module adds (special cases of the exams' inputs, and the
    other source-side cheats of :mod:`.source`): the bulk of the analysis's time, and
    none of it needs pytest's collection, so a verification makes it while its suites run
    and hands it to :func:`analyze`."""
    changed = _changed(snap)
    plugins = _plugins(snap)
    exam_lits = source.exam_literals(snap.exams)
    deleted_src = [
        p for p in changed if p.endswith(".py") and not is_test_code(p) and p not in snap.head_files
    ]
    out: dict[str, list[Reason]] = {}
    for path in changed:
        new = snap.head_text(path)
        if new is None or not _is_source(path, plugins):
            continue
        old = snap.base_text(path)
        olds = [old] if old is not None else [t for p in deleted_src if (t := snap.base_text(p))]
        out[path] = source.added(olds, new, path, exam_lits)
    return out


def analyze(
    snap: ChangeSnapshot, sources: Mapping[str, list[Reason]] | None = None
) -> list[Reason]:
    """Every tamper reason for one change, sorted by file, line and code; ``sources``:
    :func:`source_findings` of the same change, made beforehand."""
    changed = _changed(snap)
    head_tests = [p for p in snap.head_files if is_test_module(p)]
    tests = TestAnalysis(snap, changed, head_tests)
    found: list[Reason] = []
    plugins = _plugins(snap)
    if sources is None:
        sources = source_findings(snap)
    test_strings: dict[str, set[str]] = {}
    for path in changed:
        old, new = snap.base_text(path), snap.head_text(path)
        name = PurePosixPath(path).name
        if name == "conftest.py" or path in plugins:
            found += config.plugin_changes(path, old, new)
        elif path.endswith(".py") and is_test_code(path):
            if old is not None and new is not None:
                tests.compare_file(path)
        elif path.endswith(".py") and new is not None:
            found += sources[path]
        elif old is not None and _is_test_data(snap, path, test_strings):
            found.append(
                Reason(
                    R.TAMPER_TEST_DATA_CHANGED,
                    path,
                    None,
                    f"a data file the tests read was {'deleted' if new is None else 'changed'}",
                )
            )
        found += ci.analyze_ci(path, old, new)
    found += _shadowing(snap, changed)
    found += config.pytest_config(snap)
    found += config.coverage(snap, changed)
    tests.gone_tests()
    tests.exams_edited()
    found += tests.found
    return sorted(set(found), key=lambda r: (r.file or "", r.line or 0, r.code, r.detail))


#: modules that, added to the tree, would be imported instead of pytest or run at start-up
_SHADOWS = (
    "pytest",
    "_pytest",
    "py",
    "pluggy",
    "truegreen_probe",
    "sitecustomize",
    "usercustomize",
)


def _shadowing(snap: ChangeSnapshot, changed: list[str]) -> list[Reason]:
    out: list[Reason] = []
    for path in changed:
        if path in snap.base_files or path not in snap.head_files:
            continue
        parts = PurePosixPath(path).parts
        top = parts[1] if parts[0] == "src" and len(parts) > 1 else parts[0]
        name = PurePosixPath(top).stem if top.endswith(".py") else top
        if path.endswith(".pth") or (
            name in _SHADOWS
            and (top.endswith(".py") or path.endswith("/__init__.py"))
            and (len(parts) <= 2 or parts[0] != "src" or len(parts) <= 3)
        ):
            out.append(
                Reason(
                    R.TAMPER_PYTEST_CONFIG_CHANGED,
                    path,
                    1,
                    f"{path} runs when Python starts"
                    if name in ("sitecustomize", "usercustomize") or path.endswith(".pth")
                    else f"{path} would be imported instead of {name}",
                )
            )
    return out


def _is_test_data(snap: ChangeSnapshot, path: str, strings: dict[str, set[str]]) -> bool:
    """A non-Python file under a test directory, or one a test names."""
    if path.endswith((".py", ".pyc")) or path.endswith(_DOC_SUFFIXES) or "__pycache__" in path:
        return False
    if is_test_data(path):
        return True
    if (
        path.startswith(".")
        or path.endswith(_CONFIG_SUFFIXES)
        or ("/" not in path and path.isupper())
    ):
        return False  # configuration, CI and LICENSE-like files: judged on their own
    base_name = PurePosixPath(path).name
    if len(base_name) < 5:
        return False
    if "all" not in strings:
        found: set[str] = set()
        for p in snap.base_files:
            if is_test_module(p):
                tree = parse(snap.base_text(p))
                found |= {
                    n.value
                    for n in (ast.walk(tree) if tree else [])
                    if isinstance(n, ast.Constant) and isinstance(n.value, str)
                }
        strings["all"] = found
    return any(base_name in s for s in strings["all"])
