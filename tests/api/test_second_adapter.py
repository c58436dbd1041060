"""A second adapter, written as a test: in-process, it imports nothing of truegreen but
``truegreen.api``, and does what an MCP server or a service's worker does: seal, verify,
localize and diagnose with their progress received as events, and cancel one
verification while another, on another thread of the same process, goes on."""

from __future__ import annotations

import ast
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.api.conftest import EXAM, EXAM_TEST, FIXED, exam_file, where
from tests.conftest import git, live_processes_with
from truegreen import api


class Heard:
    """A listener: every event, in the order heard."""

    def __init__(self) -> None:
        self.events: list[api.Event] = []

    def __call__(self, event: api.Event) -> None:
        self.events.append(event)

    def of(self, operation: str) -> list[tuple[str, str, int | None, int | None]]:
        return [(e.layer, e.phase, e.n, e.total) for e in self.events if e.operation == operation]


def test_this_adapter_imports_nothing_of_truegreen_but_the_api() -> None:
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported |= {f"{node.module}.{alias.name}" for alias in node.names}
    assert {name for name in imported if name.startswith("truegreen")} == {"truegreen.api"}


def test_seal_verify_localize_and_diagnose_report_their_progress(
    calc_project: Callable[..., Path], tmp_path: Path
) -> None:
    root = calc_project()
    heard = Heard()
    with api.open_ledger(f"sqlite:///{tmp_path / 'ledger.db'}") as ledger:
        sealed = api.seal(
            api.SealRequest(**where(root), test_id=EXAM_TEST, test_file=exam_file(root), runs=2),
            listener=heard,
            ledger=ledger,
        )
        assert sealed.recorded and sealed.created and sealed.exam.test == EXAM_TEST
        assert heard.of("seal") == [
            ("exam", "start", None, 2),
            ("exam", "step", 1, 2),
            ("exam", "step", 2, 2),
            ("exam", "end", None, None),
        ]
        assert heard.events[0].message == (
            f"sealing {EXAM_TEST}: 2 run(s) at HEAD in a disposable worktree"
        )

        verification = api.verify(
            api.VerifyRequest(
                **where(root), base="main", head="fix", exams=(sealed.exam.id,), runs=2
            ),
            listener=heard,
            ledger=ledger,
        )
    assert (verification.verdict, verification.decision) == ("verified", "approve")
    events = heard.of("verify")
    layers = [layer for layer, phase, _, _ in events if phase == "start"]
    assert layers == ["exam", "regression", "tamper", "strength"]
    # the exam ran 2 times on each side, as 4 steps counted across the two threads
    exam_steps = [e for e in heard.events if e.layer == "exam" and e.phase == "step"]
    exam_steps = [e for e in exam_steps if e.operation == "verify"]
    assert sorted(e.n or 0 for e in exam_steps) == [1, 2, 3, 4]
    assert {e.total for e in exam_steps} == {4}
    assert sorted(e.subject or "" for e in exam_steps) == ["base", "base", "head", "head"]
    mutants = [e for e in heard.events if e.layer == "strength" and e.phase == "step"]
    assert verification.strength is not None
    assert [(e.n, e.total) for e in mutants] == [
        (n, verification.strength.mutants) for n in range(1, verification.strength.mutants + 1)
    ]
    assert all(e.subject and e.subject.startswith("calc.py:") for e in mutants)

    # the failing test in the checkout: localize ranks the subtraction first
    (root / "tests" / "test_exam.py").write_text(EXAM, encoding="utf-8")
    localization = api.localize(
        api.LocalizeRequest(**where(root), test_ids=(EXAM_TEST,)), listener=heard
    )
    assert localization.ranking[0].file == "calc.py" and localization.ranking[0].line == 2
    # the request's default budget reached the engine, and it left nothing out here
    assert localization.to_json()["budget"] == {
        "seconds": 120.0, "durations_reused": False, "left_out_files": [],
        "cut_tests": 0, "cut_files": [],
    }  # fmt: skip
    assert ("trace", "start", None, None) in heard.of("localize")

    run = api.reproduce(api.RunRequest(**where(root), test_ids=(EXAM_TEST,)), listener=heard)
    assert run.not_passed == (EXAM_TEST,) and heard.of("run") == [("run", "step", 1, 1)]
    excerpt = run.run.tests[0].excerpt
    diagnosis = api.diagnose(api.DiagnoseRequest(text=f"{excerpt}\nFAILED {EXAM_TEST}\n"))
    assert diagnosis.failing_tests == [EXAM_TEST]


