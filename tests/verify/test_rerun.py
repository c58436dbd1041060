"""Reruns of new failures: one pytest process per side, a forked child per rerun
(``_regress/truegreen_repeat.py``), each from the state of a fresh process (issue #38)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.verify.conftest import PY
from truegreen import config
from truegreen.project import open_project
from truegreen.verify.pipeline import FLAKY_RERUNS, _Runner, rerun

# a conftest that counts the pytest processes (one line per configure) and the tests
# that write what they saw
CONFTEST = """
import os
from pathlib import Path

def pytest_configure(config):
    with open(Path(__file__).parent / "configured.txt", "a") as fh:
        fh.write(f"{os.getpid()}\\n")
"""
TESTS = """
import os
import random
from pathlib import Path

HERE = Path(__file__).parent
_seen = []


def test_fresh():
    # a module-level memo: a second run in the same process would see the first's
    _seen.append(1)
    assert len(_seen) == 1


def test_pid_and_random():
    with open(HERE / "seen.txt", "a") as fh:
        fh.write(f"{os.getpid()} {random.random()}\\n")


def test_fails():
    assert False, "always"


def test_flips():
    counter = HERE / "count.txt"
    n = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(n + 1))
    assert n % 2 == 0


def test_dies():
    os._exit(3)
"""


def _runner(root: Path) -> _Runner:
    project = open_project(root, PY, "none")
    return _Runner(project, config.Settings())


def _outcomes(runs: list, test: str) -> list[str]:
    out = []
    for run in runs:
        r = run.outcome_of(test)
        out.append(r.outcome if r is not None else "no_report")
    return out


@pytest.fixture
def project(make_project) -> Path:
    return make_project({"tests/conftest.py": CONFTEST, "tests/test_x.py": TESTS})


def test_reruns_are_children_of_one_process_each_from_a_fresh_state(project: Path) -> None:
    ids = [
        "tests/test_x.py::test_fresh",
        "tests/test_x.py::test_pid_and_random",
        "tests/test_x.py::test_fails",
        "tests/test_x.py::test_flips",
    ]
    runs = rerun(_runner(project), project, ids)
    assert len(runs) == FLAKY_RERUNS == 2
    assert all(run.complete for run in runs)
    # one pytest process: configured once, whatever the number of reruns
    assert len((project / "tests" / "configured.txt").read_text().split()) == 1
    # each rerun starts from the state after collection: the memo is empty each time
    assert _outcomes(runs, "tests/test_x.py::test_fresh") == ["passed", "passed"]
    assert _outcomes(runs, "tests/test_x.py::test_fails") == ["failed", "failed"]
    failed = runs[0].outcome_of("tests/test_x.py::test_fails")
    assert failed is not None and failed.signature and "always" in (failed.message or "")
    # read for its outcome only: no traceback formatted (its frames' source is not read)
    assert "tests/test_x.py:" not in failed.excerpt
    # the order of the runs is kept: the counter flips from one to the next
    assert _outcomes(runs, "tests/test_x.py::test_flips") == ["passed", "failed"]
    # a child process per rerun, and random seeded afresh in each, as in a new interpreter
    seen = [line.split() for line in (project / "tests" / "seen.txt").read_text().splitlines()]
    assert len(seen) == 2
    assert seen[0][0] != seen[1][0] and seen[0][1] != seen[1][1]


def test_a_rerun_that_dies_reports_nothing_and_the_next_still_runs(project: Path) -> None:
    ids = ["tests/test_x.py::test_dies", "tests/test_x.py::test_fails"]
    runs = rerun(_runner(project), project, ids, times=3)
    assert len(runs) == 3
    for run in runs:
        assert not run.complete  # no end of session: never read as a pass
        assert _outcomes([run], "tests/test_x.py::test_dies") == ["no_report"]
        assert _outcomes([run], "tests/test_x.py::test_fails") == ["no_report"]


def test_without_fork_each_rerun_is_a_process_of_its_own(make_project) -> None:
    # a platform without os.fork (the conftest takes it away): pytest's own loop runs
    # the tests once, and the other reruns are processes of their own
    root = make_project(
        {
            "tests/conftest.py": CONFTEST + "\ndel os.fork\n",
            "tests/test_x.py": TESTS,
        }
    )
    ids = ["tests/test_x.py::test_fresh", "tests/test_x.py::test_flips"]
    runs = rerun(_runner(root), root, ids)
    assert len(runs) == 2 and all(run.complete for run in runs)
    assert len((root / "tests" / "configured.txt").read_text().split()) == 2
    assert _outcomes(runs, "tests/test_x.py::test_fresh") == ["passed", "passed"]
    assert _outcomes(runs, "tests/test_x.py::test_flips") == ["passed", "failed"]


def test_an_id_that_does_not_exist_is_refused_as_before(project: Path) -> None:
    from truegreen.run.pytest_run import UnknownTestError

    with pytest.raises(UnknownTestError):
        rerun(_runner(project), project, ["tests/test_x.py::test_nope"])
