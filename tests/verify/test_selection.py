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

            @label.setter
            def label(self, value):
                self._label = value
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
    ["pkg/calc.py", 20, 22, "Box.label"],
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


def test_a_property_getter_changed_selects_the_tests_of_its_name(repo):
    """A getter and its setter share a qualified name: the setter, unchanged, used to hide
    the getter's change (found on python-dateutil: a broken ``relativedelta.weeks`` getter
    was approved, no test of it selected). Every test that ran a definition of the name
    is selected (the record tells them apart by lines, which the change moves)."""
    record = _record(other={"codes": [3]}, add={"codes": [4]}, sub={"codes": [1]})
    chosen = _plan(repo, _calc('return "box"', 'return "crate"'), record)
    assert not chosen.full, chosen.reason
    assert chosen.ids == {"tests/test_other.py::test_other", "tests/test_calc.py::test_add"}
    assert chosen.why == {"ran a changed function": 2}


def test_two_definitions_of_a_name_under_an_if_are_both_compared(repo):
    text = "import sys\n\nif sys.maxsize:\n    def f():\n        return 1\nelse:\n    def f():\n        return 2\n"
    module = selection._module(text)
    assert module is not None
    assert [(fn.first, fn.last) for fn in module.functions["f"]] == [(4, 5), (7, 8)]


@pytest.mark.parametrize(
    "text",
    [
        "match 1:\n    case 1:\n        def f():\n            return 1\n",
        "try:\n    pass\nexcept* ValueError:\n    def f():\n        return 1\n",
        "async def g():\n    async with x:\n        def f():\n            return 1\n",
        "while True:\n    def f():\n        return 1\n    break\nelse:\n    pass\n",
    ],
    ids=["match", "except-star", "async-with", "while"],
)
def test_a_function_under_any_compound_statement_is_known(text):
    module = selection._module(text)
    assert module is not None
    assert any(q.endswith("f") for q in module.functions), module.functions


