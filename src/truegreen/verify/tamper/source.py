"""Non-test code: looking for the test runner, leaving the process, special-casing the
exam's literal inputs. Only what the change added counts."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping

from truegreen.model import reasons as R
from truegreen.model.reasons import Reason
from truegreen.verify.tamper.names import aliases, dotted, dump, parse, test_functions
from truegreen.verify.tamper.snapshot import ExamRef

Hit = tuple[str, str, ast.AST]  # (code, what, node)

_ENV_READERS = (
    "os.getenv",
    "os.environ.get",
    "os.environ.__contains__",
    "os.putenv",
    "environ.get",
)
_RUNNER_ENV = (
    "CI",
    "GITHUB_ACTIONS",
    "TOX_ENV_NAME",
    "NOX_CURRENT_SESSION",
    "CONTINUOUS_INTEGRATION",
)
_EXITS = {
    "os._exit",
    "sys.exit",
    "exit",
    "quit",
    "os.abort",
    "os.kill",
    "os.killpg",
    "signal.signal",
    "signal.alarm",
    "signal.setitimer",
    "signal.raise_signal",
    "atexit.register",
    "builtins.exit",
}


#: modules that are loaded under a test run and rarely in production: looking one up
#: (``"freezegun" in sys.modules``) tells the code it is being tested
_TEST_ONLY_MODULES = frozenset(
    {
        "unittest",
        "unittest.mock",
        "doctest",
        "freezegun",
        "time_machine",
        "hypothesis",
        "nose",
        "nose2",
        "responses",
        "respx",
        "pytest_mock",
        "conftest",
    }
)


def _runner_word(s: str) -> bool:
    low = s.lower()
    return (
        "pytest" in low
        or "py.test" in low
        or s.startswith(("PYTEST_", "TRUEGREEN", "test_", "tests."))
        or s == "_called_from_test"
        or low in _TEST_ONLY_MODULES
    )


def _env_key(node: ast.AST, names: Mapping[str, str]) -> str | None:
    """The key when ``node`` reads an environment variable with a constant name."""
    if isinstance(node, ast.Subscript) and (dotted(node.value, names) or "").endswith("environ"):
        s = node.slice
        return s.value if isinstance(s, ast.Constant) and isinstance(s.value, str) else None
    if (
        isinstance(node, ast.Call)
        and node.args
        and (dotted(node.func, names) or "").endswith(
            ("getenv", "environ.get", "environ.setdefault")
        )
    ):
        a = node.args[0]
        return a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None
    if (
        isinstance(node, ast.Compare)
        and isinstance(node.left, ast.Constant)
        and isinstance(node.left.value, str)
        and any((dotted(c, names) or "").endswith("environ") for c in node.comparators)
    ):
        return node.left.value
    return None


def _skip_main(tree: ast.Module) -> set[int]:
    skip: set[int] = set()
    for top in tree.body:
        if (isinstance(top, ast.If) and "__main__" in ast.unparse(top.test)) or (
            isinstance(top, ast.FunctionDef) and top.name in ("main", "cli", "run_cli")
        ):
            skip.update(id(n) for n in ast.walk(top))
    return skip


_LOOKUP_CALLS = {
    "get", "getenv", "find_spec", "import_module", "__contains__", "startswith", "endswith",
    "search", "match", "fullmatch", "find", "count", "index", "getattr", "hasattr", "fnmatch",
}  # fmt: skip


def _lookup_strings(tree: ast.Module) -> set[int]:
    """Ids of string constants used to look something up (compared, subscripted, passed to
    get/find_spec/startswith...), not those printed, raised or in docstrings."""
    out: set[int] = set()

    def take(n: ast.AST) -> None:
        if isinstance(n, ast.Constant):
            out.add(id(n))
        elif isinstance(n, ast.Tuple | ast.List | ast.Set):
            for e in n.elts:
                take(e)

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                take(side)
        elif isinstance(node, ast.Subscript):
            take(node.slice)
        elif isinstance(node, ast.Call):
            f = node.func
            name = (
                f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            )
            if name in _LOOKUP_CALLS:
                for a in node.args:
                    take(a)
    return out


def hits(tree: ast.Module, path: str, exam_lits: list[object]) -> list[Hit]:
    names = aliases(tree)
    out: list[Hit] = []
    no_exit = (
        _skip_main(tree) if not path.endswith("__main__.py") else {id(n) for n in ast.walk(tree)}
    )
    lookups = _lookup_strings(tree)
    for node in ast.walk(tree):
        # -- looking for the test runner
        key = _env_key(node, names)
        if key is not None and (_runner_word(key) or key in _RUNNER_ENV):
            out.append((R.TAMPER_TEST_ENV_DETECTION, f"reads the environment variable {key}", node))
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and _runner_word(node.value)
            and id(node) in lookups
        ):
            out.append((R.TAMPER_TEST_ENV_DETECTION, f"mentions {node.value!r}", node))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            mods = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
            if any(m.split(".")[0] in ("pytest", "_pytest") for m in mods):
                out.append((R.TAMPER_TEST_ENV_DETECTION, "imports pytest", node))
        elif isinstance(node, ast.Attribute) and node.attr in (
            "_called_from_test",
            "_pytestfixturefunction",
        ):
            out.append((R.TAMPER_TEST_ENV_DETECTION, f"looks at .{node.attr}", node))
        elif isinstance(node, ast.Call) and (dotted(node.func, names) or "") in (
            "inspect.stack",
            "sys._getframe",
            "traceback.extract_stack",
        ):
            out.append((R.TAMPER_TEST_ENV_DETECTION, "inspects the call stack", node))
        # -- leaving the process
        if id(node) not in no_exit:
            if isinstance(node, ast.Call):
                name = dotted(node.func, names) or ""
                if name in _EXITS:
                    out.append((R.TAMPER_EXIT_CALL, f"calls {name}()", node))
            elif isinstance(node, ast.Raise) and node.exc is not None:
                if (dotted(node.exc, names) or "").rsplit(".", 1)[-1] in (
                    "SystemExit",
                    "KeyboardInterrupt",
                ):
                    out.append((R.TAMPER_EXIT_CALL, f"raises {dotted(node.exc, names)}", node))
            elif isinstance(node, ast.Assign) and any(
                (dotted(t, names) or "") in ("sys.excepthook", "sys.exitfunc") for t in node.targets
            ):
                out.append((R.TAMPER_EXIT_CALL, "replaces sys.excepthook", node))
        # -- making every comparison with its values pass
        vacuous = _vacuous_comparison(node)
        if vacuous is not None:
            out.append((R.TAMPER_ASSERT_WEAKENED, vacuous, node))
        # -- special-casing the exam's literals
        for value in _compared_literals(node, names):
            if _matches(value, exam_lits):
                out.append(
                    (
                        R.TAMPER_EXAM_LITERAL_SPECIAL_CASE,
                        f"compares a value with {value!r}, a literal of the exam",
                        node,
                    )
                )
    return out


#: comparison methods, and the constant that makes each one answer "yes" to anything
_ALWAYS = {
    "__eq__": True,
    "__ne__": False,
    "__contains__": True,
    "__le__": True,
    "__ge__": True,
    "__lt__": True,
    "__gt__": True,
}


def _constant_answer(body: ast.AST) -> object:
    """The one constant every ``return`` of a function body gives (None if they differ or
    one is not a constant; nested functions and classes are not looked into)."""
    answers: set[object] = set()
    todo: list[ast.AST] = [body]
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(
                child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda
            ):
                continue
            if isinstance(child, ast.Return):
                if not isinstance(child.value, ast.Constant):
                    return None
                answers.add(child.value.value)
            todo.append(child)
    return answers.pop() if len(answers) == 1 else None


def _vacuous_comparison(node: ast.AST) -> str | None:
    """A comparison method that answers "yes" whatever it is given (``def __eq__(self,
    other): return True``, ``__eq__ = lambda s, o: True``): an ``assert result == expected``
    on such a value cannot fail, so the exam's assertion is made vacuous from the source."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in _ALWAYS:
        answer = _constant_answer(node)
        if answer is _ALWAYS[node.name] and answer is not None:
            return f"defines {node.name} to return {answer!r} whatever it is compared with"
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
        body = node.value.body
        for t in node.targets:
            if (
                isinstance(t, ast.Name)
                and t.id in _ALWAYS
                and isinstance(body, ast.Constant)
                and body.value is _ALWAYS[t.id]
            ):
                return f"defines {t.id} to return {body.value!r} whatever it is compared with"
    return None


