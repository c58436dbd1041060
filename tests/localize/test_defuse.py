"""Import-time definitions go to the tests that use them (truegreen.localize.defuse)."""

from __future__ import annotations

import ast
import sys
import textwrap
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import pytest

from truegreen.localize import LocalizeOptions, localize, mutation
from truegreen.localize.defuse import analyse
from truegreen.localize.spectrum import Statements, Trace, import_only, spectra
from truegreen.project import open_project

PY = sys.executable

UNITS = {
    "units/__init__.py": "",
    "units/convert.py": """
        import math

        __all__ = ["km", "miles", "rounded", "Scale"]

        KM_PER_MILE = 1.609          # the fault: 1.609344
        FEET_PER_MILE = 5280
        DIGITS = 2


        def km(miles):
            return miles * KM_PER_MILE


        def feet(miles):
            return miles * FEET_PER_MILE


        def rounded(x, digits=DIGITS):
            return round(x, digits)


        class Scale:
            factor = 10

            def up(self, x):
                return x * self.factor


        def lookup(name):
            return globals()[name]
        """,
    "tests/test_convert.py": """
        from units.convert import Scale, feet, km, lookup, rounded

        def test_km():
            assert round(km(100), 3) == 160.934

        def test_feet():
            assert feet(2) == 10560

        def test_feet_half():
            assert feet(0.5) == 2640

        def test_rounded():
            assert rounded(1.234) == 1.23

        def test_scale():
            assert Scale().up(2) == 20

        def test_lookup():
            assert lookup("FEET_PER_MILE") == 5280
        """,
}


@pytest.mark.slow
def test_a_wrong_constant_ranks_first_not_among_every_import_time_line(make_project):
    root = make_project(UNITS, use_git=False)
    doc = localize(
        open_project(root, PY, "none"),
        ["tests/test_convert.py::test_km"],
        LocalizeOptions(timeout=60),
    )
    # it shares its score with the one statement that reads it, and with nothing else:
    # every passing test depends on the module and ran its import-time lines, but none
    # read the constant. The reading statement goes first: it produced the value the
    # assertion rejected (100 * 1.609)
    top = doc["ranking"][:2]
    assert [r["code"] for r in top] == [
        "return miles * KM_PER_MILE",
        "KM_PER_MILE = 1.609          # the fault: 1.609344",
    ]
    assert [(r["rank"], r["ties"], r["counts"]["ep"]) for r in top] == [(1, 1, 0), (2, 1, 0)]
    assert top[0]["evidence"] == ["produced the value the assertion rejected"]
    assert doc["ranking"][2]["rank"] > 2


def _finder(root: Path, rel: str) -> Callable[[str], tuple[str, int]]:
    """(rel, line) of the first line of ``rel`` that starts with a prefix (indent aside)."""
    src = (root / rel).read_text().splitlines()
    return lambda prefix: (
        rel,
        next(n for n, t in enumerate(src, 1) if t.lstrip().startswith(prefix)),
    )


def _users(
    root: Path, rel: str, runs: Mapping[str, Iterable[int]], top_level: list[tuple[str, int]]
) -> dict[tuple[str, int], set[str]]:
    """For each import-time line of ``rel``: the tests (``test_<name>`` of the test file
    importing it, by ``<name>``) it goes to, when each test ran the lines ``runs`` gives."""
    test_file = f"tests/test_{Path(rel).stem}.py"
    trace = Trace(
        engine="settrace",
        phases={
            f"{test_file}::test_{t}": {"call": {rel: list(lines)}} for t, lines in runs.items()
        },
        import_lines={rel: [ln for _f, ln in top_level]},
        session_lines={},
        imports={test_file: [rel]},
    )
    spec = spectra(trace, trace.phases, Statements(root))
    return {ln: {t.rsplit("_", 1)[1] for t, s in spec.items() if ln in s} for ln in top_level}