def test_a_change_the_plan_cannot_place_runs_the_whole_suite(repo, monkeypatch):
    """A safety net: code that is neither in the skeleton nor in a function the plan
    knows (here: the plan made blind to an ``if``'s statements) is not a change that
    selects nothing; a change of comments alone still selects nothing."""
    root, _ = repo
    calc = root / "pkg" / "calc.py"
    calc.write_text(calc.read_text() + "\nif LIMIT:\n    def late():\n        return 1\n")
    git(root, "commit", "-q", "-am", "a function under an if")
    monkeypatch.setattr(selection, "_blocks", lambda node: [])
    text = calc.read_text()
    chosen = _plan(
        repo,
        {"pkg/calc.py": text.replace("late():\n        return 1", "late():\n        return 2")},
        _record(**RAN),
    )
    assert chosen.full
    assert "outside the functions the plan knows" in (chosen.reason or "")
    comment = _plan(repo, {"pkg/calc.py": text + "# a comment\n"}, _record(**RAN))
    assert not comment.full, comment.reason


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
        (
            _calc(
                "self._label = value\n",
                "self._label = value\n\n    @label.deleter\n    def label(self):\n        pass\n",
            ),
            "a definition of Box.label was added or removed",
        ),
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
        "definition-added-to-a-name",
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
    assert module.functions["sub"][0].text == "def sub(a, b):\n    x = 1\n    return a - b"
    assert module.functions["add"][0].text == "def add(a, b):\n    return 1"


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


        def triple(x):
            return x * 3


        def halve(x):
            return x // 2


        def counting(n):
            for i in range(n):
                yield step(i)


        def step(i):
            return i


        def deep(n):
            return deep(n + 1)
        """,
    "data/input.txt": "hello\n",
    # alike functions at the same line of two files: equal code objects, both recorded
    # what runs in a later test than the one that made it
    "pkg/later.py": """
        def ticker():
            yield 1
            yield tick()


        def tick():
            return 2


        def maker():
            return lambda x: scaled(x)


        def scaled(x):
            return x * 10


        def nothing():
            return [x for x in ()]


        def lazy():
            return (tick() + x for x in range(1))
        """,
    # a plugin of the project's, imported before the recorder (-p pkg.early comes first)
    "pkg/early.py": "def early_fn():\n    return 7\n",
    "tests/test_later.py": """
        from pkg.early import early_fn
        from pkg.later import lazy, maker, nothing, ticker

        MADE = {}


        def test_starts_a_generator():
            MADE["gen"] = ticker()
            assert next(MADE["gen"]) == 1


        def test_resumes_it():
            assert next(MADE["gen"]) == 2


        def test_makes_a_lambda():
            MADE["fn"] = maker()
            MADE["lazy"] = lazy()


        def test_calls_it():
            assert MADE["fn"](1) == 10


        def test_resumes_a_generator_expression():
            assert list(MADE["lazy"]) == [2]


        def test_an_empty_comprehension():
            assert nothing() == []


        def test_an_early_module():
            assert early_fn() == 7
        """,
    # a helper of one test module used by another
    "tests/test_helpers_a.py": """
        def helper():
            return 5


        def test_own():
            assert helper() == 5
        """,
    "tests/test_helpers_b.py": """
        from test_helpers_a import helper


        def test_borrows():
            assert helper() == 5
        """,
    "pkg/twin_a.py": "def twin():\n    return 1\n",
    "pkg/twin_b.py": "def twin():\n    return 1\n",
    "tests/test_twins.py": """
        from pkg import twin_a, twin_b


        def test_twins():
            assert twin_a.twin() == twin_b.twin()
        """,
    "tests/test_threads.py": """
        import cProfile
        import sys
        import threading
        from concurrent.futures import ThreadPoolExecutor

        import pytest

        from pkg.core import counting, deep, halve, triple, work

        POOL = ThreadPoolExecutor(1)


        def test_in_a_thread():
            out = []
            thread = threading.Thread(target=lambda: out.append(triple(2)))
            thread.start()
            thread.join()
            assert out == [6]


        def test_pool_first():
            assert POOL.submit(triple, 1).result() == 3


        def test_pool_second():
            assert POOL.submit(halve, 4).result() == 2


        def test_a_generator_made_elsewhere():
            assert list(GENERATED) == [0, 1]


        GENERATED = counting(2)


        def test_profiles_itself():
            assert cProfile.Profile().runcall(work, 5) == 10


        def test_switches_profiling_off():
            sys.setprofile(None)
            assert work(1) == 2


        def test_after_profiling():
            assert halve(8) == 4


        def test_deep_recursion():
            with pytest.raises(RecursionError):
                deep(0)
        """,
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


#: the tracers the recorder has: the version's own, or the one TRUEGREEN_RECORD_TRACER asks for
TRACERS = ("settrace", "profile", "markers", "monitoring")


def _recorder_env(root: Path, out: Path) -> dict[str, str]:
    """The environment of a pytest run of ``root`` under the recorder, writing to ``out``."""
    return {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(selection.RECORD_DIR),
        "TRUEGREEN_RECORD_OUT": str(out),
        "TRUEGREEN_RECORD_ROOT": str(root),
        "PYTHONDONTWRITEBYTECODE": "1",
    }


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The recorder's document of ``RECORDED``'s suite under each tracer (run once)."""
    docs: dict[str, dict[str, Any]] = {}

    def run(tracer: str) -> dict[str, Any]:
        if tracer in docs:
            return docs[tracer]
        base = tmp_path_factory.mktemp(tracer)
        python = modern_python(base) if tracer == "monitoring" else sys.executable
        root = base / "rec"
        root.mkdir()
        write_files(root, RECORDED)
        out = base / "record.json"
        env = {
            **_recorder_env(root, out),
            # the 3.12 interpreter borrows this one's site-packages: no compiled plugins
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        }
        if tracer == "cached":
            # the markers, from code a first run kept (one file of it spoilt)
            env["TRUEGREEN_RECORD_TRACER"] = "markers"
            env["TRUEGREEN_RECORD_CODE_CACHE"] = str(base / "code")
        elif tracer != "monitoring":
            env["TRUEGREEN_RECORD_TRACER"] = tracer
        argv = [python, "-m", "pytest", "-q", "-p", "pkg.early", "-p", "truegreen_record"]
        argv += ["-p", "no:cacheprovider"]
        for attempt in range(2 if tracer == "cached" else 1):
            if attempt:
                kept = sorted((base / "code").iterdir())
                # pkg/core.py, later.py, twin_a.py, twin_b.py and the test modules
                assert len(kept) >= 10
                kept[0].write_bytes(b"not code")
            done = subprocess.run(
                argv, cwd=root, env=env, capture_output=True, text=True, timeout=120
            )
            assert done.returncode == 0, done.stdout + done.stderr
        docs[tracer] = json.loads(out.read_text())
        return docs[tracer]

    return run