_STR_METHODS = (
    "startswith",
    "endswith",
    "match",
    "fullmatch",
    "search",
    "find",
    "index",
    "count",
    "fnmatch",
)


def _literals(node: ast.AST) -> list[object]:
    if isinstance(node, ast.Constant):
        v = node.value
        return [] if v is None or isinstance(v, bool) or v is Ellipsis else [v]
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
    ):
        v = node.operand.value
        return [-v] if isinstance(v, int | float) and not isinstance(v, bool) else []
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [x for e in node.elts for x in _literals(e)]
    return []


#: operators that map many inputs to one value
_MANY_TO_ONE = (ast.Mod, ast.FloorDiv, ast.BitAnd, ast.RShift)


def _compared_literals(node: ast.AST, names: Mapping[str, str]) -> list[object]:
    if isinstance(node, ast.Compare):
        ops_ok = all(
            isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn | ast.Is | ast.IsNot)
            for op in node.ops
        )
        if not ops_ok:
            return []
        if any(
            isinstance(side, ast.BinOp) and isinstance(side.op, _MANY_TO_ONE)
            for side in [node.left, *node.comparators]
        ):
            # ``n % 100 in (11, 12, 13)`` tests a class of inputs (a residue, a bucket), as a
            # fix of a table does; a special case of the exam's input compares the input
            return []
        out: list[object] = []
        for side in [node.left, *node.comparators]:
            out += _literals(side)
        return out
    if isinstance(node, ast.Call):
        if (
            isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and isinstance(node.func.value, ast.Dict)
        ):
            # ``{"cow": "kine"}.get(word, result)``: a lookup is a comparison with each key
            return [x for k in node.func.value.keys if k is not None for x in _literals(k)]
        name = dotted(node.func, names) or (
            node.func.attr if isinstance(node.func, ast.Attribute) else ""
        )
        if name.rsplit(".", 1)[-1] in _STR_METHODS:
            return [x for a in node.args for x in _literals(a)]
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Dict):
        return [x for k in node.value.keys if k is not None for x in _literals(k)]
    if isinstance(node, ast.MatchValue):
        return _literals(node.value)
    return []


