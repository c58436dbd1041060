"""`truegreen localize` on fixture projects, with real pytest runs in the target interpreter."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.localize.helpers import localized
from truegreen.cli import main
from truegreen.errors import UsageError
from truegreen.events import Events
from truegreen.localize import LocalizeOptions, localize
from truegreen.project import open_project

PY = sys.executable
SECRET = "s3cr3t-Hunter2-value-42"

CRASH_PROJECT = {
    "shop/__init__.py": "",
    "shop/cart.py": f'''
        class Loopy:
            def __init__(self, name):
                self.name = name

            def __repr__(self):
                while True:
                    pass

        class Broken:
            def __init__(self, name):
                self.name = name

            def __repr__(self):
                raise RuntimeError("no repr for you")

            @property
            def boom(self):
                raise RuntimeError("property called")

        def lookup(prices, name):
            password = "{SECRET}"
            loopy, broken = Loopy(name), Broken(name)
            price = prices.get(name)
            return price

        def total(prices, names):
            s = 0
            for n in names:
                p = lookup(prices, n)
                s += p * 1
            return s
        ''',
    "tests/test_cart.py": """
        from shop.cart import total

        PRICES = {"apple": 2, "pear": 3}

        def test_one():
            assert total(PRICES, ["apple"]) == 2

        def test_two():
            assert total(PRICES, ["apple", "pear"]) == 5

        def test_missing():
            assert total(PRICES, ["apple", "kiwi"]) == 2
        """,
}


@pytest.fixture(scope="module")
def crash_doc(tmp_path_factory: pytest.TempPathFactory) -> dict:
    from tests.conftest import write_files

    root = tmp_path_factory.mktemp("crash") / "proj"
    root.mkdir()
    write_files(root, CRASH_PROJECT)
    project = open_project(root, PY, "none")
    return localize(project, ["tests/test_cart.py::test_missing"], LocalizeOptions(timeout=60))


@pytest.mark.slow
def test_crash_site_ranks_first_and_the_none_is_traced_to_its_origin(crash_doc):
    doc = crash_doc
    assert doc["schema"] == "truegreen.localization/1"
    assert doc["failure"]["crash"]["file"] == "shop/cart.py"
    crash_line = doc["failure"]["crash"]["line"]
    first = doc["ranking"][0]
    assert (first["file"], first["line"], first["rank"]) == ("shop/cart.py", crash_line, 1)
    assert "crash frame" in first["evidence"]
    # scores are exact strings, never floats
    for r in doc["ranking"]:
        assert isinstance(r["score"], str) and r["score"].startswith("sqrt(")
        assert r["rank"] >= 1 and r["ties"] >= 1
    (origin,) = doc["values"]["origins"]
    assert origin["var"] == "p"
    assert origin["assigned_at"]["line"] == crash_line - 1
    # `return price` in lookup produced the None
    assert doc["values"]["passing"] in (
        "tests/test_cart.py::test_two",
        "tests/test_cart.py::test_one",
    )


def test_no_secret_and_no_user_repr_reaches_any_output(crash_doc):
    assert SECRET not in json.dumps(crash_doc)
    # values are rendered without calling __repr__ or properties (the source excerpts
    # may quote the code itself, so look at the values only)
    values = json.dumps(crash_doc["values"])
    assert "no repr for you" not in values and "property called" not in values
    assert '"Loopy"' in values and '"Broken"' in values


def test_context_fits_the_budget_and_carries_rerun_and_hashes(crash_doc):
    ctx = crash_doc["context"]
    assert ctx["tokens"] <= ctx["budget"]
    assert "crash site: shop/cart.py" in ctx["text"]
    assert "rerun: " in ctx["text"] and "tests/test_cart.py::test_missing" in ctx["text"]
    assert set(ctx["files"]) == {"shop/cart.py"}
    assert crash_doc["measurement"]["consistent"] is True
    assert crash_doc["order_dependence"]["order_dependent"] is False


@pytest.mark.slow
def test_small_budget_still_fits_and_names_what_was_left_out(make_project):
    root = make_project(CRASH_PROJECT, use_git=False)
    project = open_project(root, PY, "none")
    doc = localize(
        project,
        ["tests/test_cart.py::test_missing"],
        LocalizeOptions(budget_tokens=200, check_measurement=False, timeout=60),
    )
    ctx = doc["context"]
    assert ctx["tokens"] <= 200 and ctx["omitted"]
    assert "omitted (ask for these by handle)" in ctx["text"]


ORDER_PROJECT = {
    "reg/__init__.py": "",
    "reg/registry.py": """
        import sys

        _items = []
        LIMIT = 3 - 1

        def add(x):
            _items.append(x)
            return len(_items)

        def room():
            return LIMIT - len(_items)

        def untraced():
            return sys.gettrace() is None
        """,
    "tests/test_reg.py": """
        from reg.registry import add, room, untraced

        def test_fill():
            add(1)
            assert add(2) == 2

        def test_room_after():
            assert room() == 2

        def test_not_traced():
            assert untraced()

        def test_limit_positive():
            from reg.registry import LIMIT
            assert LIMIT >= 3
        """,
}


WARM_PROJECT = {
    "warm/__init__.py": "",
    "warm/cache.py": """
        _cache = {}

        def load(name):
            _cache[name] = name.upper()
            return _cache[name]

        def lookup(name):
            return _cache.get(name, "")  # the fault: a name not loaded yet is not loaded
        """,
    "tests/test_cache.py": """
        from warm.cache import load, lookup

        def test_load():
            assert load("a") == "A"

        def test_lookup():
            assert lookup("a") == "A"
        """,
}


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", ["none", pytest.param("bwrap", marks=pytest.mark.bwrap)])
def test_a_test_that_fails_alone_but_passes_after_the_others_is_measured_run_first(
    make_project, sandbox
):
    """In the suite's order test_lookup passes (test_load filled the cache); run first, as
    a user running it alone sees it, it fails. The measured run is repeated with it first,
    and the order check says it relies on state other tests leave behind. (Sandboxed, the
    bare run runs beside the measured one; without a sandbox, after it.)"""
    root = make_project(WARM_PROJECT, use_git=False)
    messages: list[str] = []
    doc = localize(
        open_project(root, PY, sandbox),
        ["tests/test_cache.py::test_lookup"],
        LocalizeOptions(timeout=60),
        events=Events("localize", lambda e: messages.append(e.message or "")),
    )
    order = doc["order_dependence"]
    assert (order["in_selection"], order["alone"], order["order_dependent"]) == (
        "passed",
        "failed",
        True,
    )
    assert "relies on state" in order["note"]
    assert any("fails run first" in m for m in messages)
    assert doc["failing"] == ["tests/test_cache.py::test_lookup"]
    top = doc["ranking"][0]
    assert (
        top["code"]
        == 'return _cache.get(name, "")  # the fault: a name not loaded yet is not loaded'
    )
    assert (top["counts"]["ef"], top["counts"]["ep"]) == (1, 0)


@pytest.mark.slow
def test_order_dependence_import_time_fault_and_measurement_check(make_project):
    root = make_project(ORDER_PROJECT, use_git=False)
    project = open_project(root, PY, "none")
    doc = localize(
        project,
        ["tests/test_reg.py::test_room_after", "tests/test_reg.py::test_limit_positive"],
        LocalizeOptions(timeout=60),
    )
    order = doc["order_dependence"]
    assert order["in_selection"] == "failed" and order["alone"] == "passed"
    assert order["order_dependent"] is True
    assert "ORDER-DEPENDENT" in doc["context"]["text"]
    # the module-level line `LIMIT = 3 - 1` runs at import time, outside any test, and is
    # still ranked (attributed to the tests that depend on the module)
    limit = next(r for r in doc["ranking"] if r["code"] == "LIMIT = 3 - 1")
    assert limit["counts"]["ef"] == 2
    meas = doc["measurement"]
    if doc["engine"] == "settrace":
        # a test that looks at the tracer passes bare and fails measured: said, not hidden
        assert meas["consistent"] is False
        assert {
            "id": "tests/test_reg.py::test_not_traced",
            "bare": "passed",
            "measured": "failed",
        } in meas["mismatches"]


@pytest.mark.slow
def test_a_passing_test_is_refused(make_project):
    root = make_project(ORDER_PROJECT, use_git=False)
    project = open_project(root, PY, "none")
    with pytest.raises(UsageError, match="the test passes here: nothing to localize") as err:
        localize(
            project,
            ["tests/test_reg.py::test_fill"],
            LocalizeOptions(timeout=60, check_measurement=False),
        )
    # what "here" means: run in the suite's order and first, in truegreen's environment
    assert "TZ=UTC" in str(err.value.hint) and "TRUEGREEN_PASS_ENV" in str(err.value.hint)


@pytest.mark.slow
def test_cli_json_is_one_document_and_bad_ids_exit_2(make_project, capsys):
    root = make_project(CRASH_PROJECT, use_git=False)
    args = ["localize", "--repo", str(root), "--python", PY, "--sandbox", "none"]
    with pytest.raises(SystemExit) as exc:
        main([*args, "tests/test_cart.py::test_missing", "--json", "--budget-tokens", "300"])
    out = capsys.readouterr().out
    assert exc.value.code in (0, None)
    doc = json.loads(out)
    assert doc["schema"] == "truegreen.localization/1"
    assert doc["target"] == ["tests/test_cart.py::test_missing"]
    assert SECRET not in out
    with pytest.raises(SystemExit) as exc:
        main([*args, "tests/test_cart.py::test_nope"])
    assert exc.value.code == 2
    assert "error" in capsys.readouterr().err


def test_stale_context_is_detected(make_project):
    from truegreen.localize.context import stale_files

    root = make_project(CRASH_PROJECT, use_git=False)
    project = open_project(root, PY, "none")
    doc = localize(
        project,
        ["tests/test_cart.py::test_missing"],
        LocalizeOptions(check_measurement=False, values=False, timeout=60),
    )
    assert stale_files(doc["context"], root) == []
    cart = Path(root, "shop/cart.py")
    cart.write_text(cart.read_text() + "\n# edited\n")
    assert stale_files(doc["context"], root) == ["shop/cart.py"]


REAL_SHAPES = {
    "calc/__init__.py": "",
    "calc/core.py": """
        import os

        def double(x):
            return x + x + (1 if x == 3 else 0)

        def save(path, text):
            with open(path, "w") as fh:
                fh.write(text)
        """,
    "tests/test_core.py": """
        import pytest
        from calc.core import double, save

        @pytest.mark.parametrize("x, want", [(1, 2), (3, 6), (4, 8)])
        def test_double(x, want):
            assert double(x) == want

        def test_save(tmp_path):
            save(__file__ + ".out", "x")
        """,
    # another module of the selection that cannot be collected (it imports calc.core too)
    "tests/test_broken.py": "from calc.core import double\nimport no_such_module_xyz\n",
}


@pytest.mark.slow
def test_real_project_shapes_function_ids_collection_errors(make_project):
    """Found on real bugs (BugsInPy, click): a parametrized test named by its function, and
    another test module of the selection that fails to collect."""
    root = make_project(REAL_SHAPES, use_git=False)
    project = open_project(root, PY, "none")
    doc = localize(
        project,
        ["tests/test_core.py::test_double"],
        LocalizeOptions(timeout=60, check_measurement=False),
    )
    assert doc["target"] == [
        "tests/test_core.py::test_double[1-2]",
        "tests/test_core.py::test_double[3-6]",
        "tests/test_core.py::test_double[4-8]",
    ]
    assert doc["failing"] == ["tests/test_core.py::test_double[3-6]"]
    assert doc["ranking"][0]["file"] == "calc/core.py"
    assert doc["warnings"] == []


@pytest.mark.bwrap
def test_a_failure_the_sandbox_causes_is_said_so(make_project):
    root = make_project(REAL_SHAPES, use_git=False)
    doc = localize(
        open_project(root, PY, "bwrap"),
        ["tests/test_core.py::test_save"],
        LocalizeOptions(timeout=60, check_measurement=False, values=False),
    )
    assert doc["failure"]["exc_type"] in ("PermissionError", "OSError")
    assert "sandbox" in doc["warnings"][0] and "--sandbox none" in doc["warnings"][0]
    assert "WARNING: " in doc["context"]["text"]


@pytest.mark.slow
def test_a_target_whose_module_cannot_be_collected_names_the_module(make_project):
    root = make_project(
        {
            **REAL_SHAPES,
            "tests/test_core.py": "import no_such_module_xyz\n\ndef test_a():\n    pass\n",
        },
        use_git=False,
    )
    with pytest.raises(UsageError, match=r"tests/test_core.py.*no_such_module_xyz"):
        localize(
            open_project(root, PY, "none"),
            ["tests/test_core.py::test_a"],
            LocalizeOptions(timeout=60, check_measurement=False),
        )


REJECTED_PROJECT = {
    "words/__init__.py": "",
    "words/plural.py": """
        def singular(word):
            w = word.strip().lower()
            if not w.endswith("s"):
                return w
            candidate = w[:-2]
            stem = w[:-1]
            out = stem.upper().lower()
            return out

        def shout(word):
            return word.upper() + "!"
        """,
    "tests/test_plural.py": """
        from words.plural import singular, shout

        def test_shout():
            assert shout("a") == "A!"

        def test_glasses():
            assert "glass" == singular(" Glasses ")
        """,
}


def _localize_words(make_project, files: dict[str, str], test_id: str) -> dict:
    """Localize ``test_id`` in the words project; the faulty line ranks first, alone (by
    the values' evidence: without mutants)."""
    root = make_project(files, use_git=False)
    opts = LocalizeOptions(timeout=60, mutants=False)
    doc = localize(open_project(root, PY, "none"), [test_id], opts)
    top = doc["ranking"][0]
    assert (top["code"], top["rank"], top["ties"]) == ("stem = w[:-1]", 1, 1)
    return doc


@pytest.mark.slow
def test_the_line_that_produced_the_rejected_value_breaks_the_tie(make_project):
    """Every line of ``singular`` runs for the failing test alone: the spectrum ties them.
    The assertion rejected 'glasse'; the line that first produced it ranks first, not the
    line that only passed it on, nor the one that produced the expected literal 'glass'."""
    doc = _localize_words(make_project, REJECTED_PROJECT, "tests/test_plural.py::test_glasses")
    top = doc["ranking"][0]
    assert top["evidence"] == ["produced the value the assertion rejected"]
    assert doc["values"]["rejected"] == [
        {
            "op": "==",
            "produced_at": {"file": "words/plural.py", "line": top["line"]},
            "value": "glasse",
        }
    ]
    by_code = {r["code"]: r for r in doc["ranking"]}
    assert by_code["candidate = w[:-2]"]["evidence"] == []
    assert by_code["out = stem.upper().lower()"]["evidence"] == []


@pytest.mark.slow
def test_a_failed_assert_equal_of_a_unittest_case_is_read_the_same_way(make_project):
    files = dict(REJECTED_PROJECT)
    files["tests/test_plural.py"] = """
        import unittest

        from words.plural import singular, shout

        class TestWords(unittest.TestCase):
            def test_shout(self):
                self.assertEqual(shout("a"), "A!")

            def test_glasses(self):
                self.assertEqual(
                    singular(" Glasses "),
                    "glass",
                )
        """
    doc = _localize_words(make_project, files, "tests/test_plural.py::TestWords::test_glasses")
    assert [r["value"] for r in doc["values"]["rejected"]] == ["glasse"]
    # the wrapper that reads the operands is not in what pytest shows of the failure
    assert "truegreen_trace" not in doc["excerpt"]
    assert "AssertionError: 'glasse' != 'glass'" in doc["excerpt"]
    # nor in its signature, which would otherwise name the wrapper's frame (a path that
    # depends on where truegreen is installed) instead of the test's
    assert doc["failure"]["signature"].startswith(
        "AssertionError@tests/test_plural.py:test_glasses#"
    )


@pytest.mark.slow
def test_a_plain_assert_in_a_helper_module_pytest_does_not_rewrite_is_read_too(make_project):
    """pytest rewrites asserts only in test modules and conftest files: an ``assert`` in a
    shared helper fails with a bare AssertionError. Its operands are read by name from the
    frame that failed, so the rejected value still breaks the tie."""
    files = dict(REJECTED_PROJECT)
    files["tests/common.py"] = """
        def assert_equal(expected, result):
            print("got", result)
            assert expected == result
        """
    files["tests/test_plural.py"] = """
        from common import assert_equal
        from words.plural import singular, shout

        def test_shout():
            assert_equal("A!", shout("a"))

        def test_glasses():
            assert_equal("glass", singular(" Glasses "))
        """
    files["tests/conftest.py"] = """
        import os, sys
        sys.path.insert(0, os.path.dirname(__file__))
        """
    doc = _localize_words(make_project, files, "tests/test_plural.py::test_glasses")
    assert doc["values"]["rejected"] == [
        {
            "op": "==",
            "produced_at": {"file": "words/plural.py", "line": doc["ranking"][0]["line"]},
            "value": "glasse",
        }
    ]
    # the helper's bare AssertionError is what pytest shows: nothing was rewritten
    assert "AssertionError" in doc["excerpt"] and "glasse" not in doc["excerpt"].split("E ")[-1]


@pytest.mark.slow
def test_a_helper_method_s_parameters_are_read_at_its_call(make_project):
    """``self.check(got, want="glass")``: the literal is what the caller passed for ``want``
    (a keyword here, after ``self``), so only the produced operand is traced back."""
    files = dict(REJECTED_PROJECT)
    files["tests/test_plural.py"] = """
        from words.plural import singular, shout

        class TestWords:
            def check(self, got, want):
                assert got == want

            def test_shout(self):
                self.check(shout("a"), "A!")

            def test_glasses(self):
                self.check(singular(" Glasses "), want="glass")
        """
    doc = _localize_words(make_project, files, "tests/test_plural.py::TestWords::test_glasses")
    assert [r["value"] for r in doc["values"]["rejected"]] == ["glasse"]


TABLE_PROJECT = {
    "fmt/__init__.py": "",
    "fmt/table.py": """
        def cell(v, width):
            s = str(v)
            if isinstance(v, int):
                return " " * (width - len(s) + 1) + s
            return s + " " * (width - len(s))

        def row(values, widths):
            parts = [cell(v, w) for v, w in zip(values, widths)]
            return "  ".join(parts)

        def render(rows):
            widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
            lines = [row(rows[0], widths), "  ".join("-" * w for w in widths)]
            for r in rows[1:]:
                lines.append(row(r, widths))
            return "\\n".join(lines)
        """,
    "tests/test_table.py": """
        from fmt.table import render

        def test_words():
            assert render([("a", "b"), ("cc", "dd")]) == "a   b \\n--  --\\ncc  dd"

        def test_numbers():
            assert render([("name", "qty"), ("pear", 10)]) == "name  qty\\n----  ---\\npear   10"
        """,
}


@pytest.mark.slow
def test_the_row_where_a_rendered_text_differs_is_traced_to_where_it_was_made(make_project):
    root = make_project(TABLE_PROJECT, use_git=False)
    doc = localize(
        open_project(root, PY, "none"),
        ["tests/test_table.py::test_numbers"],
        LocalizeOptions(timeout=60, mutants=False),  # the values' evidence alone
    )
    source = (root / "fmt" / "table.py").read_text().splitlines()
    joined = source.index('    return "  ".join(parts)') + 1  # the row's own return
    padded = source.index('        return " " * (width - len(s) + 1) + s') + 1  # the fault
    parts = [r for r in doc["values"]["rejected"] if r.get("part")]
    # the row, and within it the cell where "pear    10" first differs from "pear   10"
    assert parts == [
        {
            "value": "pear    10",
            "op": "==",
            "part": "first differing line",
            "produced_at": {"file": "fmt/table.py", "line": joined},
        },
        {
            "value": "  10",
            "op": "==",
            "part": "where the text first differs",
            "produced_at": {"file": "fmt/table.py", "line": padded},
        },
    ]
    by_line = {r["line"]: r for r in doc["ranking"]}
    assert by_line[joined]["evidence"] == [
        "produced the first line where the rejected text differs"
    ]
    assert by_line[padded]["evidence"] == [
        "produced the part of the rejected text where it first differs"
    ]
    assert doc["ranking"][0]["line"] == padded


EXCLUDING_PROJECT = {
    "pytest.ini": """
        [pytest]
        addopts = -m "not slow" -k "not flaky" --ignore=tests/integration
        markers =
            slow: a slow test
        """,
    "pkg/__init__.py": "",
    "pkg/calc.py": """
        def double(x):
            return x * 3
        """,
    "tests/test_calc.py": """
        import pytest
        from pkg.calc import double

        @pytest.mark.slow
        def test_double():
            assert double(2) == 4

        def test_zero():
            assert double(0) == 0

        @pytest.mark.slow
        def test_slow_zero():
            assert double(0) == 0

        def test_flaky_zero():
            assert double(0) == 0
        """,
    "tests/integration/test_net.py": """
        from pkg.calc import double

        def test_remote_zero():
            assert double(0) == 0
        """,
}


@pytest.mark.slow
def test_the_project_s_own_exclusions_apply_to_the_passing_tests_not_the_target(make_project):
    # the project's suite leaves out slow tests, a -k pattern and tests/integration (say,
    # they need the network): so does the selection localize runs next to the target, both
    # measured and bare; the target itself runs although it is marked slow
    doc = localized(make_project, EXCLUDING_PROJECT, "tests/test_calc.py::test_double")
    assert doc["failing"] == ["tests/test_calc.py::test_double"]
    assert doc["tests"]["selection"] == 2 and doc["tests"]["passing"] == 1
    assert doc["values"]["passing"] == "tests/test_calc.py::test_zero"
    assert doc["measurement"]["consistent"] is True
    assert doc["order_dependence"]["alone"] == "failed"
    # the rerun command of the target alone takes none of them: -m would deselect it
    assert not {"not slow", "not flaky", "--ignore=tests/integration"} & set(doc["command"])
    assert doc["ranking"][0]["code"] == "return x * 3"


MESSAGE_PROJECT = {
    "check/__init__.py": "",
    "check/errors.py": """
        class Invalid(Exception):
            def __init__(self, message, path):
                super().__init__(message)
                self.message = message
                self.path = path

            def __str__(self):
                where = self.message + " at " + self.path
                return "error: " + where
        """,
    "check/rules.py": """
        from check.errors import Invalid

        def one_of(value, choices, path="value"):
            if value in choices:
                return value
            raise Invalid("must be one of " + ", ".join(choices), path)
        """,
    "tests/test_rules.py": """
        import pytest
        from check.rules import one_of

        def test_known():
            assert one_of("a", ["b", "a"]) == "a"

        def test_unknown_lists_the_choices_in_order():
            with pytest.raises(Exception) as info:
                one_of("c", ["b", "a"])
            assert str(info.value) == "error: must be one of a, b at value"
        """,
}


@pytest.mark.slow
def test_a_text_made_in_a_call_s_arguments_is_traced_to_the_call(make_project):
    # the wrong part ("b, a") was made inside the arguments of `raise Invalid(...)`: nobody's
    # assignment or return. The callee's parameter is traced to its caller's line; and of
    # the texts that hold the place where the rejected text differs, the first made wins
    # over the later, longer ones that assembled it (`where = ...` in __str__)
    doc = localized(
        make_project,
        MESSAGE_PROJECT,
        "tests/test_rules.py::test_unknown_lists_the_choices_in_order",
    )
    parts = [r for r in doc["values"]["rejected"] if r.get("part")]
    assert [(p["produced_at"], p["value"]) for p in parts] == [
        ({"file": "check/rules.py", "line": 6}, "must be one of b, a")
    ]


PATTERN_PROJECT = {
    "pat/__init__.py": "",
    "pat/build.py": r"""
        def number():
            s = r"\d+\.\d+"
            return s

        def pattern():
            body = number()
            return "^" + body + "$"
        """,
    "tests/test_pat.py": """
        import re
        from pat.build import pattern

        def test_plain():
            assert re.match(pattern(), "1.5")

        def test_leading_dot():
            p = pattern()
            assert re.match(p, ".5"), "%r did not match" % p
        """,
}


@pytest.mark.slow
def test_a_text_the_failure_message_shows_breaks_the_tie(make_project):
    # every line runs in both tests; the message shows the pattern, which holds the text
    # `s = ...` made first
    doc = localized(make_project, PATTERN_PROJECT, "tests/test_pat.py::test_leading_dot")
    top = doc["ranking"][0]
    assert (top["file"], top["code"]) == ("pat/build.py", 's = r"\\d+\\.\\d+"')
    assert top["rank"] == 1
    assert "made a text the failure message shows" in top["evidence"]


WRONG_TYPE_PROJECT = {
    "loud/__init__.py": "",
    "loud/shout.py": """
        def shout(record, loud=False):
            text = record.get("title") or record.get("id")  # the fault: str(...) missing
            if loud:
                mark = suffix(record)
                return text.upper() + mark
            return text


        def suffix(record):
            return "!" * record.get("level", 1)
        """,
    "tests/test_shout.py": """
        from loud.shout import shout

        def test_quiet():
            assert shout({"title": "a"}) == "a"

        def test_quiet_again():
            assert shout({"title": "b c"}) == "b c"

        def test_quiet_id():
            assert shout({"title": "", "id": "x"}) == "x"

        def test_loud():
            assert shout({"title": "hey"}, loud=True) == "HEY!"

        def test_loud_id():
            assert shout({"id": 7}, loud=True) == "7!"
        """,
}


@pytest.mark.slow
def test_the_value_of_the_type_a_type_error_names_is_traced_to_its_origin(make_project):
    """``'int' object has no attribute 'upper'``: the local holding the int is traced to
    the line that bound it, which comes right after the crash site, with its guard, ahead
    of lines that score higher (the loud branch's helper)."""
    doc = localized(make_project, WRONG_TYPE_PROJECT, "tests/test_shout.py::test_loud_id")
    (origin,) = doc["values"]["origins"]
    assert (origin["var"], origin["value"], origin["type"]) == ("text", 7, "int")
    assert origin["used_at"]["line"] == doc["failure"]["crash"]["line"]
    top = [(r["code"], r["rank"]) for r in doc["ranking"][:3]]
    assert top == [
        ("return text.upper() + mark", 1),
        ('text = record.get("title") or record.get("id")  # the fault: str(...) missing', 2),
        ("if loud:", 3),
    ]
    assert "assigned the int the error names" in doc["ranking"][1]["evidence"]
    assert "text is of type int at loud/shout.py:" in doc["context"]["text"]


@pytest.mark.parametrize(
    ("exc_type", "message", "named"),
    [
        ("TypeError", "'int' object is not iterable", {"int"}),
        ("builtins.AttributeError", "'NoneType' object has no attribute 'x'", {"NoneType"}),
        ("TypeError", "object of type 'float' has no len()", {"float"}),
        ("TypeError", "decoding to str: need a bytes-like object, int found", {"int"}),
        ("TypeError", 'can only concatenate str (not "int") to str', {"int"}),
        (
            "TypeError",
            "join() argument must be str, bytes or os.PathLike object, not 'list'",
            {"list"},
        ),
        ("TypeError", "unhashable type: 'dict'", {"dict"}),
        # either operand may be the wrong one: none is named
        ("TypeError", "unsupported operand type(s) for +: 'int' and 'str'", set()),
        # not an error about a value's type
        ("ValueError", "'int' object is not what I wanted", set()),
    ],
)
def test_the_type_an_error_could_not_use(exc_type: str, message: str, named: set[str]):
    from truegreen.localize.values import wrong_types

    assert wrong_types(exc_type, message) == named


ATTRIBUTE_PROJECT = {
    "scope/__init__.py": "",
    "scope/names.py": """
        class Binding:
            def __init__(self, name):
                self.name = name
                self.used = False


        def reset(binding):
            binding.used = ()


        def use(binding, where):
            if where == "global":
                binding.used = True  # the fault: (where,) like the other branch
            else:
                binding.used = (where,)


        def audit(binding):
            name = binding.name
            return name.strip()


        def first_use(binding):
            used = binding.used
            if not used:
                return None
            return used[0]
        """,
    "tests/test_names.py": """
        from scope.names import Binding, audit, first_use, reset, use

        def test_unused():
            assert first_use(Binding("a")) is None

        def test_local():
            b = Binding("b")
            use(b, "f")
            assert first_use(b) == "f"

        def test_local_again():
            b = Binding("c")
            use(b, "g")
            assert first_use(b) == "g"

        def test_global_marks():
            b = Binding("d")
            use(b, "global")
            assert b.used

        def test_global():
            b = Binding(" e ")
            reset(b)
            use(b, "global")
            assert audit(b) == "e"
            assert first_use(b) == "global"
        """,
}


@pytest.mark.slow
def test_a_bad_value_read_from_an_attribute_is_traced_to_the_attributes_writers(make_project):
    """``used = binding.used`` bound the bool that ``used[0]`` could not subscript: the
    statements the failing test ran that wrote ``.used`` made it, and come right after
    the crash site, ahead of lines only the failing test ran. A writer of a literal of
    another type (``binding.used = ()``) is not one of them."""
    doc = localized(make_project, ATTRIBUTE_PROJECT, "tests/test_names.py::test_global")
    (origin,) = doc["values"]["origins"]
    assert (origin["var"], origin["value"], origin["type"]) == ("used", True, "bool")
    src = doc["failure"]["crash"]["file"]
    written = [w["line"] for w in origin["written_at"]]
    lines = {r["line"]: r for r in doc["ranking"]}
    assert [lines[n]["code"] for n in written] == [
        "self.used = False",
        "binding.used = True  # the fault: (where,) like the other branch",
    ]
    assert [(r["code"], r["rank"]) for r in doc["ranking"][:2]] == [
        ("return used[0]", 1),
        ("binding.used = True  # the fault: (where,) like the other branch", 2),
    ]
    note = "wrote the attribute the bool the error names was read from"
    assert note in doc["ranking"][1]["evidence"]
    assert f"its .used written at {src}:{written[1]}" in doc["context"]["text"]
