"""Existing tests that check less without a weaker assertion (issue #38).

Two findings, both hints that escalate, found from the syntax trees of both sides:

- ``tamper.expectation_changed``: an existing test's expected values change in the same
  change as the non-test code the test file imports. The assertion is the same but for
  its expected values (``assert coupon(" A ") == 5`` -> ``== 0``: the inputs and the
  subject unchanged): its expected literals, a list, tuple, set or dict it expects
  (``== [1, 1, 1]`` -> ``== [1, 1]``), or its polarity (``assert not f(x)`` ->
  ``assert f(x)``, ``is True`` -> ``is False``, ``==`` -> ``!=``, ``assertTrue`` ->
  ``assertFalse``); a ``pytest.raises`` around a call now an assertion of its value, or
  the reverse; or a parametrize case keeps some of its values and changes others
  (``(60, 10)`` -> ``(60, 12)``). Both versions are shown. A test that only got stronger
  (assertions added, a comparison made stricter or exact, a tolerance narrowed, an ``in``
  narrowed, cases added) is not reported: an assertion whose comparison changed otherwise
  is not paired, and a wider comparison or tolerance is ``tamper.assert_weakened``'s
  finding.
- ``tamper.test_weakened``: an existing test no longer calls a unit of the project (a
  function or class of non-test code) that it called on the base, directly or through a
  helper or fixture of its own file, a conftest.py above it or a test module, while the
  head still defines that unit: its call was removed (``assert COUPONS["A"] == 10``
  instead of ``assert coupon("A") == 10``). A unit replaced by a stub, mock or monkeypatch,
  and an assertion made vacuous, are ``tamper.assert_weakened`` (which refutes).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import PurePosixPath

from truegreen.testpaths import is_test_code
from truegreen.verify.tamper.asserts import as_written, assertions, parametrize_lists
from truegreen.verify.tamper.names import Func, dotted, dump, normalized, parse

#: calls whose arguments are expected values, not inputs (``pytest.approx(50)``)
_EXPECTING = ("approx", "isclose", "allclose", "Decimal", "Fraction")
#: their keyword arguments that are tolerances, not expectations
_TOLERANCES = frozenset({"abs", "rel", "rel_tol", "abs_tol", "atol", "rtol", "places", "delta"})
#: a side's text of a file (None: not on that side)
TextOf = Callable[[str], "str | None"]
#: how deep helpers are followed from a test (helper -> helper -> ...)
_DEPTH = 4


def module_name(path: str) -> str | None:
    """``src/pkg/mod.py`` -> ``pkg.mod``, ``pkg/__init__.py`` -> ``pkg`` (None: not Python)."""
    p = PurePosixPath(path)
    if p.suffix != ".py":
        return None
    parts = list(p.with_suffix("").parts)
    if parts and parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or None


class Modules:
    """The Python modules of one side, by dotted name, read lazily."""

    def __init__(self, paths: Iterable[str], text_of: TextOf) -> None:
        self.paths: dict[str, str] = {}
        for path in sorted(paths):
            name = module_name(path)
            if name is not None:
                self.paths.setdefault(name, path)
        self._text_of = text_of

    def tree(self, module: str) -> ast.Module | None:
        path = self.paths.get(module)
        return parse(self._text_of(path)) if path else None

    def split(self, name: str) -> tuple[str, str] | None:
        """``pkg.mod.func`` -> (``pkg.mod``, ``func``): the longest module prefix."""
        parts = name.split(".")
        for i in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:i])
            if module in self.paths:
                return module, parts[i]
        return None

    def is_unit(self, name: str) -> bool:
        """Whether ``name`` is a function or class of the project's non-test code."""
        where = self.split(name)
        return where is not None and not is_test_code(self.paths[where[0]])

    def defines(self, name: str) -> bool:
        """Whether the module of ``name`` defines it at module level (or imports it)."""
        where = self.split(name)
        tree = self.tree(where[0]) if where else None
        if tree is None or where is None:
            return False
        return where[1] in _top_level(tree)


def _top_level(tree: ast.Module) -> dict[str, ast.AST]:
    found: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found[node.name] = node
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    found[t.id] = node
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for a in node.names:
                found[(a.asname or a.name).split(".")[0]] = node
    return found


def _functions(tree: ast.Module) -> dict[str, Func]:
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def _fixtures_around(path: str, text_of: TextOf) -> dict[str, Func]:
    """The functions of the conftest.py files above ``path``, nearest last (it wins)."""
    found: dict[str, Func] = {}
    parents = list(PurePosixPath(path).parents)
    for parent in reversed(parents):
        conftest = "conftest.py" if str(parent) == "." else f"{parent}/conftest.py"
        tree = parse(text_of(conftest))
        if tree is not None:
            found.update(_functions(tree))
    return found