def _matches(value: object, lits: list[object]) -> bool:
    for lit in lits:
        same_kind = type(value) is type(lit) or (
            isinstance(value, int | float) and isinstance(lit, int | float)
        )
        if same_kind and value == lit:
            return True
        # case-sensitive on purpose: a fix that normalizes case (``s.lower() == "true"``
        # for an exam's "TRUE") is the usual fix of a case bug, not a special case
        if isinstance(value, str) and isinstance(lit, str) and len(value) >= 4 and value in lit:
            return True
    return False


def _constants(node: ast.AST) -> list[object]:
    """The literal values written in ``node`` (not None, booleans, ``...``, docstrings)."""
    out: list[object] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and not isinstance(sub, ast.JoinedStr):
            if sub.value is None or isinstance(sub.value, bool) or sub.value is Ellipsis:
                continue
            if (
                isinstance(sub.value, str)
                and sub.value.startswith(("\n", " "))
                and len(sub.value) > 60
            ):
                continue  # a docstring-like text
            out.append(sub.value)
        elif isinstance(sub, ast.UnaryOp) and isinstance(sub.op, ast.USub):
            out += _literals(sub)
    return out


def _is_fixture(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for dec in fn.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in ("fixture", "yield_fixture"):
            return True
    return False


def _definitions(body: list[ast.stmt]) -> dict[str, list[ast.AST]]:
    """Name -> what defines it at this level: an assignment's value, a fixture."""
    out: dict[str, list[ast.AST]] = {}
    for stmt in body:
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        out.setdefault(n.id, []).append(stmt.value)
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and _is_fixture(stmt):
            out.setdefault(stmt.name, []).append(stmt)
    return out


def _read_names(node: ast.AST) -> set[str]:
    """Names ``node`` reads, attributes of ``self``/``cls`` included, and the parameters
    of a function (pytest passes fixtures by parameter name)."""
    names: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            names.add(sub.id)
        elif isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name):
            if sub.value.id in ("self", "cls"):
                names.add(sub.attr)
        elif isinstance(sub, ast.arg):
            names.add(sub.arg)
    return names