def _ran(doc: dict[str, Any], test: str) -> set[str]:
    names = [c[3] for c in doc["codes"]]
    return {names[i] for i in doc["tests"][test]["codes"]}


@pytest.mark.parametrize("tracer", TRACERS)
def test_the_recorder_attributes_functions_files_processes_and_broad_fixtures(recorded, tracer):
    doc = recorded(tracer)
    assert doc["tracer"] == tracer
    names = [c[3] for c in doc["codes"]]

    def ran(test: str) -> set[str]:
        return _ran(doc, f"tests/test_core.py::{test}")

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
    # code objects are told apart by identity, not by their (equal) content
    twins = doc["tests"]["tests/test_twins.py::test_twins"]["codes"]
    assert sorted(doc["codes"][i][0] for i in twins if doc["codes"][i][3] == "twin") == [
        "pkg/twin_a.py",
        "pkg/twin_b.py",
    ]


@pytest.mark.parametrize("tracer", TRACERS)
def test_the_recorder_sees_threads_generators_and_a_profiler_of_the_tests_own(recorded, tracer):
    doc = recorded(tracer)

    def ran(test: str) -> set[str]:
        return _ran(doc, f"tests/test_threads.py::{test}")

    def unrecorded(test: str) -> bool:
        return bool(doc["tests"][f"tests/test_threads.py::{test}"].get("unrecorded", False))

    # a thread the test started, and a pool's thread that outlives the test that started it:
    # what it runs is the test's that runs then
    assert "triple" in ran("test_in_a_thread")
    assert "triple" in ran("test_pool_first") and "halve" not in ran("test_pool_first")
    assert "halve" in ran("test_pool_second") and "triple" not in ran("test_pool_second")
    # a generator made while collecting runs its body (and what it calls) in the test
    assert {"counting", "step"} <= ran("test_a_generator_made_elsewhere")
    assert "counting" not in {doc["codes"][i][3] for i in doc["session"]["codes"]}
    # cProfile takes the profile function's place (3.11): the test is said unrecorded, and
    # so is one that switches profiling off; the recorder is back for the next test
    assert unrecorded("test_profiles_itself") is (tracer == "profile")
    assert unrecorded("test_switches_profiling_off") is (tracer == "profile")
    if tracer != "profile":
        assert "work" in ran("test_profiles_itself") and "work" in ran(
            "test_switches_profiling_off"
        )
    assert "halve" in ran("test_after_profiling") and not unrecorded("test_after_profiling")
    # a RecursionError may switch a trace function off (then the test is said unrecorded);
    # not the C profiler, which runs no Python code
    deep = doc["tests"]["tests/test_threads.py::test_deep_recursion"]
    if tracer != "settrace":
        assert "deep" in ran("test_deep_recursion") and not deep.get("unrecorded")
    lost = [
        n.split("::")[1]
        for n, b in doc["tests"].items()
        if b.get("unrecorded") and not n.endswith("::test_deep_recursion")
    ]
    off = ["test_switches_tracing_off"] if tracer == "settrace" else []
    if tracer == "profile":
        off = ["test_profiles_itself", "test_switches_profiling_off"]
    assert lost == off