def test_definitions_go_to_their_users_the_rest_to_every_dependent(make_project):
    root = make_project(UNITS, use_git=False)
    at = _finder(root, "units/convert.py")
    top_level = [
        at(p)
        for p in (
            "import math",
            "__all__",
            "KM_PER_MILE",
            "FEET_PER_MILE",
            "DIGITS",
            "def km",
            "def feet",
            "def rounded",
            "class Scale",
            "factor = 10",
            "def up",
            "def lookup",
        )
    ]
    body = {
        name: at(code)
        for name, code in (
            ("km", "return miles * KM"),
            ("feet", "return miles * FEET"),
            ("rounded", "return round"),
            ("up", "return x * self"),
            ("lookup", "return globals"),
        )
    }
    tests = {
        "km": [body["km"][1]],
        "feet": [body["feet"][1]],
        "rounded": [body["rounded"][1]],
        "scale": [body["up"][1]],
        "lookup": [body["lookup"][1]],
    }
    users = _users(root, "units/convert.py", tests, top_level)
    everyone = set(tests)
    assert users[at("import math")] == everyone  # not a definition
    assert users[at("KM_PER_MILE")] == {"km"}
    # a name read as a string counts too: test_lookup passes "FEET_PER_MILE" to lookup()
    # (a test reads its own function of the test file, not the others')
    assert users[at("FEET_PER_MILE")] == {"feet", "lookup"}
    # ... a default value's name goes with the def statement that reads it
    assert users[at("DIGITS")] == users[at("def rounded")] == {"rounded"}
    # a class attribute read as self.factor, by the test that ran the method
    assert users[at("factor = 10")] == users[at("def up")] == {"scale"}
    # the class itself is named by the test file's import, which every test in it runs
    assert users[at("class Scale")] == everyone
    # a definition no test is seen to use goes to every dependent
    assert users[at("__all__")] == everyone


def test_test_code_reads_names_imports_and_dotted_strings_not_every_word(tmp_path: Path):
    """A test file is read as code: the names it loads, the names it imports, strings that
    are identifiers (``getattr``) or dotted names (``mock.patch``); not the words of its
    data and messages (``"TEST=value"`` reads no ``value``)."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_n.py").write_text(
        "from pkg.mod import IMPORTED as alias\n"
        "import pkg.other\n"
        "def test_n(monkeypatch):\n"
        '    monkeypatch.setattr(pkg.other, "SET_BY_NAME", 1)\n'
        '    with mock.patch("pkg.mod.PATCHED"):\n'
        '        assert alias.ATTR == "TEST=value and words"  # COMMENT_WORD\n'
    )
    reads = Statements(tmp_path).defuse.test_reads("tests/test_n.py::test_n")
    # plain names, and the reads that can reach an attribute (marked ".")
    assert {"IMPORTED", "pkg", "mod", "other", "mock"} <= reads
    assert {".SET_BY_NAME", ".PATCHED", ".ATTR", ".setattr"} <= reads
    assert not {"SET_BY_NAME", "PATCHED", "ATTR"} & reads
    assert not {"value", "words", "COMMENT_WORD", "TEST"} & words(reads)
    # a file that does not parse: every word of it, read both ways, as nothing better can
    # be known
    (tmp_path / "tests" / "test_bad.py").write_text("def test_x(:\n    USED_SOMEHOW\n")
    bad = Statements(tmp_path).defuse.test_reads("tests/test_bad.py::test_x")
    assert {"USED_SOMEHOW", ".USED_SOMEHOW"} <= bad


def words(reads: Iterable[str]) -> set[str]:
    """The names read, of either kind."""
    return {r.removeprefix(".") for r in reads}


def test_reads_of_the_test_file_and_conftest_count(tmp_path: Path):
    (tmp_path / "tests" / "unit").mkdir(parents=True)
    (tmp_path / "tests" / "conftest.py").write_text("import cfg\nTIMEOUT = cfg.TIMEOUT\n")
    (tmp_path / "tests" / "unit" / "test_a.py").write_text("from lib import RATE\n")
    reads = Statements(tmp_path).defuse.test_reads("tests/unit/test_a.py")
    assert {"RATE", ".TIMEOUT", "cfg"} <= reads


SLICED = """\
import pytest
from lib import MODULE_NAME

LIMIT = CONSTANT_NAME


@pytest.fixture
def made():
    return FIXTURE_NAME


def helper():
    return HELPER_NAME + deeper()


def deeper():
    return DEEPER_NAME


def other():
    return OTHER_NAME


class TestBase:
    def setup_method(self):
        self.x = SETUP_NAME

    def test_inherited(self):
        assert INHERITED_NAME


class TestX(TestBase):
    locale = LOCALE_NAME

    def check(self, v):
        assert v == CHECK_NAME

    def unused(self):
        return UNUSED_NAME

    @pytest.mark.parametrize("v", [PARAM_NAME])
    def test_one(self, v, made):
        self.check(helper())

    def test_two(self):
        assert TWO_NAME