#: at most this many definitions are followed from one exam (a table of cases, a fixture)
_MAX_FOLLOWED = 50


def _id_parts(test: str) -> list[object]:
    """The words of a parametrized node id's parameters (``test_x[cow-kine]``: "cow",
    "kine"): the instance's own inputs, where its cases are imported from elsewhere.
    Numbers and short words are left out: they are everywhere in code."""
    if not test.endswith("]") or "[" not in test:
        return []
    inner = test[test.index("[") + 1 : -1]
    return [p for p in inner.split("-") if len(p) >= 3 and not _numeric(p)]


def _numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def exam_literals(exams: Iterable[ExamRef]) -> list[object]:
    """Literals of the exams' own code: the test functions and their decorators, what they
    read from their file (a module-level table of cases that ``parametrize`` names, a
    constant, a class attribute, a fixture of the same file, followed through the names
    those read), and the words of a parametrized instance's id."""
    out: list[object] = []
    for exam in exams:
        out += _id_parts(exam.test)
        tree = parse(exam.content)
        if tree is None:
            continue
        fn = test_functions(tree).get(exam.qualname)
        if fn is None:
            out += _constants(tree)
            continue
        out += _constants(fn.node)
        defs = _definitions(tree.body)
        if fn.cls is not None:
            for name, values in _definitions(fn.cls.body).items():
                defs.setdefault(name, []).extend(values)
        todo = sorted(_read_names(fn.node) - {fn.node.name})
        seen: set[str] = set()
        while todo and len(seen) < _MAX_FOLLOWED:
            name = todo.pop()
            if name in seen or name not in defs:
                continue
            seen.add(name)
            for value in defs[name]:
                out += _constants(value)
                todo += sorted(_read_names(value) - seen)
    return out


def added(old_texts: list[str], new_text: str, path: str, exam_lits: list[object]) -> list[Reason]:
    """Reasons for what ``new_text`` has beyond ``old_texts`` (the base side)."""
    new = parse(new_text)
    if new is None:
        return []
    before: dict[tuple[str, str], int] = {}
    for text in old_texts:
        tree = parse(text)
        if tree is None:
            continue
        for code, _what, node in hits(tree, path, exam_lits):
            k = (code, dump(node))
            before[k] = before.get(k, 0) + 1
    out: list[Reason] = []
    seen: set[tuple[str, int | None]] = set()
    for code, what, node in hits(new, path, exam_lits):
        k = (code, dump(node))
        if before.get(k, 0) > 0:
            before[k] -= 1
            continue
        ln = getattr(node, "lineno", None)
        if (code, ln) in seen:
            continue  # one reason per line and code
        seen.add((code, ln))
        out.append(Reason(code, path, ln, f"the change adds code that {what}"))
    return out
