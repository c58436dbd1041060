"""The statements that wrote the entries a failed ``==`` found different are evidence
among tied lines (localize.keys; the tracer's ``_differing_keys``)."""

from __future__ import annotations

import ast
from collections import OrderedDict, namedtuple
from pathlib import Path
from typing import Any

import pytest

from tests.localize.helpers import localized, ranked_by_text
from truegreen.localize import keys
from truegreen.localize._tracer import truegreen_trace as tracer
from truegreen.localize.spectrum import Statements


def _diff(left: Any, right: Any) -> list[list[str]]:
    out: list[list[str]] = []
    tracer._differing_keys(left, right, out, 0)
    return out


def test_the_tracer_names_the_innermost_differing_entries():
    got = {"type": "object", "properties": {"x": {"allOf": [{"type": "string"}]}}}
    want = {"type": "object", "properties": {"x": {"type": "string"}}}
    assert _diff(got, want) == [["extra", "allOf"], ["missing", "type"]]
    assert _diff({"a": 1, "b": False}, {"a": 1, "b": True}) == [["changed", "b"]]
    # lists of one length are followed item by item; an OrderedDict is a dict
    assert _diff([{"k": 1}, {"k": 2}], [{"k": 1}, {"k": 3}]) == [["changed", "k"]]
    assert _diff(OrderedDict(a=1), {"a": 2}) == [["changed", "a"]]
    # named tuples and objects by their fields
    Pair = namedtuple("Pair", "key value")
    assert _diff([Pair("\ufeffa", "b")], [Pair("a", "b")]) == [["changed", "key"]]
    # equal structures, and values that are not structures, name nothing
    assert _diff({"a": [1, 2]}, {"a": [1, 2]}) == []
    assert _diff("abc", "abd") == [] and _diff(1, 2) == []


def test_the_tracer_runs_no_user_code_to_compare():
    calls: list[str] = []

    class Loud:
        def __init__(self, v: int) -> None:
            self.v = v

        def __eq__(self, other: object) -> bool:
            calls.append("eq")
            return True

        def __repr__(self) -> str:
            calls.append("repr")
            return "Loud"

        @property
        def __class__(self):  # type: ignore[override]
            calls.append("class")
            return dict

        __hash__ = object.__hash__

    # objects are told apart by their fields, never by their own __eq__
    assert _diff({"a": Loud(1)}, {"a": Loud(2)}) == [["changed", "v"]]
    assert _diff({"a": Loud(1)}, {"a": Loud(1)}) == []
    assert calls == []


def test_differing_keys_reads_the_produced_side():
    rec = {"compared": [{"op": "==", "keys": [["extra", "x"], ["missing", "y"], ["changed", "z"]]}]}
    assert keys.differing_keys(rec) == ["x", "z"]
    # the literal written in the assertion on the left: the code's value is the right one
    assert keys.differing_keys(rec, [True, False]) == ["y", "z"]
    assert keys.differing_keys({"compared": []}) == [] and keys.differing_keys({}) == []


def test_writers_are_the_statements_naming_the_key(tmp_path: Path):
    (tmp_path / "m.py").write_text(
        "def build(x):\n"  # 1
        "    out = {'type': 'object'}\n"  # 2
        "    out['allOf'] = [x]\n"  # 3
        "    if x:\n"  # 4
        "        out.update(dict(\n"  # 5
        "            allOf=x))\n"  # 6
        "    rec.key = 1\n"  # 7
        "    return out\n"  # 8
    )
    stmts = Statements(tmp_path)
    executed = {("m.py", n) for n in (2, 3, 4, 5, 7, 8)}
    assert keys.writer_lines(["allOf"], executed, stmts) == {
        ("m.py", 3): "allOf",
        ("m.py", 5): "allOf",
    }
    assert keys.writer_lines(["key"], executed, stmts) == {("m.py", 7): "key"}
    # a line the failing test did not run is no writer
    assert keys.writer_lines(["allOf"], {("m.py", 5)}, stmts) == {("m.py", 5): "allOf"}
    # a key written all over says nothing
    many = "\n".join(f"d{i} = {{'type': {i}}}" for i in range(5)) + "\n"
    (tmp_path / "n.py").write_text(many)
    ran = {("n.py", n) for n in range(1, 6)}
    assert keys.writer_lines(["type"], ran, stmts) == {}
    assert ast.parse(many)  # (the file is valid Python)


SCHEMAS = {
    "jschema/__init__.py": "",
    "jschema/build.py": """
        def json_schema(kind, parts):
            out = {"type": "object"}
            if kind == "any":
                out["anyOf"] = list(parts)
            if kind == "all":
                extra = {"allOf": list(parts)}
                title = "all"
                out.update(extra)
                out["title"] = title
            return out
        """,
    "tests/test_build.py": """
        from jschema.build import json_schema

        def test_plain():
            assert json_schema("none", []) == {"type": "object"}

        def test_any():
            assert json_schema("any", ["a"]) == {"type": "object", "anyOf": ["a"]}

        def test_all_of_one_is_the_one():
            assert json_schema("all", ["a"]) == {"type": "object", "title": "all", "allOf": "a"}
        """,
}


@pytest.mark.slow
def test_the_writer_of_the_differing_entry_wins_its_tie(make_project):
    doc = localized(make_project, SCHEMAS, "tests/test_build.py::test_all_of_one_is_the_one")
    ranked = ranked_by_text(doc, "jschema/build.py")
    writer = ranked['extra = {"allOf": list(parts)}']
    plain = ranked['title = "all"']
    assert writer["counts"] == plain["counts"]  # the spectrum alone ties them
    assert "wrote the entry 'allOf', which the assertion found different" in writer["evidence"]
    assert writer["rank"] < plain["rank"] and not plain["evidence"]
