"""Assertions in an existing test: removed, loosened or made vacuous."""

from __future__ import annotations

import ast
from collections.abc import Mapping

from truegreen.verify.tamper.names import Func, dotted, dump

#: how much a comparison says (higher: stricter)
_STRICT: dict[type[ast.cmpop], int] = {
    ast.Eq: 3,
    ast.Is: 3,
    ast.In: 2,
    ast.NotIn: 2,
    ast.Lt: 2,
    ast.Gt: 2,
    ast.LtE: 1,
    ast.GtE: 1,
    ast.NotEq: 0,
    ast.IsNot: 0,
}
_OPS = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
#: unittest assertion methods, stricter first
_UNITTEST = {
    "assertEqual": 3,
    "assertEquals": 3,
    "assertIs": 3,
    "assertListEqual": 3,
    "assertDictEqual": 3,
    "assertRaises": 3,
    "assertCountEqual": 2,
    "assertIn": 2,
    "assertAlmostEqual": 2,
    "assertRegex": 2,
    "assertGreater": 2,
    "assertLess": 2,
    "assertGreaterEqual": 1,
    "assertLessEqual": 1,
    "assertTrue": 0,
    "assertIsNotNone": 0,
    "assertNotEqual": 0,
}


def assertions(fn: ast.AST) -> list[ast.AST]:
    """``assert`` statements and unittest ``self.assert*`` calls."""
    out: list[ast.AST] = []
    for n in ast.walk(fn):
        if isinstance(n, ast.Assert) or (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr in _UNITTEST
        ):
            out.append(n)
    return out


def _vacuous(t: ast.AST) -> str | None:
    if isinstance(t, ast.Constant) and t.value:
        return "replaced by an assertion that is always true"
    if (
        isinstance(t, ast.BoolOp)
        and isinstance(t.op, ast.Or)
        and any(isinstance(v, ast.Constant) and v.value for v in t.values)
    ):
        return "made vacuous with `or True`"
    return None


