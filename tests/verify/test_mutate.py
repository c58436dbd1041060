"""Mutants of the changed lines (exam strength)."""

from __future__ import annotations

import re

import pytest

from truegreen.verify.mutate import KINDS, interleaved, mutants_for

SOURCE = """\
def cap(exponent, top, mult, base):
    if (
        mult > 0
        and top > 0
        and exponent
        > log(top, base)
        - log(mult, base)
    ):
        return top
    return min(mult * base**exponent, top)
"""


def test_a_comparison_the_fix_wrote_over_several_lines_is_mutated() -> None:
    """The fix changed lines 5-7, one comparison written over three lines: its operators
    are mutated (the strength was 'not measured' for such a fix)."""
    mutants = mutants_for("w.py", SOURCE, [5, 6, 7])
    described = {(m.line, m.description) for m in mutants}
    assert (5, "> -> >=") in described
    assert (6, "Sub -> Add") in described
    for m in mutants:
        compile(m.source, "w.py", "exec")  # every mutant is valid Python
        assert m.source != SOURCE


def test_an_expression_with_unchanged_lines_is_not_mutated() -> None:
    """The whole condition spans lines 3-7 of which only 5-7 changed: flipping its `and`
    would not be a mutant of the changed lines."""
    mutants = mutants_for("w.py", SOURCE, [5, 6, 7])
    assert not any(m.description == "And -> Or" for m in mutants)
    assert mutants_for("w.py", SOURCE, [10]) != []
    assert all(m.line == 10 for m in mutants_for("w.py", SOURCE, [10]))


# -- one row per operator: the changed line, and a mutant it must get ----------------------
MODULE = """\
import re
from re import compile as rx


def unit(word, items, n, flag, log):
    return word.replace("_", "-")
"""

OPERATORS = [
    # (kind, the changed line, the mutant's description, the mutated line)
    # strings: emptied, and changed
    ("string", 'return word.replace("_", "-")', "'_' -> ''", "return word.replace('', \"-\")"),
    (
        "string",
        'return word.replace("_", "-")',
        "'-' -> 'XX-XX'",
        "return word.replace(\"_\", 'XX-XX')",
    ),
    ("string", 'return f"{word}!"', 'f-string -> ""', 'return ""'),
    ("string", 'return b"ab" + word', "b'ab' -> b''", "return b'' + word"),
    # regular expression patterns (re.X, and a name imported from re), raw strings kept raw
    (
        "regex",
        r'return re.sub(r"^\s+", "", word)',
        "regex drop the ^ anchor",
        r'return re.sub(r"\s+", "", word)',
    ),
    ("regex", r'return rx(r"[a-z]+$")', "regex drop the $ anchor", r'return rx(r"[a-z]+")'),
    (
        "regex",
        r'return re.match(r"\d+", word)',
        "regex quantifier + -> *",
        r'return re.match(r"\d*", word)',
    ),
    (
        "regex",
        r'return re.match(r"\d+", word)',
        r"regex \d -> \D",
        r'return re.match(r"\D+", word)',
    ),
    (
        "regex",
        r'return re.findall(r"[ab]", word)',
        "regex class [..] -> [^..]",
        r'return re.findall(r"[^ab]", word)',
    ),
    # call arguments: a keyword dropped, two arguments swapped, the last one dropped
    (
        "argument",
        "return sorted(items, reverse=flag)",
        "drop reverse= from sorted()",
        "return sorted(items)",
    ),
    (
        "argument",
        'return word.replace("_", "-")',
        "swap the first two arguments of word.replace()",
        'return word.replace("-", "_")',
    ),
    (
        "argument",
        "return word.split(',', n)",
        "drop the last argument of word.split()",
        "return word.split(',')",
    ),
    # a call replaced by its receiver or its one argument
    ("call", "return word.strip()", "word.strip() -> word", "return (word)"),
    ("call", "return len(items)", "len(x) -> x", "return (items)"),
    # return values
    ("return", "return word.upper()", "return None", "return None"),
    # boolean operators and constants
    ("boolean", "return flag and n", "And -> Or", "return (flag or n)"),
    ("boolean", "return not flag", "drop not", "return flag"),
    (
        "boolean",
        "return unit(word, items, n, True, log)",
        "True -> False",
        "return unit(word, items, n, False, log)",
    ),
    # comparisons and boundaries
    ("comparison", "return word == 'x'", "== -> !=", "return (word != 'x')"),
    ("comparison", "return word in items", "in -> not in", "return (word not in items)"),
    ("boundary", "return n < 3", "< -> <=", "return (n <= 3)"),
    ("boundary", "return items[n + 1]", "1 -> 2", "return items[n + 2]"),
    ("arithmetic", "return n * 2", "Mult -> FloorDiv", "return (n // 2)"),
    # conditions and removed statements
    ("condition", "if flag: return n", "negate condition", "if not (flag): return n"),
    ("statement", "log(word, level=2)", "remove `log(word, level=2)`", "pass"),
    ("statement", "items.append(word)", "remove `items.append(word)`", "pass"),
    ("statement", "raise ValueError(word)", "remove `raise ValueError(word)`", "pass"),
    ("statement", "n += 1", "remove `n += 1`", "pass"),
]