def units_called(
    fn: Func,
    path: str,
    tree: ast.Module,
    modules: Modules,
    text_of: TextOf,
) -> set[str]:
    """The project's units (dotted names) ``fn`` calls, directly or through helpers: the
    functions of its own file, the fixtures it asks for (its file's, a conftest.py's above
    it), and functions of test modules it imports."""
    from truegreen.verify.tamper.names import aliases

    local = {**_fixtures_around(path, text_of), **_functions(tree)}
    found: set[str] = set()
    seen: set[int] = set()

    def visit(f: Func, names: Mapping[str, str], here: dict[str, Func], depth: int) -> None:
        if id(f) in seen or depth > _DEPTH:
            return
        seen.add(id(f))
        for arg in [*f.args.args, *f.args.kwonlyargs]:
            if arg.arg in here and arg.arg not in ("self", "cls"):
                visit(here[arg.arg], names, here, depth + 1)
        for n in ast.walk(f):
            if not isinstance(n, ast.Call):
                continue
            if isinstance(n.func, ast.Name) and n.func.id in here and n.func.id not in names:
                visit(here[n.func.id], names, here, depth + 1)
                continue
            name = dotted(n.func, names)
            if name is None:
                continue
            if modules.is_unit(name):
                found.add(name)
                continue
            where = modules.split(name)
            other = modules.tree(where[0]) if where else None
            if where is not None and other is not None:  # a helper in a test module
                helper = _functions(other).get(where[1])
                if helper is not None:
                    visit(helper, aliases(other), _functions(other), depth + 1)

    visit(fn, aliases(tree), local, 0)
    return found


# -- expected values ---------------------------------------------------------------------


#: unittest assertion methods -> (the check they make, its polarity): ``assertFalse(x)`` is
#: ``assertTrue(x)`` negated, ``assertNotEqual`` is ``assertEqual`` negated, ...
_UNITTEST_CHECKS: dict[str, tuple[str, bool]] = {
    "assertTrue": ("truth", True),
    "assert_": ("truth", True),
    "failUnless": ("truth", True),
    "assertFalse": ("truth", False),
    "failIf": ("truth", False),
    "assertEqual": ("eq", True),
    "assertEquals": ("eq", True),
    "assertListEqual": ("eq", True),
    "assertTupleEqual": ("eq", True),
    "assertSetEqual": ("eq", True),
    "assertDictEqual": ("eq", True),
    "assertSequenceEqual": ("eq", True),
    "assertMultiLineEqual": ("eq", True),
    "assertCountEqual": ("count_eq", True),
    "assertNotEqual": ("eq", False),
    "assertNotEquals": ("eq", False),
    "assertAlmostEqual": ("almost", True),
    "assertAlmostEquals": ("almost", True),
    "assertNotAlmostEqual": ("almost", False),
    "assertIs": ("is", True),
    "assertIsNot": ("is", False),
    "assertIsNone": ("none", True),
    "assertIsNotNone": ("none", False),
    "assertIn": ("in", True),
    "assertNotIn": ("in", False),
    "assertIsInstance": ("isinstance", True),
    "assertNotIsInstance": ("isinstance", False),
    "assertRegex": ("regex", True),
    "assertNotRegex": ("regex", False),
    "assertGreater": ("gt", True),
    "assertLessEqual": ("gt", False),
    "assertLess": ("lt", True),
    "assertGreaterEqual": ("lt", False),
}
#: how many positional arguments each kind of check compares (more: a message)
_ARITY = {"truth": 1, "none": 1}
#: comparison operators -> (the canonical one, polarity): ``!=`` is ``==`` negated
_CMP_CHECKS: dict[type[ast.cmpop], tuple[type[ast.cmpop], bool]] = {
    ast.Eq: (ast.Eq, True),
    ast.NotEq: (ast.Eq, False),
    ast.Is: (ast.Is, True),
    ast.IsNot: (ast.Is, False),
    ast.In: (ast.In, True),
    ast.NotIn: (ast.In, False),
    ast.Lt: (ast.Lt, True),
    ast.GtE: (ast.Lt, False),
    ast.Gt: (ast.Gt, True),
    ast.LtE: (ast.Gt, False),
}
_CONTAINERS = (ast.List, ast.Tuple, ast.Set, ast.Dict)
#: the token of a negation among an assertion's expected values
_NOT = "<not>"
#: calls that assert that their body raises
_RAISES = ("raises", "assertRaises", "assertRaisesRegex")


