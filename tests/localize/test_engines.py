"""The tracer's engines agree at statement level; localize runs one traced process."""

from __future__ import annotations

import ast
import json
import os
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import modern_python
from tests.localize.test_defuse import LOCALES, tables_of
from truegreen.localize import LocalizeOptions, localize
from truegreen.localize import engine as eng
from truegreen.localize.spectrum import (
    Statements,
    Trace,
    branch_outcomes,
    headers,
    project_modules,
    spectra,
    statement_map,
)
from truegreen.project import open_project
from truegreen.run.pytest_run import run_pytest

PY = sys.executable

PROJECT = {
    "pkg/__init__.py": "",
    "pkg/mod.py": '''
        """A module with statements over several lines."""
        from __future__ import annotations

        import functools

        TABLE = [
            (1, "one"),
            (2, "two"),
        ]


        def deco(n):
            def wrap(f):
                return f
            return wrap


        @deco(
            len(TABLE),
        )
        def pick(key, default=len(TABLE)):
            """Docstring."""
            for k, name in TABLE:
                if (k == key and
                        name):
                    return name
            try:
                return {1: "x"}[key]
            except KeyError:
                pass
            return default


        class Box:
            SIZE = functools.reduce(
                lambda a, b: a + b, [1, 2], 0
            )

            def size(self):
                return self.SIZE
        ''',
    "pkg/more.py": """
        COUNT = 0


        def bump(kind):
            global COUNT
            COUNT += 1

            def inner(x=COUNT):
                return x

            match kind:
                case "a" | "b":
                    out = inner()
                case _:
                    out = -1
            try:
                out += 1
            finally:
                out += 0
            gen = (i for i in range(out))
            return sum(gen)


        async def later(x):
            return x
        """,
    "tests/test_mod.py": """
        import asyncio

        from pkg.mod import Box, pick
        from pkg.more import bump, later

        def test_one():
            assert pick(1) == "one"

        def test_missing():
            assert pick(2) == "TWO"

        def test_box():
            assert Box().size() == 3
            assert bump("a") == 1 and bump("z") == 0
            assert asyncio.run(later(2)) == 2
        """,
    "tests/test_trace.py": """
        import sys

        from pkg.mod import pick

        def test_untraced():
            assert pick(1) and sys.gettrace() is None
        """,
}


def test_statement_map_keys_every_line_of_a_statement_by_its_first_line(tmp_path):
    from tests.conftest import write_files

    write_files(tmp_path, {"m.py": PROJECT["pkg/mod.py"]})
    key, span = statement_map(tmp_path / "m.py")
    lines = (tmp_path / "m.py").read_text().splitlines()
    at = {text.strip(): n for n, text in enumerate(lines, 1)}
    table = at["TABLE = ["]
    assert {key[table + i] for i in range(4)} == {table}
    assert span[table] == (table, table + 3)
    # a decorated def: the decorator and the signature belong to the `def` statement
    d = at["def pick(key, default=len(TABLE)):"]
    assert key[at["@deco("]] == d and key[at["len(TABLE),"]] == d
    # an `if` over two lines is one statement; the line after it is another
    cond = at["if (k == key and"]
    assert key[cond + 1] == cond and key[at["return name"]] == at["return name"]
    # a line in no statement's header keeps its number
    assert key.get(at["except KeyError:"], at["except KeyError:"]) == at["except KeyError:"]


def test_headers_are_the_def_class_and_try_statements(tmp_path):
    from tests.conftest import write_files

    write_files(tmp_path, {"m.py": PROJECT["pkg/more.py"], "n.py": PROJECT["pkg/mod.py"]})
    for name in ("m.py", "n.py"):
        lines = (tmp_path / name).read_text().splitlines()
        want = {
            n
            for n, text in enumerate(lines, 1)
            if text.strip().startswith(("def ", "async def ", "class ", "try:"))
        }
        assert len(want) >= 3  # nested and decorated defs, methods, classes, try blocks
        assert headers(ast.parse((tmp_path / name).read_text())) == want
    assert headers(None) == frozenset()


