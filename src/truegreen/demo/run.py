"""The demo, as an engine function: build the repository, seal the exam, verify every
candidate fix. Returns rows for the adapter to print."""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from truegreen import tempdirs
from truegreen.demo.scenario import EXAM_FILE, EXAM_TEST, build, candidates
from truegreen.events import Events, Listener
from truegreen.model.reasons import REGRESSION_FLAKY
from truegreen.model.requests import DemoRequest, SealRequest, VerifyRequest
from truegreen.project import open_project
from truegreen.run.executor import Cancellation, Executor

if TYPE_CHECKING:
    from truegreen.exam.store import Ledger


@dataclass(frozen=True)
class DemoRow:
    branch: str
    title: str
    expected: str
    #: the candidate's truegreen.verification/1 document
    doc: dict[str, Any]

    @property
    def as_expected(self) -> bool:
        """The designed decision, and no test called flaky: the example's suite has none,
        so a flaky one says the runs went wrong (a sandbox that hid a file, say)."""
        flaky = any(r["code"] == REGRESSION_FLAKY for r in self.doc["reasons"])
        return bool(self.doc["decision"] == self.expected) and not flaky


@dataclass(frozen=True)
class DemoResult:
    repo: Path
    exam_id: str
    signature: str | None
    rows: list[DemoRow]


def run_demo(
    request: DemoRequest,
    *,
    listener: Listener | None = None,
    cancel: Cancellation | None = None,
    executor: Executor | None = None,
    ledger: Ledger | None = None,
) -> DemoResult:
    """Run the whole loop through the engine API, as an adapter would. The repository and
    (unless ``request.db`` or ``ledger``) the ledger live in a temporary directory,
    removed at the end unless ``request.keep`` or ``request.workdir``."""
    from truegreen import api

    events = Events("demo", listener)
    token = cancel if cancel is not None else Cancellation()
    workdir = request.workdir
    tmp = tempdirs.make("truegreen-demo-") if workdir is None else workdir
    root = tmp / "invoicekit"
    try:
        events.note("demo", f"building the demo repository in {root}")
        build(root)
        url = request.db or f"sqlite:///{tmp / 'ledger.db'}"
        # the sandbox is chosen (and said) once; every call then names it
        sandbox = open_project(
            root, sys.executable, request.sandbox, need_git=True, events=events
        ).sandbox
        where: dict[str, Any] = {
            "repo": root,
            "python": sys.executable,
            "sandbox": sandbox,
            "db": url,
        }
        lg = api.open_ledger(url) if ledger is None else ledger
        try:
            events.note("demo", f"sealing the exam {EXAM_TEST} (it must fail 3 times the same way)")
            sealed = api.seal(
                SealRequest(
                    **where, test_id=EXAM_TEST, rev="main", test_file=EXAM_FILE, issue="42"
                ),
                listener=listener,
                cancel=token,
                executor=executor,
                ledger=lg,
            )
            rows = []
            for cand in candidates():
                events.note("demo", f"verifying {cand.branch}: {cand.title}")
                verification = api.verify(
                    VerifyRequest(**where, base="main", head=cand.branch, exams=(sealed.exam.id,)),
                    listener=listener,
                    cancel=token,
                    executor=executor,
                    ledger=lg,
                )
                rows.append(DemoRow(cand.branch, cand.title, cand.expected, verification.to_json()))
        finally:
            if ledger is None:
                lg.close()
        return DemoResult(root, sealed.exam.id, sealed.exam.signature, rows)
    finally:
        if not request.keep and workdir is None:
            shutil.rmtree(tmp, ignore_errors=True)
