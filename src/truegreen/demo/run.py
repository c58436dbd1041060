"""The demo, as an engine function: build the repository, seal the exam, verify every
candidate fix. Returns rows for the adapter to print."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from truegreen import tempdirs
from truegreen.api import seal_exam, verify_fix
from truegreen.demo.scenario import EXAM_FILE, EXAM_TEST, build, candidates
from truegreen.project import open_project


@dataclass(frozen=True)
class DemoRow:
    branch: str
    title: str
    expected: str
    doc: dict[str, Any]

    @property
    def as_expected(self) -> bool:
        return bool(self.doc["decision"] == self.expected)


@dataclass(frozen=True)
class DemoResult:
    repo: Path
    exam_id: str
    signature: str | None
    rows: list[DemoRow]


def run_demo(
    workdir: Path | None = None,
    *,
    sandbox: str | None = None,
    db_url: str | None = None,
    notify: Callable[[str], None] = lambda _m: None,
    keep: bool = False,
) -> DemoResult:
    """Run the whole loop. The repository and (unless ``db_url``) the ledger live in a
    temporary directory, removed at the end unless ``keep``."""
    tmp = tempdirs.make("truegreen-demo-") if workdir is None else workdir
    root = tmp / "invoicekit"
    try:
        notify(f"building the demo repository in {root}")
        build(root)
        url = db_url or f"sqlite:///{tmp / 'ledger.db'}"
        project = open_project(root, sys.executable, sandbox, need_git=True, notify=notify)
        notify(f"sealing the exam {EXAM_TEST} (it must fail 3 times the same way)")
        sealed = seal_exam(
            project, EXAM_TEST, rev="main", test_file=EXAM_FILE, issue="42", db_url=url
        )
        rows = []
        for cand in candidates():
            notify(f"verifying {cand.branch}: {cand.title}")
            doc = verify_fix(
                project, base="main", head=cand.branch, exam_refs=[sealed.exam.id], db_url=url
            )
            rows.append(DemoRow(cand.branch, cand.title, cand.expected, doc))
        return DemoResult(root, sealed.exam.id, sealed.exam.signature, rows)
    finally:
        if not keep and workdir is None:
            shutil.rmtree(tmp, ignore_errors=True)