def _trace(root: Path, engine: str, watch: list[str] | None = None, python: str = PY) -> Trace:
    project = open_project(root, python, "none")
    out = root.parent / f"trace-{engine}.json"
    cfg = None
    if watch is not None:  # value capture for these tests and a neighbour each
        cfg = root.parent / "values.json"
        cfg.write_text(json.dumps({"tests": watch, "siblings": 1}))
    request = eng._request(
        project, ["tests/test_mod.py"], 60, tracer=out, engine=engine, values_cfg=cfg
    )
    run_pytest(request)
    trace = Trace.from_json(json.loads(out.read_text()))
    assert trace.engine == engine
    return trace


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["probe", "monitoring"])
def test_engines_give_the_same_statement_spectra_as_line_events(make_project, engine, tmp_path):
    root = make_project(PROJECT, use_git=False)
    # sys.monitoring exists on 3.12+ only: that engine is compared on such an interpreter
    python = modern_python(tmp_path) if engine == "monitoring" else PY
    ids = [f"tests/test_mod.py::{t}" for t in ("test_one", "test_missing", "test_box")]
    stmts = Statements(root)
    reference = spectra(_trace(root, "settrace", python=python), ids, stmts)
    got = spectra(_trace(root, engine, python=python), ids, stmts)
    assert reference == got
    # the same while values are recorded for some tests (a trace function next to the
    # engine: the code objects it sees first must still be measured)
    valued = _trace(root, engine, watch=[ids[1]], python=python)
    assert set(valued.values) == {ids[0], ids[1]}
    assert spectra(valued, ids, stmts) == reference
    # import-time statements (the table, the decorator call, the class body) are there
    lines = (root / "pkg/mod.py").read_text().splitlines()
    table = lines.index("TABLE = [") + 1
    assert ("pkg/mod.py", table) in got[ids[0]]
    size = next(n for n, t in enumerate(lines, 1) if t.strip().startswith("SIZE ="))
    assert ("pkg/mod.py", size) in got[ids[2]]


@pytest.mark.slow
def test_localize_runs_one_traced_process_that_also_records_values(make_project, monkeypatch):
    root = make_project(PROJECT, use_git=False)
    seen: list = []
    spans: list = []
    real = eng.run_pytest

    def spy(request, executor=None):
        seen.append(request)
        start = time.monotonic()
        try:
            return real(request, executor)
        finally:
            spans.append((start, time.monotonic()))

    monkeypatch.setattr(eng, "run_pytest", spy)
    project = open_project(root, PY, "none")
    doc = localize(project, ["tests/test_mod.py::test_missing"], LocalizeOptions(timeout=60))
    traced = [r for r in seen if eng.OUT_VAR in dict(r.env)]
    assert len(traced) == 1 and eng.VALUES_VAR in dict(traced[0].env)
    assert len(seen) == 2  # measured; bare, with the target first (alone)
    # without a sandbox both runs would share the checkout: one after the other
    assert eng.OUT_VAR in dict(seen[0].env)
    measured_end = min(end for _start, end in spans)
    assert max(start for start, _end in spans) >= measured_end
    bare = next(r for r in seen if eng.OUT_VAR not in dict(r.env))
    assert json.loads(dict(bare.env)[eng.FIRST_VAR]) == ["tests/test_mod.py::test_missing"]
    assert doc["values"]["passing"] == "tests/test_mod.py::test_one"
    assert doc["values"]["differences"]
    assert doc["order_dependence"]["alone"] == "failed"
    if doc["engine"] != "settrace":
        # no trace function while tests run (but the watched ones): no outcome changes
        assert doc["measurement"]["compared"] == 3  # the target ran first (alone) bare
        assert doc["measurement"]["consistent"] is True


LOOP_PROJECT = {
    "spin/__init__.py": "",
    "spin/core.py": """
        def spin(n):
            total = 0
            for i in range(n):
                total += i % 7
            return total
        """,
    "tests/test_spin.py": """
        from spin.core import spin

        def test_small():
            assert spin(10) == 24

        def test_long():
            assert spin(3_000_000) == -1
        """,
}


@pytest.mark.slow
def test_value_capture_of_a_long_loop_is_cut_short(make_project):
    # every line event of a watched test reads its locals; without a budget the 6 million
    # events of this loop take about 15 s (the 10 s timeout fails the run), with it the
    # capture stops after a bounded number and the run takes a second or two
    opts = LocalizeOptions(timeout=10, check_measurement=False)
    doc = localize(open_project(make_project(LOOP_PROJECT, use_git=False), PY, "none"),
                   ["tests/test_spin.py::test_long"], opts)  # fmt: skip
    assert doc["failure"]["exc_type"] == "AssertionError"
    assert doc["values"]["passing"] == "tests/test_spin.py::test_small"