def test_the_profile_tracer_records_what_the_trace_function_does(recorded):
    """The C profiler (3.11's default) and the trace function record the same functions,
    per test, per fixture and for the session, where both saw the whole test."""
    old, new = recorded("settrace"), recorded("profile")

    def named(doc: dict[str, Any], bucket: dict[str, Any]) -> set[tuple[str, int, str]]:
        return {
            (doc["codes"][i][0], doc["codes"][i][1], doc["codes"][i][3]) for i in bucket["codes"]
        }

    assert old["tests"].keys() == new["tests"].keys()
    compared = 0
    for test, bucket in old["tests"].items():
        if bucket.get("unrecorded") or new["tests"][test].get("unrecorded"):
            continue
        assert named(old, bucket) == named(new, new["tests"][test]), test
        assert {k: v for k, v in bucket.items() if k != "codes"} == {
            k: v for k, v in new["tests"][test].items() if k != "codes"
        }
        compared += 1
    # all but the two switched off, the self-profiler and (when the RecursionError switched
    # the trace function off) the deep recursion
    assert compared >= len(old["tests"]) - 4
    assert named(old, old["fixtures"]["db"]) == named(new, new["fixtures"]["db"])
    assert named(old, old["session"]) == named(new, new["session"])


@pytest.mark.parametrize("tracer", TRACERS)
def test_the_recorder_sees_code_that_runs_in_a_later_test_and_test_helpers(recorded, tracer):
    doc = recorded(tracer)
    names = [c[3] for c in doc["codes"]]

    def ran(test: str) -> set[str]:
        return _ran(doc, f"tests/test_later.py::{test}")

    # a generator resumed in a later test: its body ran in that test too
    assert {"ticker", "tick"} <= ran("test_resumes_it")
    # a lambda made in one test and called in another, a generator expression resumed
    assert {"maker.<locals>.<lambda>", "scaled"} <= ran("test_calls_it")
    assert "maker" not in ran("test_calls_it")
    assert {"lazy.<locals>.<genexpr>", "tick"} <= ran("test_resumes_a_generator_expression")
    # a comprehension over nothing still ran (3.12 has none: it is inlined)
    if tracer != "monitoring":
        assert "nothing.<locals>.<listcomp>" in ran("test_an_empty_comprehension")
    # a test module's helper, used by another test module
    helper = doc["tests"]["tests/test_helpers_b.py::test_borrows"]["codes"]
    assert ["tests/test_helpers_a.py", "helper"] in [
        [doc["codes"][i][0], doc["codes"][i][3]] for i in helper
    ]
    # a module imported before the recorder: the markers cannot see its functions run, so
    # every one of them is the session's (a change to it runs the whole suite)
    session = {(doc["codes"][i][0], doc["codes"][i][3]) for i in doc["session"]["codes"]}
    if tracer == "markers":
        assert ("pkg/early.py", "early_fn") in session
    else:
        assert "early_fn" in ran("test_an_early_module")
    assert "early_fn" in names


def test_the_markers_record_what_the_profiler_does(recorded):
    """The markers (3.11's default) and the C profiler record the same functions, per test,
    per fixture and for the session, but for the module imported before the recorder and
    the generator expressions made (not resumed) in a test."""
    prof, marks = recorded("profile"), recorded("markers")

    def named(doc: dict[str, Any], bucket: dict[str, Any]) -> set[tuple[str, int, str]]:
        return {
            (doc["codes"][i][0], doc["codes"][i][1], doc["codes"][i][3]) for i in bucket["codes"]
        }

    early = ("pkg/early.py", 1, "early_fn")
    assert prof["tests"].keys() == marks["tests"].keys()
    compared = 0
    for test, bucket in prof["tests"].items():
        if bucket.get("unrecorded"):
            continue
        seen = named(marks, marks["tests"][test])
        assert named(prof, bucket) - {early} <= seen, test
        # and more only where a generator expression is made: said to run there (it may
        # never be resumed)
        assert all(c[2].endswith("<genexpr>") for c in seen - named(prof, bucket)), test
        # (the statement lists entered: the markers' alone)
        assert {k: v for k, v in bucket.items() if k != "codes"} == {
            k: v for k, v in marks["tests"][test].items() if k not in ("codes", "blocks")
        }
        compared += 1
    # all but the two the profiler lost (cProfile in a test)
    assert compared == len(prof["tests"]) - 2
    assert named(prof, prof["fixtures"]["db"]) == named(marks, marks["fixtures"]["db"])
    # the session's: the same, and all the code of the early module and of its package
    assert named(marks, marks["session"]) - named(prof, prof["session"]) == {
        ("pkg/__init__.py", 1, "<module>"),
        ("pkg/early.py", 1, "<module>"),
        early,
    }
    assert named(prof, prof["session"]) <= named(marks, marks["session"])


