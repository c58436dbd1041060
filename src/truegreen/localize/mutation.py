"""Mutation evidence: which of the tied suspects change the failure when changed.

Lines that the spectrum cannot tell apart (the same score, the same evidence) often differ
in what they do to the failure. Mutation-based fault localization (Metallaxis, MUSE)
asks: make a small change to a statement (flip a comparison, nudge a constant, return
None, negate a condition) and rerun the failing test and a few passing tests that run it.
A change to the faulty statement tends to change the failure, or to make the test pass,
while the passing tests stay green; a change to a correct statement that feeds the
failure tends to break passing tests too; a change that touches nothing the test checks
changes nothing.

truegreen mutates only the statements of the tie groups near the top of the ranking
(:func:`plan`), at most :data:`PER_STATEMENT` mutants each. A statement inside a function
is changed in the live functions of the bare run's process after its session
(``_tracer/truegreen_mutants.py``): no module is imported again and no file is written.
Code that ran when its module was imported (the module's body, a function the body calls
to build a table) would not run again that way: its mutants run the module's body again,
changed, in a namespace of their own, and lend the live module the data it made
(:func:`import_mutants`); a control (the body run again unchanged) must leave the tests'
results as they were, or those mutants are not used. Each statement's score
(:func:`scores`) is the mean over its mutants of

    passed/F + (changed/F) / 2 - broken/P

(F failing tests, of which ``passed`` now pass and ``changed`` end differently; P passing
tests that run the line, of which ``broken`` no longer pass). It breaks ties only: it
orders lines that are equal in every other key (see :func:`truegreen.localize.ranking.rank`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from truegreen.localize.ranking import Ranked
from truegreen.localize.spectrum import Statements, similarity
from truegreen.localize.syntax import module_level, statements
from truegreen.verify.mutate import replace, variants

Line = tuple[str, int]

#: the plugin module run in the bare run's process, and its environment variable
PLUGIN = "truegreen_mutants"
DIR_VAR = "TRUEGREEN_MUTANTS_DIR"
WAIT_VAR = "TRUEGREEN_MUTANTS_WAIT"

#: tie groups that start within this many places of the top are mutated
TOP = 5
#: at most this many statements mutated in all, and mutants per statement
STATEMENTS = 12
PER_STATEMENT = 3
#: failing tests rerun per mutant, and passing tests that run the statement
FAILING = 5
PASSING = 3


@dataclass(frozen=True)
class Mutant:
    id: str
    line: Line  # the statement (file, first line)
    description: str
    tests: tuple[int, ...]  # indexes into Plan.tests
    #: the module's top level runs again with this change (code that ran at import)
    reload: bool = False
    #: a control: the module's top level run again unchanged (see :func:`scores`)
    control: bool = False


@dataclass(frozen=True)
class Plan:
    tests: tuple[str, ...]  # the failing tests first
    failing: int
    mutants: tuple[Mutant, ...]
    spec: dict[str, Any]


def _own_expressions(stmt: ast.stmt) -> list[ast.expr]:
    """The expressions a statement evaluates itself: a compound statement's header
    (an ``if``'s test, a ``for``'s iterable), not its body."""
    if isinstance(stmt, ast.If | ast.While):
        return [stmt.test]
    if isinstance(stmt, ast.For | ast.AsyncFor):
        return [stmt.iter]
    if isinstance(stmt, ast.With | ast.AsyncWith):
        return [i.context_expr for i in stmt.items]
    if isinstance(
        stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Try | ast.Match
    ):
        return []
    return [n for n in ast.iter_child_nodes(stmt) if isinstance(n, ast.expr)]


def _candidates(stmt: ast.stmt) -> Iterator[tuple[str, ast.expr, str]]:
    """(description, node, replacement source), in the order they are tried."""
    roots = _own_expressions(stmt)
    if isinstance(stmt, ast.If | ast.While):
        yield ("negate the condition", stmt.test, f"not ({ast.unparse(stmt.test)})")
    nodes = sorted(
        (n for r in roots for n in ast.walk(r) if isinstance(n, ast.expr)),
        key=lambda n: (n.lineno, n.col_offset, -(n.end_col_offset or 0)),
    )
    for n in nodes:
        for description, replacement in variants(n):
            src = ast.unparse(replacement)
            if isinstance(replacement, ast.BoolOp | ast.BinOp | ast.Compare):
                src = f"({src})"
            yield (description, n, src)
    value = getattr(stmt, "value", None)
    if isinstance(stmt, ast.Return) and value is not None:
        if not (isinstance(value, ast.Constant) and value.value is None):
            yield ("return None", value, "None")
    elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign) and value is not None:
        yield ("assign None", value, "None")
    elif isinstance(stmt, ast.Expr) and isinstance(value, ast.Call):
        yield ("skip the call", value, "None")
    for n in nodes:
        if isinstance(n, ast.Constant) and isinstance(n.value, bool):
            yield (f"{n.value} -> {not n.value}", n, repr(not n.value))
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value:
            yield ("change the string", n, repr(n.value + "~"))


def _start(node: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _holder(body: list[ast.stmt], line: int) -> ast.stmt | None:
    for node in body:
        if _start(node) <= line <= (node.end_lineno or node.lineno):
            return node
    return None


def _unit(tree: ast.Module, line: int) -> tuple[list[ast.ClassDef], ast.stmt] | None:
    """The outermost function holding ``line``, with the classes around it: what is
    compiled again for a mutant (a nested function shares its outer function's cells)."""
    classes: list[ast.ClassDef] = []
    node = _holder(tree.body, line)
    while isinstance(node, ast.ClassDef):
        classes.append(node)
        node = _holder(node.body, line)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return classes, node
    return None  # module or class-level code: it runs once, at import


def _changes(text: str, stmt: ast.stmt) -> Iterator[tuple[str, int, str]]:
    """The statement's mutants, in the order they are tried: (description, the line it
    changes, the changed text), each a change of one line (every line keeps its number)."""
    skip = {id(n) for n in ast.walk(stmt) if isinstance(n, ast.JoinedStr)}
    skip |= {id(v) for n in ast.walk(stmt) if isinstance(n, ast.JoinedStr) for v in n.values}
    for description, node, new in _candidates(stmt):
        if id(node) in skip:
            continue  # the parts of an f-string are not expressions of their own
        if node.end_lineno != node.lineno:
            continue  # a one-line change keeps every line's number
        changed = replace(text, node, new)
        if changed is None or changed == text:
            continue
        yield description, node.lineno, changed


def statement_mutants(
    text: str, tree: ast.Module, line: int, limit: int = PER_STATEMENT
) -> list[tuple[str, int, str, int]]:
    """Mutants of the statement whose first line is ``line``, inside a function: each as
    (description, the line it changes, the source to compile, the line it starts at).
    The source is the outermost function holding the statement, mutated, under the
    headers of the classes around it (for its qualified name, ``super()`` and private
    names), placed so that every line keeps its number. Deterministic."""
    unit = _unit(tree, line)
    if unit is None:
        return []
    classes, func = unit
    stmt = next((s for s in statements(func) if s.lineno == line), None)
    if stmt is None or stmt is func:
        return []
    first, last = _start(func), func.end_lineno or func.lineno
    start = first - len(classes)
    if start < 1:
        return []
    headers = [" " * c.col_offset + f"class {c.name}:\n" for c in classes]
    out: list[tuple[str, int, str, int]] = []
    seen: set[str] = set()
    for description, at, changed in _changes(text, stmt):
        source = "".join(headers + changed.splitlines(keepends=True)[first - 1 : last])
        if source in seen:
            continue
        seen.add(source)
        out.append((description, at, source, start))
        if len(out) >= limit:
            break
    return out


def called_at_import(tree: ast.Module) -> frozenset[str]:
    """The names of the functions a module's body calls by name (``_irregular("ox",
    "oxen")``): what they do to the module's tables happens again when the body runs again."""
    return frozenset(
        n.func.id
        for stmt in module_level(tree)
        for n in ast.walk(stmt)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    )


def import_mutants(
    text: str, tree: ast.Module, line: int, limit: int = PER_STATEMENT
) -> list[tuple[str, int, str, int]]:
    """Mutants of a statement that runs when the module is imported: one of the module's
    body (not a ``def`` or ``class`` statement, nor in a class body), or one inside a
    function that the module's body calls. Each is (description, the line it changes, the
    whole mutated file, 1): truegreen's mutant runner runs the module's body again with
    it (see ``_tracer/truegreen_mutants.py``). Deterministic."""
    stmt = next((s for s in module_level(tree) if s.lineno == line), None)
    if stmt is None:
        unit = _unit(tree, line)
        if unit is None or unit[0]:
            return []  # a class body, or a method
        func = unit[1]
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            return []
        if func.name not in called_at_import(tree):
            return []  # its changes would not run: the module's body does not call it
        stmt = next((s for s in statements(func) if s.lineno == line), None)
        if stmt is None or stmt is func:
            return []  # a def statement
    out: list[tuple[str, int, str, int]] = []
    for description, at, changed in _changes(text, stmt):
        out.append((description, at, changed, 1))
        if len(out) >= limit:
            break
    return out


def _future(tree: ast.Module) -> list[str]:
    """The file's ``from __future__`` imports (they change how its code compiles)."""
    return sorted(
        a.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module == "__future__"
        for a in node.names
    )


def _groups(ranking: Sequence[Ranked], top: int) -> list[Ranked]:
    """The lines of the tie groups (two lines or more) that start within ``top``."""
    out: list[Ranked] = []
    for r in ranking:
        start = r.rank - r.ties + 1
        if start > top:
            break
        if r.ties > 1:
            out.append(r)
    return out


def plan(
    ranking: Sequence[Ranked],
    failing: Sequence[str],
    passing: Sequence[str],
    spectra: Mapping[str, frozenset[Line]],
    stmts: Statements,
    durations: Mapping[str, float],
    import_only: frozenset[Line] = frozenset(),
    recent: Mapping[Line, int] | None = None,
    within: float | None = None,
) -> Plan | None:
    """The mutants to run, or None when no tie near the top needs breaking. ``durations``:
    each test's duration in the bare run, for the time limits. ``import_only``: statements
    that ran only while modules were imported (:func:`truegreen.localize.spectrum.import_only`):
    a mutant swapped into their function after the session is never called, so they are
    mutated, like the statements of a module's body, by running the module's body again
    (:func:`import_mutants`), after every other mutant and after a control: the body run
    again unchanged, which must leave the tests' results as they were (:func:`scores`).

    At most :data:`STATEMENTS` statements get mutants: group by group from the top, and
    within a group the most recently changed first (``recent``: each line's last change,
    as :mod:`truegreen.localize.history` orders equal lines; a line without one last),
    then by file and line. A statement left without mutants goes after those of its group
    that got some, so the cut must not fall on the lines a reader is shown first.
    ``within``: the seconds the whole phase may take at most (what a time budget left)."""
    tied = _groups(ranking, TOP)
    if not tied or not failing:
        return None
    fails = list(failing[:FAILING])
    primary = spectra.get(fails[0], frozenset())
    tests: list[str] = list(fails)
    index = {t: i for i, t in enumerate(tests)}
    texts: dict[str, str | None] = {}
    # (statement, made, tests, reload) for every statement mutated
    chosen: list[tuple[Line, list[tuple[str, int, str, int]], tuple[int, ...], bool]] = []
    # the statements of functions first: code run again at import takes what they leave
    # of the budget (its mutants may not reach the tests, see :func:`scores`)
    kinds = [
        (r, (r.file, r.line) in import_only or (tree is None or _unit(tree, r.line) is None))
        for r in tied
        for tree in [stmts.tree(r.file)]
    ]
    when = recent or {}

    def order(kind: tuple[Ranked, bool]) -> tuple[bool, int, int]:
        r, reload = kind
        return reload, r.rank - r.ties, -when.get((r.file, r.line), -1)

    for r, reload in sorted(kinds, key=order):
        if len(chosen) >= STATEMENTS:
            break
        tree = stmts.tree(r.file)
        if r.file not in texts:
            try:
                texts[r.file] = (stmts.root / r.file).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                texts[r.file] = None
        text = texts[r.file]
        if tree is None or text is None:
            continue
        made = (import_mutants if reload else statement_mutants)(text, tree, r.line)
        if not made:
            continue
        runs = sorted(
            (p for p in passing if (r.file, r.line) in spectra.get(p, frozenset())),
            key=lambda p: (-similarity(primary, spectra[p]), p),
        )[:PASSING]
        for p in runs:
            if p not in index:
                index[p] = len(tests)
                tests.append(p)
        ids = tuple(range(len(fails))) + tuple(index[p] for p in runs)
        chosen.append(((r.file, r.line), made, ids, reload))
    mutants: list[Mutant] = []
    spec_mutants: list[dict[str, Any]] = []

    def add(m: Mutant, at: int, source: str, start: int) -> None:
        mutants.append(m)
        file = m.line[0]
        tree = stmts.tree(file)
        spec_mutants.append(
            {
                "id": m.id,
                "file": str(stmts.root / file),
                "line": at,
                "start": start,
                "source": source,
                "future": _future(tree) if tree is not None else [],
                "tests": list(m.tests),
                **({"reload": True} if m.reload else {}),
                **({"control": True} if m.control else {}),
            }
        )

    for line, made, ids, reload in chosen:
        if not reload:
            for description, at, source, start in made:
                add(Mutant(f"m{len(mutants)}", line, description, ids), at, source, start)
    # the modules' bodies run again last (what they do beyond their own names stays), each
    # file's control first: its tests, all of them, with the body run again unchanged
    for file in sorted({line[0] for line, _made, _ids, reload in chosen if reload}):
        own = [c for c in chosen if c[3] and c[0][0] == file]
        ids = tuple(sorted({i for c in own for i in c[2]}))
        text = texts[file] or ""
        control = Mutant(f"c{len(mutants)}", (file, 0), "control", ids, reload=True, control=True)
        add(control, 0, text, 1)
        for line, made, ids, _reload in own:
            for description, at, source, start in made:
                m = Mutant(f"m{len(mutants)}", line, description, ids, reload=True)
                add(m, at, source, start)
    if not mutants:
        return None
    # a mutant that loops is stopped: at 10 times the test's bare duration, at least 1 s
    timeouts = [max(1.0, 10 * durations.get(t, 0.1)) for t in tests]
    # and all of them, at most as long as the bare run's tests took (5 s at least): the
    # process then ends with what it has; never past what the time budget left
    deadline = max(5.0, sum(durations.values()))
    if within is not None:
        deadline = min(deadline, within)
        timeouts = [min(t, within) for t in timeouts]
    spec = {"tests": tests, "timeouts": timeouts, "deadline": deadline, "mutants": spec_mutants}
    return Plan(tuple(tests), len(fails), tuple(mutants), spec)


def problem(plan: Plan, results: Mapping[str, Any] | None) -> str | None:
    """What went wrong with the mutants, for the document's warnings; None if nothing."""
    if not results:
        return (
            f"the {len(plan.mutants)} mutant(s) of tied suspects reported nothing "
            "(the bare run ended early?): those ties stand"
        )
    got = results.get("results")
    ran = len(got) if isinstance(got, Mapping) else 0
    why = results.get("error") or results.get("stopped")
    if why:
        return f"mutants of tied suspects: {why}; {ran} of {len(plan.mutants)} ran"
    return None


def _stable(pair: Any) -> tuple[int, ...] | None:
    """Which parts of a test's result compare across runs: (outcome, digest) when the two
    baseline runs agree on them, else (outcome, message digest), else None (unstable)."""
    try:
        (o1, d1, m1), (o2, d2, m2) = pair
    except (TypeError, ValueError):
        return None
    if o1 != o2 or o1 in ("missing", "timeout", "timeout:teardown"):
        return None
    if d1 == d2:
        return (0, 1)
    if m1 == m2:
        return (0, 2)
    return None


def _unsafe_reloads(
    plan: Plan,
    got: Mapping[str, Any],
    parts: Sequence[tuple[int, ...] | None],
    first: Sequence[Any],
) -> dict[str, str]:
    """The files whose body, run again unchanged (the control), did not leave every test's
    result as it was ("changed"), raised ("failed") or did not run ("not run", the phase
    was cut): their other mutants would measure that, not the change."""
    unsafe: dict[str, str] = {}
    for m in plan.mutants:
        if not m.control:
            continue
        runs = got.get(m.id)
        if runs is None:
            unsafe[m.line[0]] = "not run"
            continue
        if not isinstance(runs, list) or len(runs) != len(m.tests):
            unsafe[m.line[0]] = "failed"
            continue
        for i, run in zip(m.tests, runs, strict=True):
            keep = parts[i]
            if keep is None:
                continue  # unstable in the baseline: not used by any mutant either
            if (
                not isinstance(run, list)
                or len(run) != 3
                or any(run[k] != first[i][k] for k in keep)
            ):
                unsafe[m.line[0]] = "changed"
                break
    return unsafe


def reload_problem(plan: Plan, results: Mapping[str, Any] | None) -> str | None:
    """A note for the document when a module's body could not be run again safely (a
    control cut by the phase's deadline is told by :func:`problem`)."""
    base, got = (results or {}).get("base"), (results or {}).get("results")
    if not isinstance(base, list) or not isinstance(got, Mapping) or len(base) != len(plan.tests):
        return None
    parts = [_stable(pair) for pair in base]
    unsafe = _unsafe_reloads(plan, got, parts, [pair[0] for pair in base])
    told = sorted(f for f, why in unsafe.items() if why != "not run")
    if not told:
        return None
    return (
        "running the body of " + ", ".join(told) + " again, unchanged, changed "
        "the tests' results (or failed): the mutants of code that runs at import there "
        "were not used"
    )


def scores(plan: Plan, results: Mapping[str, Any]) -> dict[Line, tuple[Fraction, str]]:
    """Each mutated statement's score and its evidence note, from the plugin's results."""
    base = results.get("base")
    got = results.get("results")
    if not isinstance(base, list) or not isinstance(got, Mapping) or len(base) != len(plan.tests):
        return {}
    parts = [_stable(pair) for pair in base]
    first = [pair[0] for pair in base]
    unsafe = _unsafe_reloads(plan, got, parts, first)
    per: dict[Line, list[tuple[int, int, int, int, int]]] = {}
    for m in plan.mutants:
        if m.control or (m.reload and m.line[0] in unsafe):
            continue
        runs = got.get(m.id)
        if not isinstance(runs, list) or len(runs) != len(m.tests):
            continue
        nf = np = passed = changed = broken = 0
        for i, run in zip(m.tests, runs, strict=True):
            keep = parts[i]
            if keep is None or not isinstance(run, list) or len(run) != 3 or run[0] == "not run":
                continue
            differs = any(run[k] != first[i][k] for k in keep)
            if i < plan.failing:
                if first[i][0] == "passed":
                    continue  # it did not fail here: nothing to learn from it
                nf += 1
                passed += run[0] == "passed"
                changed += differs
            else:
                if first[i][0] != "passed":
                    continue
                np += 1
                broken += differs
        if nf:
            per.setdefault(m.line, []).append((nf, passed, changed, np, broken))
    reloaded = {m.line for m in plan.mutants if m.reload}
    out: dict[Line, tuple[Fraction, str]] = {}
    for line, runs in per.items():
        if line in reloaded and not any(r[2] or r[4] for r in runs):
            # its changes reached no test: the tests may read a copy that another module
            # took at its own import (`X = other.X`), which the body run again cannot
            # reach, so "changed nothing" is not known to be the line's doing
            continue
        total = sum(
            (
                Fraction(p, nf) + Fraction(c, 2 * nf) - (Fraction(b, np) if np else Fraction(0))
                for nf, p, c, np, b in runs
            ),
            Fraction(0),
        )
        n = len(runs)
        passed = sum(1 for r in runs if r[1])
        changed = sum(1 for r in runs if r[2])
        broke = sum(1 for r in runs if r[4])
        note = (
            f"{changed} of {n} mutant(s) changed the failing test's result"
            + (f", {passed} made it pass" if passed else "")
            + f"; {broke} broke a passing test that runs the line"
        )
        out[line] = (total / n, note)
    return out