SPENT_PROJECT = {
    "spin/__init__.py": "",
    "spin/core.py": LOOP_PROJECT["spin/core.py"],
    "tests/test_spin.py": """
        import sys
        from spin.core import spin

        def test_small():
            assert spin(10) == 24

        def test_long():
            spin(100_000)  # more line events than a watched test's value budget
            assert sys.gettrace() is None, "a trace function is still installed"
            assert spin(3) == -1
        """,
}


@pytest.mark.slow
def test_a_watched_test_that_spent_its_value_budget_runs_untraced(make_project):
    # once a watched test's values are capped there is nothing left to record: it runs the
    # rest of the test with no trace function at all (on 3.11 one slows every call)
    opts = LocalizeOptions(timeout=60, check_measurement=False)
    doc = localize(open_project(make_project(SPENT_PROJECT, use_git=False), PY, "none"),
                   ["tests/test_spin.py::test_long"], opts)  # fmt: skip
    assert doc["engine"] != "settrace"
    assert "still installed" not in doc["failure"]["message"]
    assert "assert 3 == -1" in doc["failure"]["message"]
    # values were recorded, up to the budget
    assert doc["values"]["passing"] == "tests/test_spin.py::test_small"


def _traced_file(root: Path, file: str, engine: str, tmp_path: Path) -> tuple[Path, Any, Trace]:
    """One traced run of a test file with ``engine`` (on a 3.12+ for monitoring)."""
    python = modern_python(tmp_path) if engine == "monitoring" else PY
    project = open_project(root, python, "none")
    out = root.parent / f"trace-{engine}.json"
    run_pytest(eng._request(project, [file], 60, tracer=out, engine=engine))
    trace = Trace.from_json(json.loads(out.read_text()))
    assert trace.engine == engine
    return root, project, trace


LAZY_PROJECT = {
    "lazy/__init__.py": "",
    "lazy/util.py": """
        def register(f):
            f.registered = True
            return f
        """,
    "lazy/plugins.py": """
        from lazy.util import register

        NAMES = ("a", "b")

        @register
        def loaded():
            return len(NAMES)
        """,
    "lazy/extra.py": """
        VALUE = 1
        """,
    "lazy/rules.py": """
        def match(script):
            return "ls" in script

        def fix(script):
            return script + " -lah"
        """,
    "tests/conftest.py": """
        import pytest

        @pytest.fixture(autouse=True)
        def plugins():
            import lazy.plugins  # imported by whichever test runs first
            return lazy.plugins
        """,
    "tests/test_rules.py": """
        from lazy.rules import fix, match

        def test_match():
            assert not match("lsof")

        def test_fix():
            assert fix("ls") == "ls -lah"

        def test_imports_in_its_body():
            import lazy.extra
            assert fix("x") and lazy.extra.VALUE
        """,
}


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["probe", "settrace", "monitoring"])
def test_a_module_a_fixture_imports_counts_for_every_test_not_the_first(
    make_project, engine, tmp_path
):
    """`lazy.plugins` is imported by an autouse fixture of the first test only; its
    module-level lines, and the decorator it calls in another module, must not count as
    that test's alone (they would tie with the fault and bury it)."""
    root, project, trace = _traced_file(
        make_project(LAZY_PROJECT, use_git=False), "tests/test_rules.py", engine, tmp_path
    )
    ids = [f"tests/test_rules.py::{t}" for t in ("test_match", "test_fix")]
    spec = spectra(trace, ids, Statements(root))
    for t in ids:
        assert not {ln for ln in spec[t] if ln[0] in ("lazy/plugins.py", "lazy/util.py")}, t
    assert ("lazy/rules.py", 2) in spec[ids[0]] and ("lazy/rules.py", 2) not in spec[ids[1]]
    # the imports are still on record, for the module that ran them
    assert ("lazy/plugins.py" in trace.import_runs) and 3 in trace.import_lines["lazy/plugins.py"]
    assert trace.import_runs["lazy/plugins.py"]["lazy/util.py"] == [2, 3]
    # a test whose own body imports a module depends on it
    body = "tests/test_rules.py::test_imports_in_its_body"
    assert trace.phase_imports[body]["call"] == ["lazy/extra.py"]
    assert ("lazy/extra.py", 1) in spectra(trace, [body], Statements(root))[body]

    doc = localize(project, ids[:1], LocalizeOptions(timeout=60))
    top = doc["ranking"][0]
    assert (top["file"], top["line"], top["ties"]) == ("lazy/rules.py", 2, 1)