@pytest.mark.parametrize(("kind", "line", "description", "mutated"), OPERATORS)
def test_each_operator(kind: str, line: str, description: str, mutated: str) -> None:
    source = MODULE.replace('return word.replace("_", "-")', line)
    made = mutants_for("m.py", source, [6], per_line=99)
    found = {(m.kind, m.description): m for m in made}
    assert (kind, description) in found, sorted(found)
    m = found[(kind, description)]
    assert m.source.splitlines()[5].strip() == mutated
    assert m.line == 6
    compile(m.source, "m.py", "exec")
    assert m.kind in KINDS


def test_a_fix_returning_a_library_call_with_string_arguments_gets_mutants() -> None:
    """The case of issue #38: strength came out null for such a one-line fix."""
    made = mutants_for("m.py", MODULE, [6])
    assert len(made) == 3
    # a line's share goes to different kinds before a second of one kind
    assert [m.kind for m in made] == ["return", "argument", "string"]


def test_an_invalid_regex_is_not_a_mutant() -> None:
    """`[` -> `[^` is not made inside a class that is already negated, `+` -> `*` not
    where it would not compile; every regex mutant compiles."""
    source = MODULE.replace('return word.replace("_", "-")', r'return re.compile(r"a{2}\+")')
    for m in mutants_for("m.py", source, [6], per_line=99):
        if m.kind == "regex":
            pattern = m.source.splitlines()[5].split('r"', 1)[1].rsplit('"', 1)[0]
            re.compile(pattern)
    descriptions = {m.description for m in mutants_for("m.py", source, [6], per_line=99)}
    assert "regex quantifier + -> *" not in descriptions  # the only + is escaped


def test_docstrings_annotations_and_unchanged_lines_are_not_mutated() -> None:
    source = 'def f(x: int = 1) -> str:\n    """Doc."""\n    return "a"\n'
    made = mutants_for("m.py", source, [1, 2, 3], per_line=99)
    assert {m.line for m in made} == {1, 3}  # the default value 1, the returned string
    assert not any("Doc" in m.description for m in made)
    assert not any(m.description.startswith("remove") and m.line == 2 for m in made)
    assert mutants_for("m.py", source, [5]) == []


def test_mutants_are_deterministic_and_distinct() -> None:
    source = MODULE.replace(
        'return word.replace("_", "-")', r'return re.sub(r"^\s+", "-", word.strip())'
    )
    first = mutants_for("m.py", source, [6], per_line=99)
    assert first == mutants_for("m.py", source, [6], per_line=99)
    assert len({m.source for m in first}) == len(first)
    assert MODULE not in {m.source for m in first}


def test_interleaved_spreads_the_limit_over_the_changed_lines() -> None:
    source = "def f(a, b):\n    x = a + 1\n    y = b - 2\n    return x * y\n"
    made = mutants_for("m.py", source, [2, 3, 4])
    assert [m.line for m in made] == [2, 2, 2, 3, 3, 3, 4, 4]
    chosen = interleaved(made, 4)
    assert [m.line for m in chosen] == [2, 2, 3, 4]  # each line's first, then line 2's second
    assert interleaved(made, 4) == chosen
    assert interleaved(made, 99) == made