def _worktrees(root: Path) -> list[str]:
    listed = git(root, "worktree", "list", "--porcelain").splitlines()
    return [line for line in listed if line.startswith("worktree ")]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _pids(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _slow_fix(pids: Path, seconds: int) -> str:
    """The fix, slowed down: ``add`` writes its process's pid to ``pids`` and sleeps."""
    return FIXED.replace(
        "    return a + b",
        "    import os, time\n"
        f"    with open({str(pids)!r}, 'a') as f:\n"
        "        f.write(f'{os.getpid()}\\n')\n"
        f"    time.sleep({seconds})\n"
        "    return a + b",
    )


def test_a_cancel_stops_one_verification_while_another_goes_on(
    calc_project: Callable[..., Path], tmp_path: Path, process_tag: str
) -> None:
    a_pids, b_pids = tmp_path / "a.pids", tmp_path / "b.pids"
    a = calc_project("a", fix=_slow_fix(a_pids, 300))
    b = calc_project("b", fix=_slow_fix(b_pids, 4))
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    exams = {
        root.name: api.seal(
            api.SealRequest(
                **where(root), db=url, test_id=EXAM_TEST, test_file=exam_file(root), runs=1
            )
        ).exam.id
        for root in (a, b)
    }
    cancel_a = api.Cancellation()
    results: dict[str, object] = {}

    def verify(root: Path, cancel: api.Cancellation | None) -> None:
        request = api.VerifyRequest(
            **where(root), db=url, base="main", head="fix", exams=(exams[root.name],), runs=1,
            strength=False,
        )  # fmt: skip
        try:
            results[root.name] = api.verify(request, cancel=cancel)
        except api.ExecutionCancelled as exc:
            results[root.name] = exc

    threads = [
        threading.Thread(target=verify, args=(a, cancel_a)),
        threading.Thread(target=verify, args=(b, None)),
    ]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 120
    while not (_pids(a_pids) and _pids(b_pids)):  # both are running their head's exam
        assert time.monotonic() < deadline and all(t.is_alive() for t in threads), results
        time.sleep(0.05)
    running_a, running_b = _pids(a_pids), _pids(b_pids)
    assert all(_alive(p) for p in running_a + running_b)
    assert cancel_a.running  # a's process trees, held by its token

    started = time.monotonic()
    cancel_a.cancel()
    threads[0].join(timeout=60)
    assert not threads[0].is_alive()
    assert time.monotonic() - started < 30  # killed: it would have slept 300 s
    assert isinstance(results["a"], api.ExecutionCancelled)
    assert not any(_alive(p) for p in running_a)
    assert _worktrees(a) == [f"worktree {a.resolve()}"]  # its worktrees removed
    # b was running when a was cancelled, and goes on to its normal verdict
    threads[1].join(timeout=120)
    verification = results["b"]
    assert isinstance(verification, api.Verification), verification
    assert (verification.verdict, verification.decision) == ("verified", "approve")
    assert _worktrees(b) == [f"worktree {b.resolve()}"]
    time.sleep(0.2)
    assert live_processes_with(process_tag) == []
    # only b's verification entered the ledger
    assert api.repo_identity(a) != api.repo_identity(b)
    recorded = api.list_verifications(api.repo_identity(b), db=url)
    assert [r.verification.head for r in recorded] == [verification.head]
    assert api.list_verifications(api.repo_identity(a), db=url) == []


def test_a_listener_can_cancel_the_call_it_hears(
    calc_project: Callable[..., Path], tmp_path: Path, process_tag: str
) -> None:
    root = calc_project()
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    exam = api.seal(
        api.SealRequest(**where(root), db=url, test_id=EXAM_TEST, test_file=exam_file(root)),
    ).exam
    cancel = api.Cancellation()
    heard = Heard()

    def listener(event: api.Event) -> None:
        heard(event)
        if event.layer == "exam" and event.phase == "step":
            cancel.cancel()  # before the first exam run starts: none of them runs

    request = api.VerifyRequest(**where(root), db=url, base="main", head="fix", exams=(exam.id,))
    with pytest.raises(api.ExecutionCancelled):
        api.verify(request, listener=listener, cancel=cancel)
    assert cancel.cancelled and not cancel.running
    assert ("exam", "start", None, 6) in heard.of("verify")
    assert ("regression", "start", None, None) not in heard.of("verify")
    assert _worktrees(root) == [f"worktree {root.resolve()}"]
    assert live_processes_with(process_tag) == []
    assert api.list_verifications(db=url) == []
    assert os.environ.get("TG_TEST_TAG")  # the tag the processes would have carried