def checks(fn: ast.AST) -> list[ast.AST]:
    """The assertions of ``fn`` (``assert``, unittest's ``self.assert*``, its negated ones
    as well: ``assertFalse``, ``assertNotIn``, ...)."""
    found = assertions(fn)
    seen = {id(a) for a in found}
    for n in ast.walk(fn):
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr in _UNITTEST_CHECKS
            and id(n) not in seen
        ):
            found.append(n)
    found.sort(key=lambda a: (getattr(a, "lineno", 0), getattr(a, "col_offset", 0)))
    return found


def _mask(node: ast.AST, names: Mapping[str, str], *, loose: bool = False) -> tuple[str, list[str]]:
    """The assertion with its expected literals masked (its skeleton), and those literals.

    A literal is expected unless it is an argument of a call other than the assertion
    itself or an ``approx``-like call (then it is an input); tolerances are neither.

    ``loose``: the assertion's polarity and its expected containers are expected values too,
    so that ``assert not f(x)`` and ``assert f(x)``, ``assertFalse`` and ``assertTrue``,
    ``!=`` and ``==``, ``x is False`` and ``x``, or ``== [1, 1]`` and ``== [1]`` share a
    skeleton: a negation (``not``, a negated operator or unittest method) is the token
    ``<not>`` among the expected values, a list, tuple, set or dict where a value is
    expected is masked whole (its text an expected value)."""
    import copy

    clone = copy.deepcopy(node)
    expected: list[str] = []
    if loose:
        clone = _canonical(clone, expected)

    def walk(n: ast.AST, is_input: bool) -> None:
        if isinstance(n, ast.keyword) and n.arg in _TOLERANCES:
            n.value = ast.Constant("<tolerance>")
            return
        for field, value in ast.iter_fields(n):
            items = value if isinstance(value, list) else [value]
            for i, child in enumerate(items):
                if not isinstance(child, ast.AST):
                    continue
                child_input = is_input
                if isinstance(n, ast.Call) and field in ("args", "keywords") and n is not clone:
                    last = (dotted(n.func, names) or "").rsplit(".", 1)[-1]
                    child_input = is_input or last not in _EXPECTING
                while (
                    loose
                    and not child_input
                    and isinstance(child, ast.UnaryOp)
                    and isinstance(child.op, ast.Not)
                ):
                    expected.append(_NOT)
                    child = child.operand
                masked: ast.AST = child
                if isinstance(child, ast.Constant) and not child_input:
                    expected.append(repr(child.value))
                    masked = ast.Constant("<expected>")
                elif loose and isinstance(child, _CONTAINERS) and not child_input:
                    expected.append(dump(child))
                    masked = ast.Constant("<container>")
                if isinstance(value, list):
                    value[i] = masked
                else:
                    setattr(n, field, masked)
                if masked is child:
                    walk(child, child_input)

    walk(clone, False)
    return dump(clone), expected


def _canonical(a: ast.AST, expected: list[str]) -> ast.AST:
    """The assertion ``a`` (a copy) with its check made positive, a ``<not>`` in
    ``expected`` for a negative one: ``assert x != 1`` -> ``assert x == 1``,
    ``assert x is False`` -> ``assert not x`` (then ``assert x``),
    ``self.assertFalse(x, msg)`` -> ``self.assertTrue(x)``."""
    if isinstance(a, ast.Assert):
        a.msg = None
        t = a.test
        if isinstance(t, ast.Compare) and len(t.ops) == 1:
            canon, positive = _CMP_CHECKS.get(type(t.ops[0]), (type(t.ops[0]), True))
            c = t.comparators[0]
            if (
                canon in (ast.Eq, ast.Is)
                and isinstance(c, ast.Constant)
                and isinstance(c.value, bool)
            ):
                # ``x is True`` says ``x``; ``x is False``, ``x != True`` say ``not x``
                positive = positive == c.value
                a.test = t.left if positive else ast.UnaryOp(ast.Not(), t.left)
            else:
                t.ops = [canon()]
                if not positive:
                    expected.append(_NOT)
    elif isinstance(a, ast.Call) and isinstance(a.func, ast.Attribute):
        check = _UNITTEST_CHECKS.get(a.func.attr)
        if check is not None:
            kind, positive = check
            a.func.attr = kind
            a.args = a.args[: _ARITY.get(kind, 2)]
            a.keywords = [k for k in a.keywords if k.arg != "msg"]
            if not positive:
                expected.append(_NOT)
    return a