def test_a_change_inside_a_lambda_selects_the_tests_that_ran_only_the_lambda(repo, monkeypatch):
    """A lambda written in ``Box.size`` and run in another test than the one that called
    ``Box.size``: its code object is recorded under its own name, and changing its text
    changes ``Box.size``'s body."""
    inner = ["pkg/calc.py", 14, 14, "Box.size.<locals>.<lambda>"]
    monkeypatch.setitem(globals(), "CODES", [*CODES, inner])
    record = _record(add={"codes": [2]}, other={"codes": [len(CODES) - 1]})
    chosen = _plan(repo, _calc("return 1", "return 2"), record)
    assert chosen.ids == {"tests/test_calc.py::test_add", "tests/test_other.py::test_other"}


def test_the_markers_from_kept_code_record_the_same(recorded):
    """Marked code kept from an earlier run (TRUEGREEN_RECORD_CODE_CACHE) is read back, a
    spoilt file of it compiled again, and the record is the same."""
    fresh, cached = recorded("markers"), recorded("cached")

    def named(doc: dict[str, Any], bucket: dict[str, Any]) -> set[tuple[str, int, str]]:
        return {
            (doc["codes"][i][0], doc["codes"][i][1], doc["codes"][i][3]) for i in bucket["codes"]
        }

    assert cached["tracer"] == "markers"
    assert fresh["tests"].keys() == cached["tests"].keys()
    for test, bucket in fresh["tests"].items():
        assert named(fresh, bucket) == named(cached, cached["tests"][test]), test
    assert named(fresh, fresh["session"]) == named(cached, cached["session"])


def test_a_modules_own_code_is_not_a_functions(repo, monkeypatch):
    """The module's own code (run while collecting) is not code written inside one of its
    functions: a change to ``add`` selects its tests, not the whole suite."""
    # (as a module whose first line is ``def add``: its code starts on that line)
    monkeypatch.setitem(globals(), "CODES", [*CODES, ["pkg/calc.py", 4, 18, "<module>"]])
    record = _record(session={"codes": [4]}, **RAN)
    chosen = _plan(repo, _calc("return a + b", "return b + a"), record)
    assert not chosen.full, chosen.reason
    assert chosen.ids == {"tests/test_calc.py::test_add"}


# --- statement lists: a change inside a branch selects the tests that entered it -----------

BRANCHY = """
def classify(x, items):
    label = "none"
    if x < 0:
        label = "negative"
        for item in items:
            if item:
                label += "!"
    elif x == 0:
        label = "zero"
    else:
        label = "positive"
    try:
        ratio = 1 / x
    except ZeroDivisionError:
        ratio = 0
    return label, ratio
"""


def _blocks_of(new: str) -> set[tuple[int, int]] | None:
    from textwrap import dedent

    before = selection._module(dedent(BRANCHY).lstrip("\n"))
    after = selection._module(dedent(new).lstrip("\n"))
    assert before is not None and after is not None
    (old,), (fn,) = before.functions["classify"], after.functions["classify"]
    return selection._changed_blocks(old, fn)


@pytest.mark.parametrize(
    ("old", "new", "blocks"),
    [
        # a statement inside a branch: that branch's list (line, column of its first statement)
        ('label = "zero"', 'label = "nil"', {(9, 8)}),
        # nested: the innermost list only
        ('label += "!"', 'label += "?"', {(7, 16)}),
        # a loop's body has no marker (it would run at every turn): the loop's list
        ("if item:", "if not item:", {(4, 8)}),
        # a statement added to a list, and one taken out of it
        ('label = "positive"', 'label = "positive"\n        label += ""', {(11, 8)}),
        ("        ratio = 0\n", "        pass\n", {(15, 8)}),
        # a loop's header: the list that holds the loop
        ("for item in items:", "for item in reversed(items):", {(4, 8)}),
        # two branches at once
        (
            'label = "zero"\n    else:\n        label = "positive"',
            'label = "nil"\n    else:\n        label = "pos"',
            {(9, 8), (11, 8)},
        ),
        # an ``except`` clause's type: the list holding the ``try``, the function's own
        ("except ZeroDivisionError:", "except ArithmeticError:", None),
        # the condition of the ``if``: its statement is at the function's top level
        ("if x < 0:", "if x <= 0:", None),
        # a statement at the top level, and the signature
        ('label = "none"', 'label = "?"', None),
        ("def classify(x, items):", "def classify(x, items=()):", None),
        # a lambda or a generator expression in the changed statement may run later, elsewhere
        ('label = "zero"', 'label = (lambda: "zero")()', None),
        ('label = "zero"', 'label = "".join(c for c in "zero")', None),
        # a list comprehension runs where it is written
        ('label = "zero"', 'label = "".join([c for c in "zero"])', {(9, 8)}),
    ],
)
def test_a_change_is_placed_in_the_innermost_statement_list_that_holds_it(old, new, blocks):
    from textwrap import dedent

    text = dedent(BRANCHY).lstrip("\n")
    assert old in text
    assert _blocks_of(text.replace(old, new, 1)) == blocks