"""


def test_a_test_reads_its_own_part_of_the_test_file(tmp_path: Path):
    """Its function, what that calls in the file (helpers, its class's methods), its
    class's statements and set-up, the file's fixtures and module-level statements; not
    the other tests' functions. A test not found there reads the whole file."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_s.py").write_text(SLICED)
    defuse = Statements(tmp_path).defuse
    one = defuse.test_reads("tests/test_s.py::TestX::test_one[PARAM-1]")
    assert {
        "MODULE_NAME",
        "CONSTANT_NAME",
        "FIXTURE_NAME",
        "HELPER_NAME",
        "DEEPER_NAME",
        "SETUP_NAME",
        "LOCALE_NAME",
        "CHECK_NAME",
        "PARAM_NAME",
    } <= one
    assert not {"OTHER_NAME", "TWO_NAME", "UNUSED_NAME"} & words(one)
    # the parametrized cases share one answer
    assert defuse.test_reads("tests/test_s.py::TestX::test_one[PARAM-2]") == one
    # a test inherited from a base class in the file is found there
    inherited = defuse.test_reads("tests/test_s.py::TestX::test_inherited")
    assert {"INHERITED_NAME", "SETUP_NAME", "LOCALE_NAME"} <= inherited
    assert not {"TWO_NAME", "HELPER_NAME", "OTHER_NAME"} & words(inherited)
    # not found (or no test named): the whole file
    for whole in ("tests/test_s.py::test_missing", "tests/test_s.py"):
        assert {"OTHER_NAME", "TWO_NAME", "UNUSED_NAME"} <= defuse.test_reads(whole)


LOCALES = {
    "lingo/__init__.py": "",
    "lingo/locales.py": """
        class Locale:
            names = []
            timeframes = {"now": "just now", "hours": "{0} hours"}

            def describe(self, frame, n):
                return self.timeframes[frame].format(n)


        class EnglishLocale(Locale):
            names = ["en"]
            timeframes = {"now": "just now", "hours": "{0} hours"}


        class SwedishLocale(Locale):
            names = ["sv"]
            timeframes = {"now": "just nu", "hours": "{0} timme"}  # the fault: timmar


        class GermanLocale(Locale):
            names = ["de"]
            timeframes = {"now": "gerade eben", "hours": "{0} Stunden"}


        _by_name = {}
        for _cls in (EnglishLocale, SwedishLocale, GermanLocale):
            for _n in _cls.names:
                _by_name[_n] = _cls


        def get_locale(name):
            return _by_name[name]()
        """,
    "tests/test_locales.py": """
        import pytest
        from lingo.locales import get_locale

        @pytest.mark.parametrize(
            "lang, frame, expected",
            [
                ("en", "hours", "2 hours"),
                ("en", "now", "just now"),
                ("de", "hours", "2 Stunden"),
                ("de", "now", "gerade eben"),
                ("sv", "now", "just nu"),
            ],
        )
        def test_describe(lang, frame, expected):
            assert get_locale(lang).describe(frame, 2) == expected

        def test_swedish_hours():
            assert get_locale("sv").describe("hours", 2) == "2 timmar"
        """,
}


def tables_of(root: Path) -> list[int]:
    src = (root / "lingo/locales.py").read_text().splitlines()
    return [n for n, t in enumerate(src, 1) if t.lstrip().startswith("timeframes =")]


@pytest.mark.slow
def test_a_wrong_class_attribute_ranks_first_among_tables_of_one_name(make_project):
    """Four locale classes bind ``timeframes``, which the base class reads as
    ``self.timeframes``: the Swedish table matters to the tests that used a Swedish
    locale (the tracer records the classes of methods' receivers), not to every test
    that read an attribute of that name."""
    root = make_project(LOCALES, use_git=False)
    doc = localize(
        open_project(root, PY, "none"),
        ["tests/test_locales.py::test_swedish_hours"],
        LocalizeOptions(timeout=60),
    )
    tables = tables_of(root)
    ranked = {r["line"]: r for r in doc["ranking"] if r["file"] == "lingo/locales.py"}
    swedish = ranked[tables[2]]
    # the failing test and the one passing Swedish test, no other
    assert (swedish["counts"]["ef"], swedish["counts"]["ep"]) == (1, 1)
    assert (swedish["rank"], swedish["ties"]) == (1, 1), doc["ranking"][:3]
    # the English and German tables are not in the failing test's spectrum at all; the
    # base class's own (overridden) table is, and is ranked below
    assert tables[1] not in ranked and tables[3] not in ranked
    assert ranked[tables[0]]["rank"] > 1


CLASS_SCOPED = {
    **{k: v for k, v in LOCALES.items() if not k.startswith("tests/")},
    "tests/test_classes.py": """
        import pytest
        from lingo.locales import get_locale

        @pytest.fixture(scope="class")
        def loc(request):
            request.cls.locale = get_locale(request.cls.lang)

        @pytest.mark.usefixtures("loc")
        class TestSwedish:
            lang = "sv"

            def test_now(self):
                assert self.locale.describe("now", 2) == "just nu"

            def test_table(self):
                assert self.locale.timeframes["hours"] == "{0} timmar"

        @pytest.mark.usefixtures("loc")
        class TestGerman:
            lang = "de"

            def test_now(self):
                assert self.locale.describe("now", 2) == "gerade eben"
        """,
}


@pytest.mark.slow
def test_a_test_that_only_reads_what_a_class_scoped_fixture_made_uses_its_class(make_project):
    """test_table runs no method of the Swedish locale (its sibling's set-up made it and
    the sibling called it): it gets its test class's receivers, so the Swedish table
    (and the base class's) goes to it, not the German one, which the German tests use.
    (The English one no test is seen to use: it goes to every test, as the coarse rule
    says.)"""
    root = make_project(CLASS_SCOPED, use_git=False)
    doc = localize(
        open_project(root, PY, "none"),
        ["tests/test_classes.py::TestSwedish::test_table"],
        LocalizeOptions(timeout=60),
    )
    tables = tables_of(root)
    ranked = {r["line"]: r for r in doc["ranking"] if r["file"] == "lingo/locales.py"}
    assert tables[3] not in ranked
    counts = {
        n: (ranked[tables[n]]["counts"]["ef"], ranked[tables[n]]["counts"]["ep"]) for n in (0, 1, 2)
    }
    assert counts == {0: (1, 2), 1: (1, 2), 2: (1, 1)}
    assert ranked[tables[2]]["rank"] < ranked[tables[1]]["rank"]


OPTIONS = {
    "opts/__init__.py": "",
    "opts/core.py": """
        class Options:
            max: float | None
            limit = 3
            doubled = limit * 2


        def biggest(a, b):
            return max(a, b)


        def top(options):
            return options.max


        def twice(options):
            return options.doubled
        """,
    "tests/test_core.py": """
        from opts.core import Options, biggest, top, twice

        def test_biggest():
            assert biggest(1, 2) == 2

        def test_top():
            assert top(Options()) is None

        def test_twice():
            assert twice(Options()) == 6
        """,
}


def test_a_class_attribute_is_read_as_an_attribute_not_by_a_plain_name(make_project):
    """``max(a, b)`` cannot read a class-level ``max: float | None``: outside its class
    body, only an attribute (``options.max``) or a string reaches a class attribute. In
    its own class body a plain name does (``doubled = limit * 2``)."""
    root = make_project(OPTIONS, use_git=False)
    at = _finder(root, "opts/core.py")
    top_level = [at(p) for p in ("class Options", "max:", "limit =", "doubled =")]
    top_level += [at(p) for p in ("def biggest", "def top", "def twice")]
    runs = {"biggest": "return max", "top": "return options.max", "twice": "return options.d"}
    users = _users(root, "opts/core.py", {t: [at(c)[1]] for t, c in runs.items()}, top_level)
    assert users[at("max:")] == {"top"}  # not "biggest"
    assert users[at("doubled =")] == {"twice"}
    # what the class body's statement reads by a plain name is its own class attribute
    assert users[at("limit =")] == {"twice"}


TABLE = {
    "words/__init__.py": "",
    "words/plural.py": """
        import re

        RULES = [("s$", "ses"), ("$", "s")]


        def _irregular(singular, plural):
            if singular[0] == plural[0]:
                RULES.insert(0, (singular + "$", plural))
            else:
                RULES.insert(0, (singular[1:] + "$", plural))  # the fault: singular + "$"


        def pluralize(word):
            for rule, replacement in RULES:
                if re.search(rule, word):
                    return re.sub(rule, replacement, word)
            return word


        def shout(word):
            return word.upper() + "!"


        _irregular("person", "people")
        _irregular("cow", "kine")
        """,
    "tests/test_plural.py": """
        from words.plural import pluralize, shout

        def test_cow():
            assert pluralize("cow") == "kine"

        def test_person():
            assert pluralize("person") == "people"

        def test_bus():
            assert pluralize("bus") == "buses"

        def test_shout():
            assert shout("hey") == "HEY!"

        def test_shout_more():
            assert shout("ho") == "HO!"
        """,
}


def test_changing_a_module_variable_in_place_defines_it():
    source = textwrap.dedent(
        """\
        RULES = []
        COUNT = 0
        SEEN = {}


        def add(rule):
            if rule:
                RULES.append(rule)
            SEEN[rule] = True


        def bump():
            global COUNT
            COUNT = COUNT + 1


        def local(RULES):
            RULES.append(1)
            cache = {}
            cache.update(a=1)


        def looped():
            for RULES in ([],):
                RULES.append(2)


        add("x")
        RULES.extend(["y"])
        local([])
        """
    )
    binds = analyse(ast.parse(source)).binds
    assert binds[7] == {"RULES"}  # if rule: its decision chose the change
    assert binds[8] == {"RULES"} and binds[9] == {"SEEN"}
    assert binds[14] == {"COUNT"}  # a global declared and assigned
    # a parameter or loop variable of the same name, and a local object, are not the module's
    assert not {18, 20, 25} & binds.keys()
    assert binds[28] == {"RULES", "SEEN"}  # a module-level call of a function that changes them
    assert binds[29] == {"RULES"}
    assert 30 not in binds


def test_a_table_built_by_calls_at_import_goes_to_the_tests_that_read_it(make_project):
    root = make_project(TABLE, use_git=False)
    rel = "words/plural.py"
    at = _finder(root, rel)
    faulty = at("RULES.insert(0, (singular[1:]")
    condition = at("if singular[0] == plural[0]")
    call = at('_irregular("cow"')
    body = {
        "cow": [at("for rule")[1], at("if re.search")[1], at("return re.sub")[1]],
        "person": [at("for rule")[1], at("if re.search")[1], at("return re.sub")[1]],
        "shout": [at("return word.upper")[1]],
    }
    test_file = "tests/test_plural.py"
    function_lines = [condition[1], at("RULES.insert(0, (singular +")[1], faulty[1]]
    trace = Trace(
        engine="settrace",
        phases={f"{test_file}::test_{t}": {"call": {rel: lines}} for t, lines in body.items()},
        import_lines={rel: [ln for _f, ln in (at("import re"), at("RULES = "), call)]},
        session_lines={},
        imports={test_file: [rel]},
        import_runs={rel: {rel: function_lines}},
    )
    stmts = Statements(root)
    spec = spectra(trace, trace.phases, stmts)
    readers = {t.rsplit("_", 1)[1] for t, s in spec.items() if faulty in s}
    assert readers == {"cow", "person"}  # not test_shout: it never reads RULES
    assert {t.rsplit("_", 1)[1] for t, s in spec.items() if condition in s} == readers
    assert {t.rsplit("_", 1)[1] for t, s in spec.items() if call in s} == readers
    # the function ran only at import: mutating it later would change nothing
    assert import_only(trace, stmts) == {(rel, n) for n in function_lines}
    trace.phases[f"{test_file}::test_shout"]["call"][rel] = [*body["shout"], faulty[1]]
    assert faulty not in import_only(trace, stmts)


@pytest.mark.slow
def test_a_wrong_rule_made_at_import_is_ranked_among_the_tables_readers(make_project):
    root = make_project(TABLE, use_git=False)
    doc = localize(
        open_project(root, PY, "none"),
        ["tests/test_plural.py::test_cow"],
        LocalizeOptions(timeout=60),
    )
    fault = next(r for r in doc["ranking"] if "singular[1:]" in r["code"])
    # every passing test depends on the module; only test_person and test_bus read RULES
    assert fault["counts"] == {"ef": 1, "nf": 0, "ep": 2, "np": 2}
    assert fault["rank"] <= 8
    # the shout tests' line never ran in the failing test, the module's imports ran in all
    everyone = next(r for r in doc["ranking"] if r["code"] == "import re")
    assert everyone["counts"]["ep"] == 4 and everyone["rank"] > fault["rank"]
    # its tie group starts in the top places, where mutants are made; the function ran
    # only at import, so its mutants ran with the module's body run again. The fault's
    # own (the rule inserted at another place) reached no test: no score for it
    assert fault["rank"] - fault["ties"] < mutation.TOP
    cow = next(r for r in doc["ranking"] if r["code"] == '_irregular("cow", "kine")')
    assert any("3 of 3 mutant(s) changed the failing test's result" in e for e in cow["evidence"])
    assert not any("mutant" in e for e in fault["evidence"])