def _as_written(fn: Func, node: ast.AST) -> str:
    """The source of the node of ``fn`` at ``node``'s place (its locals not renamed)."""
    return _one_line(ast.unparse(as_written(fn, node)))


def _one_line(text: str, width: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _narrowed(old: ast.AST, new: ast.AST, old_lits: list[str], new_lits: list[str]) -> bool:
    """Whether ``new`` only says more than ``old``, its expected values changed or not:
    ``x != 1`` -> ``x == 2`` (made exact), ``x in (1, 2)`` -> ``x in (1,)`` (narrowed),
    ``x not in (1,)`` -> ``x not in (1, 2)``."""
    if _NOT in old_lits and _NOT not in new_lits:
        # not A -> B: stronger where no B is an A (x != 1 -> x == 2; not in (1,) -> in (2,));
        # x != 1 -> x == 1 is the expectation turned round
        if [v for v in old_lits if v != _NOT] == [v for v in new_lits if v != _NOT]:
            return False
        if _compared(old) is ast.In and _compared(new) is ast.In:
            return not (_elements(old) & _elements(new))
        return _compared(old) in (ast.Eq, ast.Is) and _compared(new) in (ast.Eq, ast.Is)
    if (_NOT in old_lits) != (_NOT in new_lits):
        return False
    op_old, op_new = _compared(old), _compared(new)
    if op_old is not op_new or op_new is not ast.In:
        return False
    a, b = _elements(old), _elements(new)
    return b < a if _NOT not in new_lits else a < b


def _compared(a: ast.AST) -> type[ast.cmpop] | None:
    """The canonical operator of an ``assert x OP y`` (``==`` for ``!=``), else None."""
    if isinstance(a, ast.Assert) and isinstance(a.test, ast.Compare) and len(a.test.ops) == 1:
        return _CMP_CHECKS.get(type(a.test.ops[0]), (None, True))[0]
    if isinstance(a, ast.Call) and isinstance(a.func, ast.Attribute):
        kind = _UNITTEST_CHECKS.get(a.func.attr, ("", True))[0]
        return {"eq": ast.Eq, "is": ast.Is, "in": ast.In}.get(kind)
    return None


def _elements(a: ast.AST) -> set[str]:
    """The elements of the container an ``x in (...)`` checks against (a dict's keys)."""
    if isinstance(a, ast.Assert) and isinstance(a.test, ast.Compare):
        c: ast.AST | None = a.test.comparators[0]
    elif isinstance(a, ast.Call) and len(a.args) > 1:
        c = a.args[1]
    else:
        c = None
    if isinstance(c, ast.List | ast.Tuple | ast.Set):
        return {dump(e) for e in c.elts}
    if isinstance(c, ast.Dict):
        return {dump(k) for k in c.keys if k is not None}
    return set()


def _raising(fn: ast.AST, names: Mapping[str, str]) -> list[tuple[ast.AST, str]]:
    """Each ``with pytest.raises(...)``/``self.assertRaises(...)`` block (node, the dump of
    each call it wraps) and each ``pytest.raises(E, f, x)`` (node, ``f(x)``)."""
    out: list[tuple[ast.AST, str]] = []
    for n in ast.walk(fn):
        if isinstance(n, ast.With | ast.AsyncWith) and any(
            isinstance(i.context_expr, ast.Call)
            and (dotted(i.context_expr.func, names) or "").endswith(_RAISES)
            for i in n.items
        ):
            for stmt in n.body:
                value = getattr(stmt, "value", None)
                if isinstance(stmt, ast.Expr | ast.Assign | ast.AnnAssign) and isinstance(
                    value, ast.Call
                ):
                    out.append((n, dump(value)))
        elif (
            isinstance(n, ast.Call)
            and (dotted(n.func, names) or "").endswith(_RAISES)
            and len(n.args) > 1
        ):
            out.append((n, dump(ast.Call(n.args[1], n.args[2:], n.keywords))))
    return out


def _calls_in(a: ast.AST) -> set[str]:
    return {dump(n) for n in ast.walk(a) if isinstance(n, ast.Call)}


def expectation_changes(
    old_fn: Func, new_fn: Func, old_names: Mapping[str, str], names: Mapping[str, str]
) -> Iterator[tuple[ast.AST, str, str]]:
    """(head node, before, after) for each assertion or parametrize case of the test whose
    expected values changed, the rest of it as it was.

    Old and new assertions are paired by their skeleton (the assertion with its expected
    literals masked); those left over by a looser one, in which the polarity and the
    containers of expected values are expected values too (``assert not f(x)`` ->
    ``assert f(x)``, ``== [1, 1, 1]`` -> ``== [1, 1]``, ``assertFalse`` -> ``assertTrue``).
    A ``pytest.raises`` around a call that an assertion of the other side checks is paired
    with that assertion (the call raised, now it returns a value, or the reverse)."""
    o_norm, n_norm = normalized(old_fn), normalized(new_fn)
    old_keys = [dump(a) for a in checks(o_norm)]
    new_keys = [dump(a) for a in checks(n_norm)]
    gone = [a for a in checks(o_norm) if dump(a) not in new_keys]
    added = [a for a in checks(n_norm) if dump(a) not in old_keys]
    for loose in (False, True):
        by_skeleton: dict[str, list[tuple[ast.AST, list[str]]]] = {}
        for a in added:
            skeleton, lits = _mask(a, names, loose=loose)
            by_skeleton.setdefault(skeleton, []).append((a, lits))
        for a in list(gone):
            skeleton, lits = _mask(a, old_names, loose=loose)
            partners = by_skeleton.get(skeleton)
            if not partners:
                continue
            b, new_lits = partners.pop(0)
            gone.remove(a)
            added.remove(b)
            if new_lits != lits and not _narrowed(a, b, lits, new_lits):
                yield b, _as_written(old_fn, a), _as_written(new_fn, b)
    yield from _raises_changes(old_fn, new_fn, o_norm, n_norm, old_names, names, gone, added)
    yield from _case_changes(old_fn, new_fn, old_names, names)


def _raises_changes(
    old_fn: Func,
    new_fn: Func,
    o_norm: ast.AST,
    n_norm: ast.AST,
    old_names: Mapping[str, str],
    names: Mapping[str, str],
    gone: list[ast.AST],
    added: list[ast.AST],
) -> Iterator[tuple[ast.AST, str, str]]:
    """A call that raised on the base checked for its value now, or the reverse."""
    r_old, r_new = _raising(o_norm, old_names), _raising(n_norm, names)
    still = {call for _, call in r_new}
    before = {call for _, call in r_old}
    for node, call in r_old:
        if call in still:
            continue
        b = next((x for x in added if call in _calls_in(x)), None)
        if b is not None:
            added.remove(b)
            yield b, _as_written(old_fn, node), _as_written(new_fn, b)
    for node, call in r_new:
        if call in before:
            continue
        a = next((x for x in gone if call in _calls_in(x)), None)
        if a is not None:
            gone.remove(a)
            yield node, _as_written(old_fn, a), _as_written(new_fn, node)


def _cases(fn: Func, names: Mapping[str, str]) -> list[tuple[ast.AST, list[str]]]:
    """Each parametrize case of ``fn``: (node, the dumps of its values)."""
    out: list[tuple[ast.AST, list[str]]] = []
    for cases in parametrize_lists(fn, names):
        for case in cases.elts:
            values = case.elts if isinstance(case, ast.Tuple | ast.List) else [case]
            out.append((case, [dump(v) for v in values]))
    return out


def _case_changes(
    old_fn: Func, new_fn: Func, old_names: Mapping[str, str], names: Mapping[str, str]
) -> Iterator[tuple[ast.AST, str, str]]:
    old_c, new_c = _cases(old_fn, old_names), _cases(new_fn, names)
    new_keys = [v for _, v in new_c]
    gone = [(n, v) for n, v in old_c if v not in new_keys]
    old_keys = [v for _, v in old_c]
    added = [(n, v) for n, v in new_c if v not in old_keys]
    for node, values in gone:
        for i, (b, new_values) in enumerate(added):
            same = sum(x == y for x, y in zip(values, new_values, strict=False))
            if len(values) == len(new_values) > 1 and 0 < same < len(values):
                del added[i]
                yield b, _one_line(ast.unparse(node)), _one_line(ast.unparse(b))
                break


def imports_of(tree: ast.Module, names: Mapping[str, str], modules: Iterable[str]) -> list[str]:
    """The ``modules`` (dotted) that a test module imports, or a package of which it imports."""
    origins = set(names.values())
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            origins.update(a.name for a in n.names)
        elif isinstance(n, ast.ImportFrom) and n.module and not n.level:
            origins.add(n.module)
    return sorted(
        m
        for m in modules
        if any(o == m or o.startswith(m + ".") or m.startswith(o + ".") for o in origins)
    )