def test_an_else_added_where_the_base_had_none_is_the_holding_lists():
    """The tests that took the new ``else`` entered the list holding the ``if``: the base
    had no list there to mark."""
    base = "def f(x):\n    y = 0\n    if x:\n        if x > 1:\n            y = 2\n        y += 1\n    return y\n"
    head = base.replace("y = 2\n", "y = 2\n        else:\n            y = 5\n")
    before, after = selection._module(base), selection._module(head)
    assert before is not None and after is not None
    (old,), (new,) = before.functions["f"], after.functions["f"]
    assert selection._changed_blocks(old, new) == {(4, 8)}


def test_a_function_that_can_suspend_is_never_placed_in_a_list():
    from textwrap import dedent

    gen = dedent(
        """
        def classify(x, items):
            if x:
                yield 1
                x = 2
            return x
        """
    ).lstrip("\n")
    before, after = selection._module(gen), selection._module(gen.replace("x = 2", "x = 3"))
    assert before is not None and after is not None
    (old,), (new,) = before.functions["classify"], after.functions["classify"]
    assert selection._changed_blocks(old, new) is None


BRANCHY_CODES = [["pkg/branchy.py", 1, 16, "classify", 1]]
#: the lists the tests entered: the ``if x < 0`` branch, the ``elif`` and ``else`` branches
BRANCHY_BLOCKS = [["pkg/branchy.py", 4, 8], ["pkg/branchy.py", 9, 8], ["pkg/branchy.py", 11, 8]]


def _branchy_record(blocky: bool = True) -> Record:
    codes = [c[:4] + ([1] if blocky else []) for c in BRANCHY_CODES]
    doc: dict[str, Any] = {
        "codes": codes,
        "blocks": BRANCHY_BLOCKS if blocky else [],
        "tests": {
            "tests/test_b.py::test_negative": {"codes": [0], "blocks": [0] if blocky else []},
            "tests/test_b.py::test_zero": {"codes": [0], "blocks": [1] if blocky else []},
            "tests/test_b.py::test_positive": {"codes": [0], "blocks": [2] if blocky else []},
            "tests/test_b.py::test_nothing": {},
        },
    }
    outcomes = dict.fromkeys(doc["tests"], "passed")
    return Record.from_plugin(doc, outcomes, outcomes, ())


def _branchy_plan(tmp_path: Path, old: str, new: str, record: Record) -> Plan:
    from textwrap import dedent

    root = tmp_path / "branchy"
    text = dedent(BRANCHY).lstrip("\n")
    write_files(root, {"pkg/__init__.py": "", "pkg/branchy.py": text})
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    base = git(root, "rev-parse", "HEAD")
    assert old in text
    (root / "pkg/branchy.py").write_text(text.replace(old, new, 1))
    git(root, "commit", "-q", "-am", "change")
    return plan(GitRepo(root), base, git(root, "rev-parse", "HEAD"), record)


def test_a_change_inside_a_branch_selects_the_tests_that_entered_it(tmp_path):
    chosen = _branchy_plan(tmp_path, 'label = "zero"', 'label = "nil"', _branchy_record())
    assert not chosen.full, chosen.reason
    assert chosen.ids == {"tests/test_b.py::test_zero"}
    assert chosen.why == {"entered a changed block": 1}