def _tolerance(node: ast.AST, names: Mapping[str, str]) -> float | None:
    """The widest rel/abs of a pytest.approx (or isclose) in ``node``; None without one."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and (dotted(n.func, names) or "").endswith(
            ("approx", "isclose", "allclose")
        ):
            tol = 0.0
            vals = [
                kw.value
                for kw in n.keywords
                if kw.arg in ("abs", "rel", "rel_tol", "abs_tol", "atol", "rtol")
            ]
            vals += n.args[1:] if (dotted(n.func, names) or "").endswith("approx") else []
            for v in vals:
                if isinstance(v, ast.Constant) and isinstance(v.value, int | float):
                    tol = max(tol, float(v.value))
                elif not isinstance(v, ast.Constant):
                    tol = float("inf")
            return tol if tol else 1e-6
    return None


def weakening(old: ast.AST, new: ast.AST, names: Mapping[str, str]) -> str | None:
    """Why assertion ``new`` says less than ``old``, or None."""
    if isinstance(new, ast.Call) and isinstance(new.func, ast.Attribute):
        if isinstance(old, ast.Call) and isinstance(old.func, ast.Attribute):
            m_old, m_new = old.func.attr, new.func.attr
            if _UNITTEST.get(m_new, 3) < _UNITTEST.get(m_old, 3):
                return f"`{m_old}` loosened to `{m_new}`"
            if m_old == m_new == "assertAlmostEqual" and (
                _tolerance(ast.Call(ast.Name("approx"), [], new.keywords), {}) or 0
            ) > (_tolerance(ast.Call(ast.Name("approx"), [], old.keywords), {}) or 0):
                return "a wider tolerance"
            return None
        return (
            "an assert statement replaced by a weaker check"
            if _UNITTEST.get(new.func.attr, 3) < 2
            else None
        )
    if not isinstance(new, ast.Assert):
        return None
    t_new = new.test
    why = _vacuous(t_new)
    if why:
        return why
    if not isinstance(old, ast.Assert):
        return None
    t_old = old.test
    if isinstance(t_old, ast.Compare) and not isinstance(t_new, ast.Compare):
        return "a comparison replaced by a truthiness check"
    if isinstance(t_old, ast.Compare) and isinstance(t_new, ast.Compare):
        o: type[ast.cmpop] = type(t_old.ops[0])
        n: type[ast.cmpop] = type(t_new.ops[0])
        c = t_new.comparators[0]
        if (
            n is ast.IsNot
            and isinstance(c, ast.Constant)
            and c.value is None
            and o is not ast.IsNot
        ):
            return "a comparison replaced by `is not None`"
        if _STRICT.get(n, 3) < _STRICT.get(o, 3):
            return f"`{_OPS.get(o, o.__name__)}` loosened to `{_OPS.get(n, n.__name__)}`"
        tol_old, tol_new = _tolerance(t_old, names), _tolerance(t_new, names)
        if tol_new is not None and (tol_old is None or tol_new > tol_old):
            return "a wider tolerance (pytest.approx)"
    return None


def _subject(a: ast.AST) -> str:
    """What an assertion is about (its left operand), to pair old and new ones."""
    t = a.test if isinstance(a, ast.Assert) else a
    if isinstance(t, ast.Compare):
        return dump(t.left)
    if isinstance(t, ast.Call) and t.args:
        return dump(t.args[0])
    return dump(t)


def _raises(fn: ast.AST, names: Mapping[str, str]) -> list[str]:
    out = []
    for n in ast.walk(fn):
        if (
            isinstance(n, ast.Call)
            and (dotted(n.func, names) or "").endswith(
                ("raises", "assertRaises", "assertRaisesRegex")
            )
            and n.args
        ):
            arg = n.args[0]
            elts = arg.elts if isinstance(arg, ast.Tuple) else [arg]
            out += [dotted(e, names) or dump(e) for e in elts]
    return out


def _swallowing(fn: ast.AST, names: Mapping[str, str]) -> int:
    count = 0
    for n in ast.walk(fn):
        if isinstance(n, ast.ExceptHandler):
            caught = n.type.elts if isinstance(n.type, ast.Tuple) else [n.type] if n.type else []
            if n.type is None or any(
                (dotted(c, names) or "").rsplit(".", 1)[-1]
                in ("AssertionError", "Exception", "BaseException")
                for c in caught
            ):
                count += 1
        elif (
            isinstance(n, ast.Call)
            and (dotted(n.func, names) or "").endswith("suppress")
            and any(
                (dotted(a, names) or "").rsplit(".", 1)[-1]
                in ("AssertionError", "Exception", "BaseException")
                for a in n.args
            )
        ):
            count += 1
    return count


def _stubs(fn: Func, names: Mapping[str, str]) -> int:
    count = 0
    for n in [*ast.walk(fn), *fn.decorator_list]:
        if isinstance(n, ast.Call):
            name = dotted(n.func, names) or ""
            if name.endswith(("monkeypatch.setattr", "mocker.patch", "mocker.patch.object")) or (
                name.split(".")[0] in ("unittest", "mock")
                and name.rsplit(".", 1)[-1] in ("patch", "object", "multiple")
            ):
                count += 1
        elif (
            # module.function = lambda ...: replacing the unit under test by hand
            isinstance(n, ast.Assign)
            and any(isinstance(t, ast.Attribute) for t in n.targets)
            and (
                isinstance(n.value, ast.Lambda)
                or (
                    isinstance(n.value, ast.Call)
                    and (dotted(n.value.func, names) or "").rsplit(".", 1)[-1]
                    in ("Mock", "MagicMock")
                )
            )
        ):
            count += 1
    return count


_BROAD = {"Exception", "BaseException", "builtins.Exception", "builtins.BaseException"}


def compare(
    old_fn: Func, new_fn: Func, old_names: Mapping[str, str], names: Mapping[str, str]
) -> list[tuple[ast.AST, str]]:
    """(node on the head side, why) for every way ``new_fn`` checks less than ``old_fn``."""
    from truegreen.verify.tamper.names import normalized

    o_norm, n_norm = normalized(old_fn), normalized(new_fn)
    found: list[tuple[ast.AST, str]] = []
    a_old, a_new = assertions(o_norm), assertions(n_norm)
    # positions: normalized() keeps them, so nodes of n_norm carry head lines
    new_keys = [dump(a) for a in a_new]
    old_keys = [dump(a) for a in a_old]
    gone = [a for a in a_old if not _take(new_keys, dump(a))]
    added = [a for a in a_new if not _take(old_keys, dump(a))]
    # checks turned into parametrize cases: one assertion now runs once per case
    c_old, c_new = _param_cases(old_fn, old_names), _param_cases(new_fn, names)
    spare = len(a_old) if c_new > c_old and c_new * len(a_new) >= c_old * len(a_old) else 0
    for old in gone:
        partner = next((a for a in added if _subject(a) == _subject(old)), None)
        if partner is None and added:
            partner = added[0]
        if partner is None and spare > 0:
            spare -= 1
            continue
        if partner is None:
            text = ast.unparse(as_written(old_fn, old))[:80]
            found.append((new_fn, f"an assertion was removed (`{text}`)"))
            continue
        added.remove(partner)
        why = weakening(old, partner, names)
        if why:
            found.append((partner, why))
    if _swallowing(new_fn, names) > _swallowing(old_fn, old_names):
        found.append((new_fn, "failures are caught and swallowed"))
    if _stubs(new_fn, names) > _stubs(old_fn, old_names):
        found.append(
            (new_fn, "the code under test is replaced by a stub, mock or monkeypatch in the test")
        )
    r_old, r_new = _raises(old_fn, old_names), _raises(new_fn, names)
    if any(r in _BROAD for r in r_new) and not any(r in _BROAD for r in r_old):
        found.append((new_fn, "pytest.raises broadened to Exception"))
    elif len(r_new) < len(r_old):
        found.append((new_fn, "a pytest.raises check was removed"))
    return found


def as_written(fn: Func, node: ast.AST) -> ast.AST:
    """The node of ``fn`` that a node of its normalized copy stands for (same place), so a
    message quotes the test as written, not with its locals renamed ``_v0``, ``_v1``."""
    where = (getattr(node, "lineno", None), getattr(node, "col_offset", None))
    for n in ast.walk(fn):
        if (
            type(n) is type(node)
            and (getattr(n, "lineno", None), getattr(n, "col_offset", None)) == where
        ):
            return n
    return node


def parametrize_lists(fn: Func, names: Mapping[str, str]) -> list[ast.List | ast.Tuple]:
    """The literal lists of cases of the test's parametrize decorators."""
    return [
        d.args[1]
        for d in fn.decorator_list
        if isinstance(d, ast.Call)
        and (dotted(d.func, names) or "").endswith("parametrize")
        and len(d.args) > 1
        and isinstance(d.args[1], ast.List | ast.Tuple)
    ]


def _param_cases(fn: Func, names: Mapping[str, str]) -> int:
    """How many cases the test's parametrize decorators give it (product)."""
    total = 1
    for cases in parametrize_lists(fn, names):
        total *= max(len(cases.elts), 1)
    return total


def _take(keys: list[str], key: str) -> bool:
    if key in keys:
        keys.remove(key)
        return True
    return False