EXPLAIN_PROJECT = {
    "money/__init__.py": "",
    "money/amount.py": """
        class Amount:
            def __init__(self, cents):
                self.cents = cents

            def __eq__(self, other):
                return self.cents == other.cents

            def __repr__(self):
                shown = self.cents / 100
                return f"Amount({shown})"

        def add(a, b):
            return Amount(a.cents + b.cents + (1 if a.cents > 100 else 0))
        """,
    "tests/test_amount.py": """
        from money.amount import Amount, add

        def test_small():
            assert add(Amount(1), Amount(2)) == Amount(3)

        def test_large():
            assert add(Amount(150), Amount(2)) == Amount(152)
        """,
}


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["probe", "settrace", "monitoring"])
def test_what_pytest_runs_to_explain_a_failed_assert_is_not_measured(
    make_project, engine, tmp_path
):
    """pytest calls the operands' ``__repr__`` to explain a failed assert, for failing
    tests only: those lines would look like the failure's own and outrank the fault."""
    root, _project, trace = _traced_file(
        make_project(EXPLAIN_PROJECT, use_git=False), "tests/test_amount.py", engine, tmp_path
    )
    spec = spectra(trace, ["tests/test_amount.py::test_large"], Statements(root))
    lines = (root / "money/amount.py").read_text().splitlines()
    shown = lines.index("        shown = self.cents / 100") + 1
    eq = lines.index("        return self.cents == other.cents") + 1
    failing = spec["tests/test_amount.py::test_large"]
    assert ("money/amount.py", shown) not in failing
    assert ("money/amount.py", eq) in failing  # the comparison itself is the test's


UNITTEST_EXPLAIN = {
    **EXPLAIN_PROJECT,
    "tests/test_amount.py": """
        import unittest
        from money.amount import Amount, add

        class TestAdd(unittest.TestCase):
            def test_small(self):
                self.assertEqual(add(Amount(1), Amount(2)), Amount(3))

            def test_large(self):
                self.assertEqual(add(Amount(150), Amount(2)), Amount(152))

            def test_large_none(self):
                self.assertIsNone(add(Amount(150), Amount(2)))

            def test_large_in_list(self):
                self.assertListEqual([add(Amount(150), Amount(2))], [Amount(152)])
        """,
}


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["probe", "settrace", "monitoring"])
def test_what_unittest_runs_to_explain_a_failed_assert_is_not_measured(
    make_project, engine, tmp_path
):
    """unittest's assert methods explain a failure with ``safe_repr`` and
    ``pprint.pformat``: a project ``__repr__`` they call is not the failing test's code."""
    root, _project, trace = _traced_file(
        make_project(UNITTEST_EXPLAIN, use_git=False), "tests/test_amount.py", engine, tmp_path
    )
    lines = (root / "money/amount.py").read_text().splitlines()
    shown = lines.index("        shown = self.cents / 100") + 1
    eq = lines.index("        return self.cents == other.cents") + 1
    for name in ("test_large", "test_large_none", "test_large_in_list"):
        node = f"tests/test_amount.py::TestAdd::{name}"
        failing = spectra(trace, [node], Statements(root))[node]
        assert ("money/amount.py", shown) not in failing, name
        if name != "test_large_none":
            assert ("money/amount.py", eq) in failing, name  # the comparison is the test's