def test_a_change_of_the_functions_own_lines_selects_every_test_that_ran_it(tmp_path):
    chosen = _branchy_plan(tmp_path, "if x < 0:", "if x <= 0:", _branchy_record())
    assert chosen.ids == {
        "tests/test_b.py::test_negative",
        "tests/test_b.py::test_zero",
        "tests/test_b.py::test_positive",
    }
    assert chosen.why == {"ran a changed function": 3}


def test_without_the_lists_in_the_record_a_branch_selects_by_function(tmp_path):
    """A record whose tracer does not mark lists (3.12's monitoring, the profiler): the
    function's own flag is off, and every test that ran it is selected."""
    record = _branchy_record(blocky=False)
    chosen = _branchy_plan(tmp_path, 'label = "zero"', 'label = "nil"', record)
    assert len(chosen.ids) == 3 and chosen.why == {"ran a changed function": 3}


def test_the_recorder_marks_the_lists_each_test_entered(tmp_path):
    """The markers tracer, end to end: the lists each test entered, by the line and column
    of their first statement; a generator's lists are not marked (its own flag is off)."""
    from textwrap import dedent

    root = tmp_path / "rec"
    write_files(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/branchy.py": dedent(BRANCHY).lstrip("\n")
            + "\n\ndef gen(x):\n    if x:\n        yield x\n",
            "tests/test_b.py": """
                from pkg.branchy import classify, gen


                def test_negative():
                    assert classify(-1, [1]) == ("negative!", -1.0)


                def test_zero():
                    assert classify(0, []) == ("zero", 0)


                def test_gen():
                    assert list(gen(1)) == [1]
                """,
        },
    )
    out = tmp_path / "record.json"
    env = {**_recorder_env(root, out), "TRUEGREEN_RECORD_TRACER": "markers"}
    argv = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "truegreen_record",
        "-p",
        "no:cacheprovider",
    ]
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(out.read_text())
    record = Record.from_plugin(doc, {}, (), ())

    def entered(test: str) -> set[tuple[int, int]]:
        bucket = record.tests[f"tests/test_b.py::{test}"]
        return {record.blocks[k][1:] for k in bucket.blocks}

    # the ``if x < 0`` branch, the ``if item`` in its loop (the loop's body itself has no
    # marker), the ``try`` body
    assert entered("test_negative") == {(4, 8), (7, 16), (13, 8)}
    # the ``elif`` statement's list, its body, the ``try`` body and the handler
    assert entered("test_zero") == {(8, 4), (9, 8), (13, 8), (15, 8)}
    assert entered("test_gen") == set()
    flags = {c.name: c.blocks for c in record.codes if c.file == "pkg/branchy.py"}
    assert flags["classify"] is True and flags["gen"] is False


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # an assignment in a branch makes the name local in the whole function: a read of it
        # above the branch fails in every test
        ('label = "zero"', 'label = "zero"\n        print = None'),
        # a name read as a global in a function written inside, bound in a branch
        ('label = "zero"', 'label = "zero"\n        LIMIT = 3'),
        # ``global`` in a branch, for a name that was local
        ('label = "zero"', 'global ratio\n        label = "zero"'),
    ],
)
def test_a_branch_that_changes_what_a_name_means_selects_by_function(tmp_path, old, new):
    text = BRANCHY.replace(
        "    return label, ratio\n",
        "    print(label)\n    check = lambda: LIMIT\n    return label, ratio\n",
    )
    from textwrap import dedent

    before = selection._module(dedent(text).lstrip("\n"))
    after = selection._module(dedent(text).lstrip("\n").replace(old, new, 1))
    assert before is not None and after is not None
    (a,), (b,) = before.functions["classify"], after.functions["classify"]
    assert selection._changed_blocks(a, b) == {(9, 8)}  # by its syntax alone
    assert not selection._scopes_agree(before, after, a, b)
    # a new name of the branch's own, and a changed value, leave every other name as it was
    for own in ('label = "zero"\n        extra = 1', 'label = "nil"'):
        changed = selection._module(dedent(text).lstrip("\n").replace('label = "zero"', own, 1))
        assert changed is not None
        (c,) = changed.functions["classify"]
        assert selection._scopes_agree(before, changed, a, c)
