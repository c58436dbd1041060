"""parse_records: the probe's JSON lines -> outcomes (pure)."""

from __future__ import annotations

from truegreen.run.pytest_run import PROBE_DIR, parse_records


def records(probe: str, *, finish: bool = True) -> list[dict]:
    recs = [
        {"event": "start", "pytest": "9.2.0", "python": "3.11.7", "rootdir": "/r", "probe": probe},
        {"event": "collected", "ids": ["t.py::a", "t.py::b"]},
        {
            "event": "report",
            "nodeid": "t.py::a",
            "when": "setup",
            "outcome": "passed",
            "duration": 0.1,
        },
        {
            "event": "report",
            "nodeid": "t.py::a",
            "when": "call",
            "outcome": "passed",
            "duration": 0.1,
        },
        {
            "event": "report",
            "nodeid": "t.py::a",
            "when": "teardown",
            "outcome": "passed",
            "duration": 0.1,
        },
    ]
    if finish:
        recs.append({"event": "finish", "exitstatus": 0})
    return recs


def parse(recs: list[dict]):
    return parse_records(
        recs, command=("python",), cwd="/r", exit_code=0, timed_out=False, duration=1.0
    )


def test_a_test_that_never_reported_is_no_report():
    run = parse(records(str(PROBE_DIR / "truegreen_probe.py")))
    assert {t.id: t.outcome for t in run.tests} == {"t.py::a": "passed", "t.py::b": "no_report"}
    assert run.complete


def test_without_the_finish_record_nothing_counts_as_a_pass():
    run = parse(records(str(PROBE_DIR / "truegreen_probe.py"), finish=False))
    assert {t.outcome for t in run.tests} == {"no_report"}
    assert not run.complete


def test_a_shadowed_probe_is_not_trusted():
    run = parse(records("/r/truegreen_probe.py"))
    assert not run.complete
    assert {t.outcome for t in run.tests} == {"no_report"}
    assert "shadowed" in run.notes[0]


def test_a_call_that_passed_but_never_finished_teardown_is_no_report():
    recs = records(str(PROBE_DIR / "truegreen_probe.py"))
    recs = [r for r in recs if not (r.get("nodeid") == "t.py::a" and r.get("when") == "teardown")]
    run = parse(recs)
    assert run.by_id()["t.py::a"].outcome == "no_report"


def _requested(recs: list[dict], *ids: str):
    return parse_records(
        recs, command=("python",), cwd="/r", exit_code=0, timed_out=False, duration=1.0,
        requested=ids,
    )  # fmt: skip


def test_a_requested_group_is_its_tests_not_a_test_that_did_not_report():
    # `run t.py::C` (a class) or `t.py::p` (a parametrized function): pytest reports the
    # tests it stands for, never the id itself
    recs = records(str(PROBE_DIR / "truegreen_probe.py"))
    for r in recs:
        if r.get("nodeid") == "t.py::a":
            r["nodeid"] = "t.py::C::a"
        if r.get("event") == "collected":
            r["ids"] = ["t.py::C::a", "t.py::p[1]"]
    recs.insert(-1, {**recs[2], "nodeid": "t.py::p[1]"})
    run = _requested(recs, "t.py::C", "t.py::p", "t.py::gone")
    assert {t.id: t.outcome for t in run.tests} == {
        "t.py::C::a": "passed",
        "t.py::p[1]": "no_report",  # only its setup reported
        "t.py::gone": "no_report",  # a requested test that never reported still counts
    }