def test_branch_outcomes_name_the_statements_only_one_outcome_runs():
    tree = ast.parse(
        textwrap.dedent("""\
            def f(x, xs):
                if x:
                    a = 1
                else:
                    a = 2
                if x > 1:
                    return 3
                b = 4
                if x > 2:
                    b = 5
                c = 6
                if x > 3:
                    pass
                elif x > 4:
                    return 7
                for y in xs:
                    if y:
                        continue
                    print(y)
                try:
                    pass
                except ValueError:
                    if x:
                        raise
                    d = 8
                if x:
                    return 9
            """)
    )
    assert branch_outcomes(tree) == {
        2: (3, 5),  # body, else
        6: (7, 8),  # a body that returns: the next statement shows the false outcome
        9: (10,),  # a body that falls through: only the true outcome shows
        12: (13, 14),  # the elif is the else
        14: (15,),  # an elif that returns, with nothing after it in its block
        17: (18, 19),  # continue
        23: (24, 25),  # raise, in a handler's body
        26: (27,),  # the last statement of the function
    }
    assert branch_outcomes(None) == {}


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["probe", "settrace", "monitoring"])
def test_every_engine_records_which_classes_instances_a_test_used(make_project, engine, tmp_path):
    """The receivers of project methods (with their project base classes), per test, from
    every engine: what tells apart the tables of one name in sibling classes."""
    root, _project, trace = _traced_file(
        make_project(LOCALES, use_git=False), "tests/test_locales.py", engine, tmp_path
    )
    mod = "lingo/locales.py"
    assert trace.receivers is not None
    got = {tid.split("::")[1]: sorted(q for _f, q in trace.receivers[tid]) for tid in trace.phases}
    assert got["test_describe[sv-now-just nu]"] == ["Locale", "SwedishLocale"]
    assert got["test_swedish_hours"] == ["Locale", "SwedishLocale"]
    assert got["test_describe[de-hours-2 Stunden]"] == ["GermanLocale", "Locale"]
    assert {f for pairs in trace.receivers.values() for f, _q in pairs} == {mod}
    # so the Swedish table goes to the Swedish tests only
    tables = tables_of(root)
    spec = spectra(trace, trace.phases, Statements(root))
    swedish = {tid.split("::")[1] for tid, lines in spec.items() if (mod, tables[2]) in lines}
    assert swedish == {"test_describe[sv-now-just nu]", "test_swedish_hours"}


def _cached(home: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in (home / "cache" / "trace-code").iterdir()}


