"""Regression selection (issue #38): the base's per-test record, what a change selects from
it, and what sends the whole suite."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import git, modern_python, write_files
from truegreen.repo.git import GitRepo
from truegreen.verify import selection
from truegreen.verify.selection import Plan, Record, plan

SOURCE = {
    "pkg/__init__.py": "",
    "pkg/calc.py": """
        LIMIT = 10


        def add(a, b):
            return a + b


        def sub(a, b):
            return a - b


        class Box:
            def size(self):
                return 1

            @property
            def label(self):
                return "box"
        """,
    "pkg/data.txt": "1\n",
    "pkg/unread.txt": "0\n",
    "tests/test_calc.py": """
        from pkg.calc import add, sub


        def test_add():
            assert add(1, 2) == 3


        def test_sub():
            assert sub(3, 2) == 1
        """,
    "tests/test_other.py": "def test_other():\n    assert True\n",
    "conftest.py": "",
}

#: functions as the recorder names them: file, first line, last line, qualified name
CODES = [
    ["pkg/calc.py", 4, 5, "add"],
    ["pkg/calc.py", 8, 9, "sub"],
    ["pkg/calc.py", 13, 14, "Box.size"],
    ["pkg/calc.py", 16, 18, "Box.label"],
]


def _record(**tests: dict[str, Any]) -> Record:
    """A record whose tests ran what ``tests`` says (by code index); every test passed
    unless its entry says ``outcome``."""
    ids = {
        "add": "tests/test_calc.py::test_add",
        "sub": "tests/test_calc.py::test_sub",
        "other": "tests/test_other.py::test_other",
    }
    doc: dict[str, Any] = {
        "codes": CODES,
        "tests": {},
        "fixtures": tests.pop("fixtures", {}),
        "session": tests.pop("session", {}),
    }
    outcomes = {}
    for short, nodeid in ids.items():
        entry = dict(tests.get(short, {}))
        outcomes[nodeid] = entry.pop("outcome", "passed")
        doc["tests"][nodeid] = entry
    return Record.from_plugin(doc, outcomes, ids.values(), ())


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, GitRepo]:
    root = tmp_path / "proj"
    root.mkdir()
    write_files(root, SOURCE)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    return root, GitRepo(root)


def _change(root: Path, edits: dict[str, str | None]) -> str:
    git(root, "checkout", "-q", "-B", "head", "main")
    for rel, text in edits.items():
        if text is None:
            (root / rel).unlink()
        else:
            write_files(root, {rel: text})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "change")
    return git(root, "rev-parse", "HEAD")


def _plan(repo: tuple[Path, GitRepo], edits: dict[str, str | None], record: Record) -> Plan:
    root, g = repo
    head = _change(root, edits)
    return plan(g, git(root, "rev-parse", "main"), head, record)


def _calc(old: str, new: str) -> dict[str, str | None]:
    from textwrap import dedent

    text = dedent(SOURCE["pkg/calc.py"]).lstrip("\n")
    assert old in text
    return {"pkg/calc.py": text.replace(old, new)}


RAN = {"add": {"codes": [0]}, "sub": {"codes": [1]}}


def test_a_changed_function_selects_the_tests_that_ran_it(repo):
    chosen = _plan(repo, _calc("return a - b", "return a - b - 0"), _record(**RAN))
    assert not chosen.full
    assert chosen.ids == {"tests/test_calc.py::test_sub"}
    assert chosen.why == {"ran a changed function": 1}


def test_a_function_only_a_broad_fixture_ran_selects_the_fixtures_users(repo):
    record = _record(
        add={"fixtures": ["db"]},
        other={"fixtures": ["db"]},
        fixtures={"db": {"codes": [1]}},
    )
    chosen = _plan(repo, _calc("return a - b", "return b - a"), record)
    assert chosen.ids == {"tests/test_calc.py::test_add", "tests/test_other.py::test_other"}


def test_a_method_changed_selects_by_its_qualified_name(repo):
    record = _record(other={"codes": [2]}, add={"codes": [3]})
    chosen = _plan(repo, _calc("return 1", "return 2"), record)
    assert chosen.ids == {"tests/test_other.py::test_other"}


@pytest.mark.parametrize(
    ("edits", "why"),
    [
        (_calc("LIMIT = 10", "LIMIT = 11"), "module- or class-level code changed"),
        (_calc("    @property\n", ""), "decorators"),
        ({"conftest.py": "X = 1\n"}, "conftest.py"),
        ({"pyproject.toml": "[project]\nname = 'x'\n"}, "configuration, dependencies"),
        ({"requirements.txt": "attrs\n"}, "configuration, dependencies"),
        ({"pkg/fast.c": "int x;\n"}, "extension code"),
        ({"pkg/calc.py": None}, "removed or renamed"),
        ({"pkg/calc.py": "def add(:\n"}, "does not parse on the head"),
        (_calc("def sub(a, b):", "def add2(a, b):\n    return 0\n\n\ndef sub(a, b):"), None),
        (_calc("def sub(a, b):", "def size(a, b):\n    return 0\n\n\ndef sub(a, b):"), "already"),
    ],
    ids=[
        "module-level",
        "decorator",
        "conftest",
        "pyproject",
        "requirements",
        "extension",
        "module-removed",
        "syntax-error",
        "new-function-new-name",
        "new-function-used-name",
    ],
)
def test_what_the_record_cannot_see_runs_the_whole_suite(repo, edits, why):
    chosen = _plan(repo, edits, _record(**RAN))
    if why is None:
        assert not chosen.full, chosen.reason
        assert chosen.ids == set()
    else:
        assert chosen.full
        assert why in (chosen.reason or ""), chosen.reason


def test_a_function_that_only_moved_selects_nothing(repo):
    # lines added above it: the same code at other lines (its text is compared first)
    chosen = _plan(repo, _calc("LIMIT = 10\n", "LIMIT = 10\n# a comment\n\n\n"), _record(**RAN))
    assert not chosen.full, chosen.reason
    assert chosen.ids == set()


def test_a_functions_lines_are_counted_as_the_parser_counts_them():
    # a form feed is not a line break for the parser (str.splitlines would make it one,
    # and every later function's text would be read one line off)
    text = "def add(a, b):\n    return 1\n\x0c\ndef sub(a, b):\n    x = 1\n    return a - b\n"
    module = selection._module(text)
    assert module is not None
    assert module.functions["sub"].text == "def sub(a, b):\n    x = 1\n    return a - b"
    assert module.functions["add"].text == "def add(a, b):\n    return 1"


def test_a_change_after_a_form_feed_is_seen(repo):
    root, _ = repo
    calc = root / "pkg" / "calc.py"
    calc.write_text(calc.read_text().replace("def sub(a, b):", "\x0c\ndef sub(a, b):"))
    git(root, "commit", "-q", "-am", "a form feed")
    text = calc.read_text()
    chosen = _plan(
        repo,
        {"pkg/calc.py": text.replace("return a - b", "return b - a")},
        _record(add={"codes": [0]}, sub={"codes": [1]}),
    )
    assert not chosen.full, chosen.reason
    assert chosen.ids == {"tests/test_calc.py::test_sub"}


def test_a_function_the_session_ran_while_collecting_runs_the_whole_suite(repo):
    record = _record(session={"codes": [1]}, **RAN)
    chosen = _plan(repo, _calc("return a - b", "return b - a"), record)
    assert chosen.full and "while collecting" in (chosen.reason or "")


def test_data_files_select_their_readers_and_nothing_else(repo):
    record = _record(add={"codes": [0], "files": ["pkg/data.txt"]}, sub={"codes": [1]})
    assert _plan(repo, {"pkg/data.txt": "2\n"}, record).ids == {"tests/test_calc.py::test_add"}
    assert _plan(repo, {"pkg/unread.txt": "2\n"}, record).ids == set()
    read_at_collection = _record(session={"files": ["pkg/data.txt"]})
    assert _plan(repo, {"pkg/data.txt": "3\n"}, read_at_collection).full


def test_a_file_added_where_a_test_lists_the_directory_selects_that_test(repo):
    record = _record(other={"dirs": ["pkg"]})
    chosen = _plan(repo, {"pkg/plugin_x.txt": "new\n"}, record)
    assert chosen.ids == {"tests/test_other.py::test_other"}


def test_a_changed_test_module_runs_whole(repo):
    chosen = _plan(repo, {"tests/test_other.py": "def test_other():\n    assert 1\n"}, _record())
    assert not chosen.full
    assert chosen.whole_files == {"tests/test_other.py"}
    assert chosen.ids == {"tests/test_other.py::test_other"}


def test_a_removed_test_module_is_gone_not_run(repo):
    chosen = _plan(repo, {"tests/test_other.py": None}, _record())
    assert not chosen.full
    assert (chosen.gone_files, chosen.whole_files) == ({"tests/test_other.py"}, set())


def test_failed_and_process_starting_tests_always_run(repo):
    record = _record(add={"outcome": "failed"}, other={"spawned": True})
    chosen = _plan(repo, {"pkg/unread.txt": "1\n"}, record)
    assert chosen.ids == {"tests/test_calc.py::test_add", "tests/test_other.py::test_other"}
    assert chosen.why == {"failed on the base": 1, "started a process on the base": 1}


def test_what_ran_while_the_recorder_was_off_always_runs(repo):
    record = _record(
        other={"unrecorded": True}, add={"fixtures": ["db"]}, fixtures={"db": {"unrecorded": True}}
    )
    chosen = _plan(repo, {"pkg/unread.txt": "1\n"}, record)
    assert chosen.ids == {"tests/test_other.py::test_other", "tests/test_calc.py::test_add"}
    assert chosen.why == {"ran while the recorder was off": 2}
    assert _plan(repo, {"pkg/unread.txt": "2\n"}, _record(session={"unrecorded": True})).full


def test_the_record_round_trips_through_the_cache():
    record = _record(add={"codes": [0], "files": ["pkg/data.txt"], "fixtures": ["db"]})
    assert selection.save("k" * 64, record)
    assert selection.load("k" * 64) == record
    assert selection.load("0" * 64) is None


# --- the recorder, in a real pytest process --------------------------------------------------

RECORDED = {
    "pkg/__init__.py": "",
    "pkg/core.py": """
        import subprocess
        import sys


        def setup_db():
            return {"rows": 1}


        def work(x):
            return x * 2


        def read(path):
            with open(path) as f:
                return f.read()


        def spawn():
            subprocess.run([sys.executable, "-c", "pass"], check=True)


        def plugins():
            import os

            return sorted(os.listdir("data"))
        """,
    "data/input.txt": "hello\n",
    "conftest.py": """
        import pytest

        from pkg.core import setup_db


        @pytest.fixture(scope="session")
        def db():
            return setup_db()
        """,
    "tests/test_core.py": """
        from pkg.core import plugins, read, spawn, work


        def test_first_uses_db(db):
            assert db["rows"] == 1


        def test_work():
            assert work(2) == 4


        def test_read():
            assert read("data/input.txt") == "hello\\n"


        def test_spawn():
            spawn()


        def test_second_uses_db(db):
            assert db


        def test_plugins():
            assert plugins() == ["input.txt"]


        def test_switches_tracing_off():
            import sys

            sys.settrace(None)  # as a RecursionError inside the trace function does
            assert work(1) == 2


        def test_after_the_switch():
            assert work(3) == 6
        """,
}


@pytest.mark.parametrize("tracer", ["settrace", "monitoring"])
def test_the_recorder_attributes_functions_files_processes_and_broad_fixtures(tmp_path, tracer):
    python = sys.executable if tracer == "settrace" else modern_python(tmp_path)
    root = tmp_path / "rec"
    root.mkdir()
    write_files(root, RECORDED)
    out = tmp_path / "record.json"
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(selection.RECORD_DIR),
        "TRUEGREEN_RECORD_OUT": str(out),
        "TRUEGREEN_RECORD_ROOT": str(root),
        "PYTHONDONTWRITEBYTECODE": "1",
        # the 3.12 interpreter borrows this one's site-packages: no compiled plugins
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    done = subprocess.run(
        [python, "-m", "pytest", "-q", "-p", "truegreen_record", "-p", "no:cacheprovider"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(out.read_text())
    assert doc["tracer"] == tracer
    names = [c[3] for c in doc["codes"]]

    def ran(test: str) -> set[str]:
        return {names[i] for i in doc["tests"][f"tests/test_core.py::{test}"]["codes"]}

    assert "work" in ran("test_work") and "work" not in ran("test_read")
    assert "read" in ran("test_read")
    # the session fixture's code is the fixture's, whichever test set it up first
    assert "setup_db" not in ran("test_first_uses_db")
    assert "setup_db" in {names[i] for i in doc["fixtures"]["db"]["codes"]}
    assert doc["tests"]["tests/test_core.py::test_second_uses_db"]["fixtures"] == ["db"]
    assert doc["tests"]["tests/test_core.py::test_read"]["files"] == ["data/input.txt"]
    assert doc["tests"]["tests/test_core.py::test_spawn"].get("spawned") is True
    assert "spawned" not in doc["tests"]["tests/test_core.py::test_work"]
    # the project's own listing is the test's; pytest's and the import system's are nobody's
    assert doc["tests"]["tests/test_core.py::test_plugins"]["dirs"] == ["data"]
    assert doc["session"]["dirs"] == []
    # a tracer switched off is noticed, said (the test is always run), and put back
    off = doc["tests"]["tests/test_core.py::test_switches_tracing_off"]
    assert off.get("unrecorded", False) is (tracer == "settrace")
    assert "work" in ran("test_after_the_switch")
    assert "unrecorded" not in doc["tests"]["tests/test_core.py::test_after_the_switch"]
    # importing the test module (collection) is the session's
    assert "<module>" in {names[i] for i in doc["session"]["codes"]}
    # only files under the root are recorded
    assert all(not c[0].startswith(("/", "<")) for c in doc["codes"])