def _stamps(home: Path) -> dict[str, tuple[int, int]]:
    """Each cached file's inode and modification time: a module compiled again is put in
    place anew (its bytes may well be the same)."""
    return {
        p.name: (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in (home / "cache" / "trace-code").iterdir()
    }


@pytest.mark.slow
def test_instrumented_modules_are_cached_outside_the_checkout_and_read_back(
    make_project, monkeypatch
):
    """The tracer's instrumented code is compiled once, kept in truegreen's cache (never in
    the checkout), read back for the same source, and recompiled when the source changed
    or the cached file is damaged; the document is the same either way."""
    root = make_project(PROJECT, use_git=False)
    home = Path(os.environ["TRUEGREEN_HOME"])
    project = open_project(root, PY, "none")
    target = ["tests/test_mod.py::test_missing"]

    def run() -> dict[str, Any]:
        return localize(project, target, LocalizeOptions(timeout=60))

    first = run()
    cached = _cached(home)
    probes = first["engine"] == "probe"
    keys = {name.split("-", 1)[1][:-4] for name in cached}
    assert eng._code_key(root, "pkg/mod.py", probes) in keys
    assert eng._code_key(root, "pkg/more.py", probes) in keys
    assert not [p for p in root.rglob("*") if "truegreen" in p.name]  # nothing in the checkout
    # read back, not rewritten (a module compiled again would replace its file)
    stamps = _stamps(home)
    second = run()
    assert _stamps(home) == stamps
    assert json.dumps(second["ranking"]) == json.dumps(first["ranking"])
    assert second["values"] == first["values"]
    # a damaged file is compiled again, and replaced
    mod = next(
        name for name in cached if name.endswith(eng._code_key(root, "pkg/mod.py", probes) + ".pyc")
    )
    (home / "cache" / "trace-code" / mod).write_bytes(b"not code")
    assert run()["ranking"] == first["ranking"]
    assert _cached(home)[mod] == cached[mod]
    # a changed source is compiled again: its new line is measured
    src = root / "pkg" / "mod.py"
    src.write_text(
        src.read_text().replace("    for k, name in", "    key = key\n    for k, name in")
    )
    third = run()
    assert _cached(home)[mod] != cached[mod]
    lines = src.read_text().splitlines()
    new = lines.index("    key = key") + 1
    assert any(r["file"] == "pkg/mod.py" and r["line"] == new for r in third["ranking"])


def test_only_the_projects_own_imported_modules_enter_the_code_cache(tmp_path, monkeypatch):
    """What a traced run wrote is accepted for the modules of its own project that it
    imported: a test cannot plant code for another project's modules. The cache stays
    bounded, the oldest entries going first."""
    root, other = tmp_path / "proj", tmp_path / "other"
    out, cache = tmp_path / "out", tmp_path / "cache"
    out.mkdir()
    cache.mkdir()
    for i in range(3):
        old = cache / f"t-old{i}.pyc"
        old.write_bytes(b"old")
        os.utime(old, ns=(i, i))
    mine = f"t-{eng._code_key(root, 'pkg/mod.py', True)}.pyc"
    planted = f"t-{eng._code_key(other, 'pkg/mod.py', True)}.pyc"
    unimported = f"t-{eng._code_key(root, 'pkg/other.py', True)}.pyc"
    for name in (mine, planted, unimported):
        (out / name).write_bytes(b"code")
    trace = Trace.from_json({"engine": "probe", "import_runs": {"pkg/mod.py": {}}})
    monkeypatch.setattr(eng, "CODE_CACHE_MAX", 3)
    eng.keep_code(out, cache, root, trace)
    assert sorted(p.name for p in cache.iterdir()) == sorted([mine, "t-old1.pyc", "t-old2.pyc"])
    # the receivers-only engines have their own names: a probe module is not theirs
    (out / mine).unlink(missing_ok=True)
    (out / mine).write_bytes(b"code")
    eng.keep_code(
        out, cache, root, Trace.from_json({"engine": "settrace", "import_runs": {"pkg/mod.py": {}}})
    )
    assert (out / mine).exists()


def test_the_modules_the_test_files_import_are_analysed_ahead_nearest_first(make_project):
    """While the traced run runs, the bare run's thread analyses the project modules the
    selection's test files import; it stops when asked, between files."""
    root = make_project(PROJECT, use_git=False)
    found = list(project_modules(root, ["tests/test_mod.py"], lambda: False))
    assert set(found) == {"pkg/__init__.py", "pkg/mod.py", "pkg/more.py"}
    stmts = Statements(root)
    asked: list[int] = []

    def stop() -> bool:  # stop once the first file is done
        asked.append(1)
        return "pkg/__init__.py" in stmts._trees or "pkg/mod.py" in stmts._trees

    eng.warm(stmts, ["tests/test_mod.py::test_missing", "tests/test_trace.py"], stop)
    assert len(stmts._trees) == 1 and asked
    eng.warm(stmts, ["tests/test_mod.py"], lambda: False)
    assert {"pkg/mod.py", "pkg/more.py"} <= set(stmts._trees)

    # the comparisons and truth tests were computed too, and are handed back later as they
    # are, without computing them again
    def again() -> dict[int, list[Any]]:
        raise AssertionError("computed again")

    for kind in ("pairs", "truths"):
        assert (kind, "pkg/mod.py") in stmts._memo
        assert stmts.memo(kind, "pkg/mod.py", again) is stmts._memo[(kind, "pkg/mod.py")]

    # then the test files themselves: what each test reads of its file is answered later
    # without parsing the file again
    def parse_again(rel: str) -> None:
        raise AssertionError(f"parsed {rel} again")

    stmts.defuse._tree = parse_again
    target = "tests/test_mod.py::test_missing"
    assert stmts.defuse.test_reads(target) == Statements(root).defuse.test_reads(target)


@pytest.mark.slow
@pytest.mark.bwrap
def test_analysing_ahead_changes_nothing_in_the_document(make_project, monkeypatch):
    root = make_project(PROJECT, use_git=False)
    project = open_project(root, PY, "bwrap")
    target = ["tests/test_mod.py::test_missing"]
    calls: list[object] = []
    real = eng.warm

    def spy(*args: Any) -> None:
        calls.append(threading.current_thread())
        real(*args)

    monkeypatch.setattr(eng, "warm", spy)
    warmed = localize(project, target, LocalizeOptions(timeout=60))
    assert calls and calls[0] is not threading.main_thread()  # beside the traced run
    monkeypatch.setattr(eng, "warm", lambda *args: None)
    cold = localize(project, target, LocalizeOptions(timeout=60))
    assert json.dumps(warmed, sort_keys=True) == json.dumps(cold, sort_keys=True)
    # the sandboxed run wrote its compiled modules where truegreen took them from, and
    # read them back the second time (a module compiled again would replace its file)
    home = Path(os.environ["TRUEGREEN_HOME"])
    cached = _cached(home)
    probes = warmed["engine"] == "probe"
    assert any(n.endswith(eng._code_key(root, "pkg/mod.py", probes) + ".pyc") for n in cached)
    stamps = _stamps(home)
    localize(project, target, LocalizeOptions(timeout=60))
    assert _stamps(home) == stamps
