# ruff: noqa: E741, RUF005, F541
"""Writes the labelled diagnose corpus: tests/diagnose/corpus/*.log and labels.json.

    python tests/diagnose/make_corpus.py

Each log is one failure scenario, in the exact output format of the tool that fails
(pytest in its -q/-v/-ra/tb=long/short/native/line/xdist forms, unittest, ruff, flake8,
black, isort, pylint, pre-commit, mypy, pyright, pip, uv, poetry, npm, compilers, the
runners), wrapped as a CI system shows it: a GitHub Actions job log (timestamps, groups,
setup steps, annotations, colours), tox, nox, Travis, or raw output. Projects, versions,
names and noise (install output, passing tests, warnings, decoy lines that mention errors
in passing steps) vary with a fixed seed, so the corpus is reproducible.

Labels: ``class``, ``error_lines`` (1-based lines of the log that state the failure, any
of which a diagnosis should rank in its top three), ``failing_tests`` (node ids).
The corpus is a sample for regression and measurement, not the target: the rules in
truegreen.diagnose are written from the tools' formats, never from these files.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

OUT = Path(__file__).parent / "corpus"
R = random.Random(20240501)

PROJECTS = [
    "invoicekit",
    "tinyorm",
    "weatherapi",
    "pdfslicer",
    "geomesh",
    "chatbridge",
    "logsift",
    "payroll",
    "imgtools",
    "feedparse",
    "quantlib_lite",
    "authz",
    "kvstore",
    "mdrender",
]
PKGS = [
    "requests",
    "numpy",
    "pandas",
    "pydantic",
    "httpx",
    "attrs",
    "click",
    "rich",
    "sqlalchemy",
    "fastapi",
    "django",
    "flask",
    "lxml",
    "pillow",
    "cryptography",
    "boto3",
    "scipy",
    "pyyaml",
]
PYS = ["3.9", "3.10", "3.11", "3.12", "3.13"]


@dataclass
class Scenario:
    cls: str
    lines: list[str]
    marks: set[int]
    cmd: str
    exit: int = 1
    tests: list[str] = field(default_factory=list)
    tool_header: bool = True


def pick(xs: list[str]) -> str:
    return R.choice(xs)


def proj() -> str:
    return pick(PROJECTS)


def ver() -> str:
    return f"{R.randint(0, 4)}.{R.randint(0, 30)}.{R.randint(0, 9)}"


def pytest_header(py: str, root: str, plugins: str = "") -> list[str]:
    return [
        "============================= test session starts ==============================",
        f"platform linux -- Python {py}.{R.randint(0, 12)}, pytest-{R.choice(['7.4.4', '8.0.2', '8.2.1', '8.3.3'])}, pluggy-1.5.0",
        f"rootdir: {root}",
        "configfile: pyproject.toml",
        f"plugins: {plugins or R.choice(['cov-5.0.0', 'anyio-4.3.0, cov-4.1.0', 'xdist-3.5.0, timeout-2.3.1', 'asyncio-0.23.6, mock-3.14.0'])}",
    ]


def passing_tests(p: str, n: int, verbose: bool) -> tuple[list[str], list[str]]:
    mods = [
        f"tests/test_{w}.py"
        for w in R.sample(
            ["models", "api", "utils", "parser", "cli", "io", "errors", "cache", "auth", "render"],
            4,
        )
    ]
    ids = []
    for _ in range(n):
        m = pick(mods)
        name = pick(
            [
                "test_roundtrip",
                "test_defaults",
                "test_error_handling",
                "test_empty",
                "test_unicode",
                "test_large_input",
                "test_retry_on_error",
            ]
        )
        if R.random() < 0.3:
            name += f"[{pick(['a', 'b', 'utf8', 'none', '1-2', 'case3'])}]"
        ids.append(f"{m}::{name}")
    if verbose:
        return [f"{i} PASSED{' ' * R.randint(1, 20)}[{R.randint(1, 99):3d}%]" for i in ids], ids
    line = "".join(R.choice("..........s") for _ in range(n))
    return [f"{mods[0]} {line[: n // 2]}", f"{mods[1]} {line[n // 2 :]}"], ids


# ---------------------------------------------------------------- test -------------------


def sc_pytest_assert() -> Scenario:
    p, py = proj(), pick(PYS)
    root = f"/home/runner/work/{p}/{p}"
    tb = pick(["long", "short", "native", "line", "auto"])
    verbose = R.random() < 0.4
    xdist = R.random() < 0.25
    mod = f"tests/test_{pick(['totals', 'discounts', 'parse', 'convert', 'render'])}.py"
    cls_name = pick(["", "TestCompute::", "TestEdgeCases::"])
    fn = pick(
        [
            "test_rounding",
            "test_negative_amount",
            "test_empty_list",
            "test_unicode_title",
            "test_merge_keys",
        ]
    )
    param = pick(["", "[2-4]", "[utf-8]", "[None]"])
    tid = f"{mod}::{cls_name}{fn}{param}"
    src = f"src/{p}/{pick(['core', 'calc', 'util'])}.py"
    exc, msg = pick(
        [
            ("AssertionError", "assert 3 == 4"),
            ("ValueError", "invalid literal for int() with base 10: 'x'"),
            ("KeyError", "'total'"),
            ("TypeError", "unsupported operand type(s) for +: 'int' and 'str'"),
            ("ZeroDivisionError", "division by zero"),
            ("AttributeError", "'NoneType' object has no attribute 'items'"),
        ]
    )
    out = pytest_header(py, root, "xdist-3.6.1" if xdist else "")
    if xdist:
        out += ["created: 2/2 workers", "2 workers [48 items]", ""]
    else:
        out += [f"collected {R.randint(20, 300)} items", ""]
    passed, _ = passing_tests(p, R.randint(6, 30), verbose)
    marks: set[int] = set()
    out += passed
    if verbose and not xdist:
        out.append(f"{tid} FAILED{' ' * 8}[ 60%]")
    if xdist:
        out.append(f"[gw1] [ 60%] FAILED {tid}")
    out += [
        "",
        "=================================== FAILURES ===================================",
        f"{'_' * 20} {(cls_name.replace('::', '.') + fn + param)} {'_' * 20}",
    ]
    if xdist:
        out.append(f"[gw1] linux -- Python {py}.4 {root}/.venv/bin/python")
    func_src = src.rsplit("/", 1)[-1][:-3]
    if tb in ("long", "auto"):
        out += ["", f"    def {fn}():", f"        data = load_fixture('{fn}')"]
        if exc == "AssertionError":
            out += [
                ">       assert compute(data) == 4",
                f"E       {msg}",
                "E        +  where 3 = compute({'a': 1})",
                "",
            ]
            marks.add(len(out) - 3)
            out.append(f"{mod}:{R.randint(5, 80)}: AssertionError")
        else:
            out += [
                ">       compute(data)",
                "",
                f"{mod}:{R.randint(5, 80)}: ",
                "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _",
                "",
                "    def compute(data):",
                f">       return _{func_src}(data['total'])",
                f"E       {exc}: {msg}",
            ]
            marks.add(len(out) - 1)
            out += ["", f"{src}:{R.randint(5, 80)}: {exc}"]
    elif tb == "short":
        out += [
            f"{mod}:{R.randint(5, 80)}: in {fn}",
            "    compute(data)",
            f"{src}:{R.randint(5, 80)}: in compute",
            "    raise " + exc + "(...)",
            f"E   {exc}: {msg}",
        ]
        marks.add(len(out) - 1)
    elif tb == "native":
        out += [
            "Traceback (most recent call last):",
            f'  File "{root}/{mod}", line {R.randint(5, 80)}, in {fn}',
            "    compute(data)",
            f'  File "{root}/{src}", line {R.randint(5, 80)}, in compute',
            "    return 1 / data",
            f"{exc}: {msg}",
        ]
        marks.add(len(out) - 1)
    else:
        out[-1:] = []
        out.append(f"{root}/{src}:{R.randint(5, 80)}: {exc}: {msg}")
        marks.add(len(out) - 1)
    if R.random() < 0.5:
        out += [
            "=============================== warnings summary ===============================",
            f"tests/test_io.py::test_read_legacy",
            f"  {root}/src/{p}/io.py:12: DeprecationWarning: ConnectionError handling will change",
            "    warnings.warn(",
            "",
            "-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html",
        ]
    out.append("=========================== short test summary info ============================")
    out.append(
        f"FAILED {tid} - {exc}: {msg}" if exc != "AssertionError" else f"FAILED {tid} - {msg}"
    )
    marks.add(len(out) - 1)
    out.append(
        f"========================= 1 failed, {R.randint(20, 300)} passed in {R.uniform(1, 90):.2f}s ========================="
    )
    return Scenario(
        "test",
        out,
        marks,
        pick(
            [
                "pytest",
                "python -m pytest -q",
                "pytest -v --tb=" + tb,
                "coverage run -m pytest",
                "pytest -n auto",
            ]
        ),
        1,
        [tid],
    )


def sc_unittest() -> Scenario:
    p = proj()
    mod, cls_name, fn = (
        f"tests.test_{pick(['views', 'models', 'forms'])}",
        pick(["ModelTests", "ViewTests", "FormTests"]),
        pick(["test_save", "test_str", "test_clean_email"]),
    )
    out = [
        f"test_defaults ({mod}.{cls_name}.test_defaults) ... ok",
        f"{fn} ({mod}.{cls_name}.{fn}) ... FAIL",
        "test_other (x) ... ok",
        "",
        "======================================================================",
        f"FAIL: {fn} ({mod}.{cls_name}.{fn})",
        "----------------------------------------------------------------------",
        "Traceback (most recent call last):",
        f'  File "/home/runner/work/{p}/{p}/{mod.replace(".", "/")}.py", line {R.randint(10, 99)}, in {fn}',
        "    self.assertEqual(obj.total, 10)",
        "AssertionError: 9 != 10",
        "",
        "----------------------------------------------------------------------",
        f"Ran {R.randint(5, 90)} tests in {R.uniform(0.1, 9):.3f}s",
        "",
        "FAILED (failures=1)",
    ]
    return Scenario(
        "test",
        out,
        {5, 10, 15},
        pick(["python -m unittest discover -v", "python manage.py test"]),
        1,
        [f"{mod.replace('.', '/')}.py::{cls_name}::{fn}"],
    )


def sc_pytest_many() -> Scenario:
    p, py = proj(), pick(PYS)
    root = f"/home/runner/work/{p}/{p}"
    out = pytest_header(py, root) + [f"collected {R.randint(50, 500)} items", ""]
    passed, _ = passing_tests(p, 12, False)
    out += passed
    tests = [
        f"tests/test_api.py::test_{w}"
        for w in R.sample(["create", "delete", "list", "update", "patch"], 3)
    ]
    out += [
        "",
        "=================================== FAILURES ===================================",
    ]
    marks = set()
    for t in tests:
        name = t.split("::")[-1]
        out += [
            f"{'_' * 25} {name} {'_' * 25}",
            "",
            f"    def {name}(client):",
            f"        r = client.get('/items')",
            ">       assert r.status_code == 200",
            "E       assert 500 == 200",
            "E        +  where 500 = <Response [500]>.status_code",
            "",
            f"tests/test_api.py:{R.randint(5, 99)}: AssertionError",
            "----------------------------- Captured log call ------------------------------",
            "ERROR    app.views:views.py:41 unhandled error while listing",
        ]
        if not marks:
            marks.add(len(out) - 6)
    out.append("=========================== short test summary info ============================")
    for t in tests:
        out.append(f"FAILED {t} - assert 500 == 200")
        if len(marks) < 2:
            marks.add(len(out) - 1)
    out.append(
        f"=================== 3 failed, {R.randint(40, 400)} passed, 2 skipped in 12.31s ==================="
    )
    return Scenario("test", out, marks, "pytest -ra", 1, tests)


def sc_pytest_rerun_flaky() -> Scenario:
    p = proj()
    root = f"/home/runner/work/{p}/{p}"
    t = f"tests/test_{pick(['queue', 'worker', 'scheduler'])}.py::test_{pick(['drains', 'acks', 'orders'])}"
    t2 = "tests/test_models.py::test_defaults"
    out = pytest_header("3.12", root, "rerunfailures-14.0") + [
        "collected 40 items",
        "",
        f"{t2} PASSED [ 10%]",
        f"{t} RERUN [ 50%]",
        f"{t} RERUN [ 50%]",
        f"{t} FAILED [ 50%]",
        "",
        "=================================== FAILURES ===================================",
        f"___________ {t.split('::')[-1]} ___________",
        "",
        f"    def {t.split('::')[-1]}(q):",
        ">       assert q.wait(0.1) == 'done'",
        "E       AssertionError: assert 'pending' == 'done'",
        "",
        f"{t.split('::')[0]}:22: AssertionError",
        "=========================== short test summary info ============================",
        f"FAILED {t} - AssertionError: assert 'pending' == 'done'",
        "============= 1 failed, 39 passed, 2 rerun in 4.10s =============",
    ]
    marks = {
        i for i, line in enumerate(out) if line.startswith(("E       AssertionError", "FAILED "))
    }
    return Scenario("test", out, marks, "pytest --reruns 2", 1, [t])


# ---------------------------------------------------------------- lint / type ------------


def sc_ruff() -> Scenario:
    p = proj()
    files = [f"src/{p}/{pick(['api', 'core', 'cli', 'models'])}.py" for _ in range(3)]
    codes = [
        ("F401", "`os` imported but unused"),
        ("E711", "Comparison to `None` should be `cond is None`"),
        ("B006", "Do not use mutable data structures for argument defaults"),
        ("UP035", "`typing.List` is deprecated, use `list` instead"),
    ]
    out = []
    n = R.randint(1, 4)
    for k in range(n):
        c, m = pick(codes)  # type: ignore[misc]
        out.append(f"{files[k % 3]}:{R.randint(1, 300)}:{R.randint(1, 40)}: {c} {m}")
    out += [
        f"Found {n} error{'s' if n > 1 else ''}.",
        f"[*] {R.randint(0, n)} fixable with the `--fix` option.",
    ]
    return Scenario(
        "lint",
        out,
        set(range(n + 1)),
        pick(["ruff check .", "ruff check --output-format=concise src tests"]),
    )


def sc_flake8() -> Scenario:
    p = proj()
    n = R.randint(1, 5)
    out = [
        f"./{p}/{pick(['views', 'utils', 'db'])}.py:{R.randint(1, 300)}:{R.randint(1, 90)}: {pick(['E501 line too long (101 > 79 characters)', 'W291 trailing whitespace', 'F841 local variable e is assigned to but never used', 'E302 expected 2 blank lines, found 1'])}"
        for _ in range(n)
    ]
    return Scenario(
        "lint", out, set(range(n)), pick(["flake8", "flake8 . --count", "python -m flake8 src"])
    )


def sc_black() -> Scenario:
    p = proj()
    n = R.randint(1, 3)
    out = [
        f"would reformat /home/runner/work/{p}/{p}/src/{p}/{pick(['a', 'b', 'c', 'io', 'db'])}.py"
        for _ in range(n)
    ]
    out += [
        "",
        "Oh no! 💥 💔 💥",
        f"{n} file{'s' if n > 1 else ''} would be reformatted, {R.randint(10, 90)} files would be left unchanged.",
    ]
    return Scenario("lint", out, set(range(n)) | {n + 1, n + 2}, "black --check .")


def sc_ruff_format() -> Scenario:
    p = proj()
    out = [
        f"Would reformat: src/{p}/{pick(['app', 'cli'])}.py",
        f"Would reformat: tests/test_{pick(['app', 'cli'])}.py",
        f"2 files would be reformatted, {R.randint(10, 80)} files already formatted",
    ]
    return Scenario("lint", out, {0, 1, 2}, "ruff format --check")


def sc_isort() -> Scenario:
    p = proj()
    out = [
        f"ERROR: /home/runner/work/{p}/{p}/src/{p}/{pick(['x', 'y', 'main'])}.py Imports are incorrectly sorted and/or formatted.",
        f"ERROR: /home/runner/work/{p}/{p}/tests/conftest.py Imports are incorrectly sorted and/or formatted.",
    ]
    return Scenario("lint", out, {0, 1}, "isort --check-only --diff .")


def sc_precommit() -> Scenario:
    p = proj()
    out = [
        "[INFO] Initializing environment for https://github.com/astral-sh/ruff-pre-commit.",
        "[INFO] Installing environment for https://github.com/astral-sh/ruff-pre-commit.",
        "[INFO] Once installed this environment will be reused.",
        "trim trailing whitespace.................................................Passed",
        "fix end of files.........................................................Passed",
        "check yaml...............................................................Passed",
        "ruff.....................................................................Failed",
        "- hook id: ruff",
        "- exit code: 1",
        "",
        f"src/{p}/server.py:14:8: F401 [*] `sys` imported but unused",
        "Found 1 error.",
        "[*] 1 fixable with the `--fix` option.",
        "",
        "ruff-format..............................................................Passed",
    ]
    return Scenario("lint", out, {6, 10}, "pre-commit run --all-files --show-diff-on-failure")


def sc_pylint() -> Scenario:
    p = proj()
    out = [
        f"************* Module {p}.service",
        f"src/{p}/service.py:42:4: W0612: Unused variable 'resp' (unused-variable)",
        f"src/{p}/service.py:88:0: C0301: Line too long (120/100) (line-too-long)",
        "",
        "-----------------------------------",
        "Your code has been rated at 9.71/10 (previous run: 9.80/10, -0.09)",
    ]
    return Scenario("lint", out, {1, 2}, f"pylint src/{p}")


def sc_mypy() -> Scenario:
    p = proj()
    n = R.randint(1, 4)
    msgs = [
        'Argument 1 to "parse" has incompatible type "str | None"; expected "str"  [arg-type]',
        'Incompatible return value type (got "int", expected "str")  [return-value]',
        'Item "None" of "Optional[Match[str]]" has no attribute "group"  [union-attr]',
        "Missing return statement  [return]",
    ]
    out = [
        f"src/{p}/{pick(['io', 'api', 'util'])}.py:{R.randint(1, 300)}: error: {pick(msgs)}"
        for _ in range(n)
    ]
    if R.random() < 0.5:
        out.insert(1, f'src/{p}/io.py:10: note: Revealed type is "builtins.str"')
    out.append(
        f"Found {n} error{'s' if n > 1 else ''} in {R.randint(1, n)} file{'s' if n > 1 else ''} (checked {R.randint(10, 90)} source files)"
    )
    return Scenario(
        "type", out, {0, len(out) - 1}, pick(["mypy src", "mypy --strict .", "python -m mypy"])
    )


def sc_pyright() -> Scenario:
    p = proj()
    root = f"/home/runner/work/{p}/{p}"
    out = [
        f"{root}/src/{p}/db.py",
        f'  {root}/src/{p}/db.py:31:16 - error: Cannot access attribute "rows" for class "Cursor"',
        '    Attribute "rows" is unknown (reportAttributeAccessIssue)',
        f'  {root}/src/{p}/db.py:40:5 - warning: Import "yaml" could not be resolved from source (reportMissingModuleSource)',
        "1 error, 1 warning, 0 informations ",
    ]
    return Scenario("type", out, {1, 4}, "pyright")


# ---------------------------------------------------------------- build -------------------


def sc_c_ext() -> Scenario:
    p = proj()
    out = [
        "running build_ext",
        f"building '{p}._speedups' extension",
        f"gcc -pthread -Wno-unused-result -Wsign-compare -DNDEBUG -g -fwrapv -O2 -Wall -fPIC -I/usr/include/python3.11 -c src/{p}/_speedups.c -o build/temp.linux-x86_64-cpython-311/src/{p}/_speedups.o",
        f"src/{p}/_speedups.c: In function ‘fast_sum’:",
        f"src/{p}/_speedups.c:{R.randint(10, 400)}:{R.randint(1, 30)}: error: ‘PyObject’ has no member named ‘ob_refcnt_split’",
        "  214 |     if (obj->ob_refcnt_split) {",
        "      |            ^~",
        "error: command '/usr/bin/gcc' failed with exit code 1",
    ]
    return Scenario("build", out, {4, 7}, "python setup.py build_ext --inplace")


def sc_sphinx() -> Scenario:
    out = [
        "Running Sphinx v7.3.7",
        "loading pickled environment... done",
        "building [html]: targets for 42 source files that are out of date",
        "reading sources... [100%] usage",
        "/home/runner/work/docs/docs/docs/usage.rst:88: WARNING: undefined label: 'install-extras' [ref.ref]",
        "",
        "Warning, treated as error:",
        "/home/runner/work/docs/docs/docs/api.rst:12: WARNING: autodoc: failed to import module 'client' from module 'app'; the following exception was raised:",
    ]
    return Scenario("build", out, {4, 6, 7}, "sphinx-build -W -b html docs docs/_build")


def sc_pybuild() -> Scenario:
    proj()
    out = [
        "* Creating isolated environment: venv+pip...",
        "* Installing packages in isolated environment:",
        "  - hatchling>=1.21",
        "* Getting build dependencies for sdist...",
        "Traceback (most recent call last):",
        '  File "/tmp/build-env-x/lib/python3.12/site-packages/hatchling/builders/plugin/interface.py", line 90, in build',
        "ValueError: Unable to determine which files to ship inside the wheel using the following heuristics: https://hatch.pypa.io/latest/plugins/builder/wheel/#default-file-selection",
        "",
        "ERROR Backend subprocess exited when trying to invoke build_sdist",
    ]
    return Scenario("build", out, {6, 8}, "python -m build")


def sc_docker_build() -> Scenario:
    out = [
        "#8 [builder 4/6] RUN make -C native all",
        "#8 0.412 cc -O2 -c vec.c -o vec.o",
        "#8 0.533 vec.c:17:10: fatal error: immintrin_ext.h: No such file or directory",
        "#8 0.533    17 | #include <immintrin_ext.h>",
        "#8 0.540 compilation terminated.",
        '#8 ERROR: process "/bin/sh -c make -C native all" did not complete successfully: exit code: 2',
        "------",
        " > [builder 4/6] RUN make -C native all:",
        "------",
        'ERROR: failed to solve: process "/bin/sh -c make -C native all" did not complete successfully: exit code: 2',
    ]
    out = [l.removeprefix("#8 0.533 ") if R.random() < 0.0 else l for l in out]
    return Scenario("build", out, {2, 5, 9}, "docker build -t app .")


def sc_tsc_build() -> Scenario:
    out = [
        "> web@1.0.0 build",
        "> vite build",
        "",
        "vite v5.2.8 building for production...",
        "transforming...",
        "✓ 212 modules transformed.",
        "[vite:esbuild] Transform failed with 1 error:",
        'src/App.tsx:41:12: ERROR: Expected ")" but found "}"',
        "error during build:",
        "Error: Transform failed with 1 error:",
    ]
    return Scenario("build", out, {6, 7}, "npm run build")


# ---------------------------------------------------------------- dependency --------------


def sc_pip_nover() -> Scenario:
    pkg = pick(PKGS)
    v = f"{R.randint(5, 9)}.{R.randint(0, 9)}.{R.randint(0, 9)}"
    out = [
        f"Collecting {pick(PKGS)}>=1.0",
        "  Downloading something-1.2.3-py3-none-any.whl (61 kB)",
        f"Collecting {pkg}=={v}",
        f"ERROR: Could not find a version that satisfies the requirement {pkg}=={v} (from versions: 1.0.0, 1.1.0, 2.0.0)",
        f"ERROR: No matching distribution found for {pkg}=={v}",
    ]
    return Scenario(
        "dependency",
        out,
        {3, 4},
        pick(["pip install -r requirements.txt", "python -m pip install -e .[test]"]),
    )


def sc_pip_conflict() -> Scenario:
    a, b = R.sample(PKGS, 2)
    out = [
        f"Collecting {a}==2.1.0",
        f"Collecting {b}>=3",
        "INFO: pip is looking at multiple versions of app to determine which version is compatible with other requirements. This could take a while.",
        f"ERROR: Cannot install app==0.1.0 and {a}==2.1.0 because these package versions have conflicting dependencies.",
        "",
        "The conflict is caused by:",
        f"    The user requested {a}==2.1.0",
        f"    {b} 3.0.1 depends on {a}<2",
        "",
        "To fix this you could try to:",
        "1. loosen the range of package versions you've specified",
        "2. remove package versions to allow pip to attempt to solve the dependency conflict",
        "",
        "ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/#dealing-with-dependency-conflicts",
    ]
    return Scenario("dependency", out, {3, 13}, "pip install -r requirements-dev.txt")


def sc_uv() -> Scenario:
    a, b = R.sample(PKGS, 2)
    out = [
        "Using CPython 3.12.3 interpreter at: /usr/bin/python3",
        "Creating virtual environment at: .venv",
        "  × No solution found when resolving dependencies:",
        f"  ╰─▶ Because {a}==4.0.0 depends on {b}>=2 and your project depends on {b}<2, we can conclude that your project and {a}==4.0.0 are incompatible.",
        f"      And because your project depends on {a}==4.0.0, we can conclude that your project's requirements are unsatisfiable.",
    ]
    return Scenario(
        "dependency", out, {2, 3}, pick(["uv sync --locked", "uv pip install -r requirements.txt"])
    )


def sc_poetry() -> Scenario:
    a, b = R.sample(PKGS, 2)
    out = (
        [
            "Installing dependencies from lock file",
            "",
            "pyproject.toml changed significantly since poetry.lock was last generated. Run `poetry lock [--no-update]` to fix the lock file.",
        ]
        if R.random() < 0.5
        else [
            "Updating dependencies",
            "Resolving dependencies...",
            "",
            f"Because {a} (2.0.0) depends on {b} (>=3.0,<4.0)",
            f" and app depends on {b} (^2.1), {a} is forbidden.",
            f"So, because app depends on {a} (2.0.0), version solving failed.",
        ]
    )
    return Scenario(
        "dependency", out, {2} if len(out) == 3 else {3, 5}, "poetry install --no-interaction"
    )


def sc_missing_module() -> Scenario:
    p = proj()
    root = f"/home/runner/work/{p}/{p}"
    dep = pick(["yaml", "dateutil", "requests_mock", "freezegun", "hypothesis", "responses"])
    mod = f"tests/test_{pick(['config', 'dates', 'http'])}.py"
    out = pytest_header("3.11", root) + [
        "collected 112 items / 1 error",
        "",
        "==================================== ERRORS ====================================",
        f"__________________ ERROR collecting {mod} __________________",
        f"ImportError while importing test module '{root}/{mod}'.",
        "Hint: make sure your test modules/packages have valid Python names.",
        "Traceback:",
        "/opt/hostedtoolcache/Python/3.11.9/x64/lib/python3.11/importlib/__init__.py:126: in import_module",
        "    return _bootstrap._gcd_import(name[level:], package, level)",
        f"{mod}:3: in <module>",
        f"    import {dep}",
        f"E   ModuleNotFoundError: No module named '{dep}'",
        "=========================== short test summary info ============================",
        f"ERROR {mod}",
        "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!",
        "=============================== 1 error in 0.87s ===============================",
    ]
    return Scenario("dependency", out, {len(out) - 5, len(out) - 3}, "pytest", 2, [mod])


def sc_npm() -> Scenario:
    out = [
        "npm ERR! code ERESOLVE",
        "npm ERR! ERESOLVE unable to resolve dependency tree",
        "npm ERR! ",
        "npm ERR! While resolving: web@1.0.0",
        "npm ERR! Found: react@18.3.1",
        "npm ERR! Could not resolve dependency:",
        'npm ERR! peer react@"^17.0.0" from react-table@7.8.0',
        "",
        "npm ERR! A complete log of this run can be found in: /home/runner/.npm/_logs/debug-0.log",
    ]
    return Scenario("dependency", out, {0, 1}, "npm ci")


# ---------------------------------------------------------------- network -----------------


def sc_pip_network() -> Scenario:
    pkg = pick(PKGS)
    out = [
        f"Collecting {pkg}",
        "WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f2a>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')': /simple/"
        + pkg
        + "/",
        "WARNING: Retrying (Retry(total=3, connect=None, read=None, redirect=None, status=None)) after connection broken by 'ReadTimeoutError(\"HTTPSConnectionPool(host='pypi.org', port=443): Read timed out. (read timeout=15)\")': /simple/"
        + pkg
        + "/",
        f"ERROR: Could not find a version that satisfies the requirement {pkg} (from versions: none)",
        f"ERROR: No matching distribution found for {pkg}",
    ]
    return Scenario("network", out, {1, 2}, "pip install -r requirements.txt")


def sc_test_network() -> Scenario:
    p = proj()
    root = f"/home/runner/work/{p}/{p}"
    host = pick(
        [
            "api.github.com",
            "api.openweathermap.org",
            "pypi.org",
            "s3.amazonaws.com",
            "example-partner.net",
        ]
    )
    t = f"tests/test_client.py::test_{pick(['fetch_forecast', 'download', 'sync_remote'])}"
    name = t.split("::")[-1]
    out = pytest_header("3.12", root) + [
        "collected 30 items",
        "",
        "tests/test_client.py F....                                           [ 17%]",
        "tests/test_models.py .........................                        [100%]",
        "",
        "=================================== FAILURES ===================================",
        f"____________________ {name} ____________________",
        f"tests/test_client.py:18: in {name}",
        "    resp = client.get('/v1/data')",
        f"src/{p}/client.py:44: in get",
        "    return self.session.get(url, timeout=5)",
        ".venv/lib/python3.12/site-packages/requests/sessions.py:602: in get",
        '    return self.request("GET", url, **kwargs)',
        ".venv/lib/python3.12/site-packages/requests/adapters.py:700: in send",
        "    raise ConnectionError(e, request=request)",
        f"E   requests.exceptions.ConnectionError: HTTPSConnectionPool(host='{host}', port=443): Max retries exceeded with url: /v1/data (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f3b2c>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution'))",
        "=========================== short test summary info ============================",
        f"FAILED {t} - requests.exceptions.ConnectionError: HTTPSConnectionPool(host='{host}', port=443): Max retries exceeded",
        "========================= 1 failed, 29 passed in 6.02s =========================",
    ]
    return Scenario("network", out, {len(out) - 4, len(out) - 2}, "pytest --tb=short", 1, [t])


def sc_git_network() -> Scenario:
    out = [
        f"Cloning into '/home/runner/work/_temp/{proj()}'...",
        "fatal: unable to access 'https://github.com/org/vendored.git/': Could not resolve host: github.com",
        "The process '/usr/bin/git' failed with exit code 128",
    ]
    return Scenario(
        "network", out, {1}, "git clone --depth 1 https://github.com/org/vendored.git", 128
    )


def sc_curl_network() -> Scenario:
    out = [
        "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current",
        "                                 Dload  Upload   Total   Spent    Left  Speed",
        "  0     0    0     0    0     0      0      0 --:--:--  0:00:10 --:--:--     0",
        f"curl: (28) Failed to connect to downloads.{proj()}.io port 443 after 10002 ms: Connection timed out",
    ]
    return Scenario(
        "network", out, {3}, "curl -fsSL https://downloads.example.io/tool.tar.gz -o tool.tgz", 28
    )


def sc_npm_network() -> Scenario:
    out = [
        "npm ERR! code ECONNRESET",
        "npm ERR! syscall read",
        "npm ERR! errno ECONNRESET",
        "npm ERR! network request to https://registry.npmjs.org/lodash failed, reason: read ECONNRESET",
        "npm ERR! network This is a problem related to network connectivity.",
    ]
    return Scenario("network", out, {0, 3}, "npm ci")


def sc_http_503() -> Scenario:
    pkg = pick(PKGS)
    out = [
        f"Looking in indexes: https://pypi.internal.example/simple",
        f"Collecting {pkg}",
        f"ERROR: HTTP error 503 while getting https://pypi.internal.example/packages/{pkg}-1.0-py3-none-any.whl",
        f"ERROR: 503 Server Error: Service Unavailable for url: https://pypi.internal.example/packages/{pkg}-1.0-py3-none-any.whl",
    ]
    return Scenario(
        "network",
        out,
        {2, 3},
        "pip install --index-url https://pypi.internal.example/simple -r requirements.txt",
    )


# ---------------------------------------------------------------- timeout -----------------


def sc_pytest_timeout() -> Scenario:
    p = proj()
    root = f"/home/runner/work/{p}/{p}"
    t = f"tests/test_{pick(['sync', 'io', 'pool'])}.py::test_{pick(['waits_for_lock', 'drain', 'shutdown'])}"
    name = t.split("::")[-1]
    out = pytest_header("3.11", root, "timeout-2.3.1") + [
        "timeout: 60.0s",
        "timeout method: signal",
        "timeout func_only: False",
        "collected 88 items",
        "",
        "=================================== FAILURES ===================================",
        f"_____________________ {name} _____________________",
        "",
        f"    def {name}(pool):",
        ">       pool.join()",
        "",
        f"{t.split('::')[0]}:40: ",
        "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _",
        "",
        "    def join(self):",
        ">       self._done.wait()",
        "E       Failed: Timeout >60.0s",
        "",
        f"src/{p}/pool.py:77: Failed",
        "=========================== short test summary info ============================",
        f"FAILED {t} - Failed: Timeout >60.0s",
        "=================== 1 failed, 87 passed in 75.12s (0:01:15) ===================",
    ]
    return Scenario("timeout", out, {len(out) - 6, len(out) - 2}, "pytest --timeout=60", 1, [t])


def sc_job_timeout() -> Scenario:
    out = [
        "tests/test_models.py::test_defaults PASSED [  2%]",
        "tests/test_big.py::test_full_import PASSED [  4%]",
        f"##[error]The job running on runner GitHub Actions {R.randint(2, 900)} has exceeded the maximum execution time of {pick(['15', '30', '60', '360'])} minutes.",
        "##[error]The operation was canceled.",
    ]
    return Scenario("timeout", out, {2}, "pytest -v", 0)


def sc_travis_timeout() -> Scenario:
    out = [
        "Running tests for the integration suite...",
        "",
        "",
        "No output has been received in the last 10m0s, this potentially indicates a stalled build or something wrong with the build itself.",
        "Check the details on how to adjust your build configuration on: https://docs.travis-ci.com/user/common-build-problems/#build-times-out-because-no-output-was-received",
        "",
        "The build has been terminated",
    ]
    return Scenario("timeout", out, {3}, "make integration", 0)


# ---------------------------------------------------------------- configuration -----------


def sc_pytest_usage() -> Scenario:
    out = [
        pick(
            [
                "ERROR: usage: pytest [options] [file_or_dir] [file_or_dir] [...]",
                "ERROR: usage: __main__.py [options] [file_or_dir] [file_or_dir] [...]",
            ]
        ),
        "__main__.py: error: unrecognized arguments: --cov=src --cov-report=xml",
        f"  inifile: /home/runner/work/x/x/pyproject.toml",
        "  rootdir: /home/runner/work/x/x",
    ]
    return Scenario("configuration", out, {0, 1}, "pytest --cov=src --cov-report=xml", 4)


def sc_settings() -> Scenario:
    p = proj()
    root = f"/home/runner/work/{p}/{p}"
    var = pick(["DATABASE_URL", "API_KEY", "SECRET_KEY", "REDIS_URL", "STRIPE_TOKEN"])
    if R.random() < 0.5:
        out = pytest_header("3.12", root) + [
            "collected 0 items / 1 error",
            "",
            "==================================== ERRORS ====================================",
            "_____________________ ERROR collecting tests/test_app.py _____________________",
            "tests/test_app.py:3: in <module>",
            f"    from {p}.settings import settings",
            f"src/{p}/settings.py:20: in <module>",
            "    settings = Settings()",
            ".venv/lib/python3.12/site-packages/pydantic_settings/main.py:167: in __init__",
            "    super().__init__(",
            "E   pydantic_core._pydantic_core.ValidationError: 1 validation error for Settings",
            f"E   {var.lower()}",
            "E     Field required [type=missing, input_value={}, input_type=dict]",
            "=========================== short test summary info ============================",
            "ERROR tests/test_app.py - pydantic_core._pydantic_core.ValidationError: 1 validation error for Settings",
            "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!",
            "=============================== 1 error in 0.51s ===============================",
        ]
        return Scenario(
            "configuration", out, {len(out) - 7, len(out) - 3}, "pytest", 2, ["tests/test_app.py"]
        )
    t = f"tests/test_db.py::test_{pick(['connect', 'migrate'])}"
    out = pytest_header("3.12", root) + [
        "collected 12 items",
        "",
        "tests/test_db.py E..........",
        "",
        "==================================== ERRORS ====================================",
        f"_________________ ERROR at setup of {t.split('::')[-1]} _________________",
        "tests/conftest.py:9: in db",
        f'    url = os.environ["{var}"]',
        "/opt/hostedtoolcache/Python/3.12.3/x64/lib/python3.12/os.py:685: in __getitem__",
        "    raise KeyError(key) from None",
        f"E   KeyError: '{var}'",
        "=========================== short test summary info ============================",
        f"ERROR {t} - KeyError: '{var}'",
        "========================= 11 passed, 1 error in 0.40s =========================",
    ]
    return Scenario("configuration", out, {len(out) - 4, len(out) - 2}, "pytest", 1, [t])


def sc_missing_input() -> Scenario:
    out = ["##[error]Input required and not supplied: token"]
    return Scenario("configuration", out, {0}, "Run codecov/codecov-action@v4", 0, [], False)


def sc_no_tests() -> Scenario:
    p = proj()
    out = pytest_header("3.11", f"/home/runner/work/{p}/{p}") + [
        "collected 0 items",
        "",
        "============================ no tests ran in 0.02s =============================",
    ]
    return Scenario("configuration", out, {len(out) - 1}, "pytest tests/unit", 5)


def sc_strict_markers() -> Scenario:
    p = proj()
    out = pytest_header("3.12", f"/home/runner/work/{p}/{p}") + [
        "collected 31 items / 1 error",
        "",
        "==================================== ERRORS ====================================",
        "___________________ ERROR collecting tests/test_slow.py ___________________",
        "'integration' not found in `markers` configuration option",
        "=========================== short test summary info ============================",
        "ERROR tests/test_slow.py - Failed: 'integration' not found in `markers` configuration option",
        "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!",
    ]
    return Scenario(
        "configuration",
        out,
        {len(out) - 4, len(out) - 2},
        "pytest --strict-markers",
        2,
        ["tests/test_slow.py"],
    )


def sc_yaml_config() -> Scenario:
    out = [
        "Traceback (most recent call last):",
        '  File "/home/runner/work/app/app/scripts/deploy.py", line 12, in <module>',
        "    cfg = yaml.safe_load(open('deploy.yml'))",
        "yaml.scanner.ScannerError: mapping values are not allowed here",
        '  in "deploy.yml", line 7, column 14',
    ]
    return Scenario("configuration", out, {3}, "python scripts/deploy.py --check")


# ---------------------------------------------------------------- environment -------------


def sc_cmd_not_found() -> Scenario:
    tool = pick(["poetry", "tox", "pdm", "just", "protoc", "pnpm"])
    out = [
        f"/home/runner/work/_temp/{R.randint(10**7, 10**8)}.sh: line 1: {tool}: command not found"
    ]
    return Scenario("environment", out, {0}, f"{tool} run test", 127)


def sc_setup_python() -> Scenario:
    v = pick(["3.6", "3.7", "2.7"])
    out = [
        f"Version {v} was not found in the local cache",
        f"##[error]The version '{v}' with architecture 'x64' was not found for Ubuntu 24.04.",
        "The list of all available versions can be found here: https://raw.githubusercontent.com/actions/python-versions/main/versions-manifest.json",
    ]
    return Scenario("environment", out, {1}, f"Run actions/setup-python@v5", 0, [], False)


def sc_requires_python() -> Scenario:
    p = proj()
    out = [
        f"Obtaining file:///home/runner/work/{p}/{p}",
        "  Installing build dependencies: started",
        "  Installing build dependencies: finished with status 'done'",
        f"ERROR: Package '{p}' requires a different Python: 3.8.18 not in '>=3.10'",
    ]
    return Scenario("environment", out, {3}, "pip install -e .")


def sc_shared_lib() -> Scenario:
    p = proj()
    root = f"/home/runner/work/{p}/{p}"
    out = pytest_header("3.11", root) + [
        "collected 5 items / 1 error",
        "",
        "==================================== ERRORS ====================================",
        "________________ ERROR collecting tests/test_render.py ________________",
        "tests/test_render.py:2: in <module>",
        "    import cv2",
        ".venv/lib/python3.11/site-packages/cv2/__init__.py:181: in <module>",
        "    bootstrap()",
        "E   ImportError: libGL.so.1: cannot open shared object file: No such file or directory",
        "=========================== short test summary info ============================",
        "ERROR tests/test_render.py",
        "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!",
    ]
    return Scenario("environment", out, {len(out) - 4}, "pytest", 2, ["tests/test_render.py"])


def sc_permission() -> Scenario:
    out = [
        "Defaulting to user installation because normal site-packages is not writeable",
        "ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied: '/usr/local/lib/python3.12/dist-packages/app'",
        "Consider using the `--user` option or check the permissions.",
    ]
    return Scenario("environment", out, {1}, "sudo -u runner pip install --no-user .")


def sc_docker_daemon() -> Scenario:
    out = [
        "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?"
    ]
    return Scenario("environment", out, {0}, "docker compose up -d db")


# ---------------------------------------------------------------- infrastructure ----------


def sc_disk() -> Scenario:
    pkg = pick(["torch", "tensorflow", "nvidia-cudnn-cu12"])
    out = [
        f"Collecting {pkg}",
        f"  Downloading {pkg}-2.3.0-cp311-cp311-manylinux1_x86_64.whl (779.1 MB)",
        "Installing collected packages: ...",
        "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device",
    ]
    return Scenario("infrastructure", out, {3}, "pip install -r requirements-gpu.txt")


def sc_oom() -> Scenario:
    out = [
        "tests/test_big.py::test_load_matrix PASSED [ 40%]",
        "tests/test_big.py::test_invert_matrix ",
        "/home/runner/work/_temp/3b1.sh: line 1:  2211 Killed                  pytest -v tests/test_big.py",
    ]
    return Scenario("infrastructure", out, {2}, "pytest -v tests/test_big.py", 137)


def sc_runner_lost() -> Scenario:
    out = pick(
        [
            [
                "tests/test_models.py::test_defaults PASSED [ 12%]",
                "##[error]The runner has received a shutdown signal. This can happen when the runner service is stopped, or a manually started runner is canceled.",
                "##[error]The operation was canceled.",
            ],
            [
                "Collecting numpy",
                "##[error]The hosted runner: GitHub Actions 17 lost communication with the server. Anything in your workflow that terminates the runner process, starves it for CPU/Memory, or blocks its network access can cause this error.",
            ],
        ]
    )
    return Scenario("infrastructure", out, {1}, "pytest -v", 0)


def sc_cancelled() -> Scenario:
    out = [
        "Collecting pandas",
        "  Downloading pandas-2.2.2.tar.gz (4.4 MB)",
        "##[error]The operation was canceled.",
    ]
    return Scenario("infrastructure", out, {2}, "pip install -r requirements.txt", 0)


def sc_cc_oom() -> Scenario:
    out = [
        "[ 71%] Building CXX object src/CMakeFiles/core.dir/solver.cpp.o",
        "c++: fatal error: Killed signal terminated program cc1plus",
        "compilation terminated.",
        "make[2]: *** [src/CMakeFiles/core.dir/build.make:104: src/CMakeFiles/core.dir/solver.cpp.o] Error 1",
    ]
    return Scenario("infrastructure", out, {1}, "pip install .")


# ---------------------------------------------------------------- harder cases -------------
# Decoys that a first-match keyword classifier gets wrong: a resolver warning before a test
# failure in the same step, a type checker talking about modules, a build with warnings.


def sc_test_after_resolver_warning() -> Scenario:
    base = sc_pytest_assert()
    noise = [
        "Installing collected packages: urllib3, botocore",
        "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. This behaviour is the source of the following dependency conflicts.",
        f"botocore 1.34.{R.randint(1, 99)} requires urllib3<2.1,>=1.25.4, but you have urllib3 2.2.1 which is incompatible.",
        "Successfully installed botocore-1.34.2 urllib3-2.2.1",
    ]
    shift = len(noise)
    return Scenario(
        "test",
        noise + base.lines,
        {i + shift for i in base.marks},
        "pip install -e .[test] && " + base.cmd,
        1,
        base.tests,
    )


def sc_mypy_modules() -> Scenario:
    p = proj()
    mod = pick(["yaml", "requests", "toml", "six"])
    out = [
        f'src/{p}/config.py:3: error: Library stubs not installed for "{mod}"  [import-untyped]',
        f'src/{p}/config.py:3: note: Hint: "python3 -m pip install types-{mod}"',
        f'src/{p}/config.py:3: note: (or run "mypy --install-types" to install all missing stub packages)',
        f'src/{p}/cli.py:12: error: Cannot find implementation or library stub for module named "{p}_ext"  [import-not-found]',
        "Found 2 errors in 2 files (checked 31 source files)",
    ]
    return Scenario("type", out, {0, 3, 4}, "mypy src")


def sc_build_with_warnings() -> Scenario:
    p = proj()
    out = [
        "* Building wheel...",
        "/tmp/build-env-3k2/lib/python3.12/site-packages/setuptools/config/_apply_pyprojecttoml.py:82: SetuptoolsDeprecationWarning: `project.license` as a TOML table is deprecated",
        "!!",
        "        ********************************************************************************",
        "        Please use a simple string containing a SPDX expression for `project.license`.",
        "        ********************************************************************************",
        "!!",
        "running bdist_wheel",
        "running build",
        "running build_py",
        f"error: package directory 'src/{p}/plugins' does not exist",
        "",
        "ERROR Backend subprocess exited when trying to invoke build_wheel",
    ]
    return Scenario("build", out, {10, 12}, "python -m build --wheel")


SCENARIOS: dict[str, list[Callable[[], Scenario]]] = {
    "test": [
        sc_pytest_assert,
        sc_pytest_assert,
        sc_pytest_assert,
        sc_unittest,
        sc_pytest_many,
        sc_pytest_rerun_flaky,
    ],
    "lint": [sc_ruff, sc_flake8, sc_black, sc_ruff_format, sc_isort, sc_precommit, sc_pylint],
    "type": [sc_mypy, sc_mypy_modules, sc_pyright],
    "build": [
        sc_c_ext,
        sc_sphinx,
        sc_pybuild,
        sc_docker_build,
        sc_tsc_build,
        sc_build_with_warnings,
    ],
    "dependency": [sc_pip_nover, sc_pip_conflict, sc_uv, sc_poetry, sc_missing_module, sc_npm],
    "network": [
        sc_pip_network,
        sc_test_network,
        sc_git_network,
        sc_curl_network,
        sc_npm_network,
        sc_http_503,
    ],
    "timeout": [sc_pytest_timeout, sc_job_timeout, sc_travis_timeout],
    "configuration": [
        sc_pytest_usage,
        sc_settings,
        sc_missing_input,
        sc_no_tests,
        sc_strict_markers,
        sc_yaml_config,
    ],
    "environment": [
        sc_cmd_not_found,
        sc_setup_python,
        sc_requires_python,
        sc_shared_lib,
        sc_permission,
        sc_docker_daemon,
    ],
    "infrastructure": [sc_disk, sc_oom, sc_runner_lost, sc_cancelled, sc_cc_oom],
}
COUNTS = {
    "test": 30,
    "lint": 20,
    "type": 12,
    "build": 14,
    "dependency": 16,
    "network": 14,
    "timeout": 10,
    "configuration": 16,
    "environment": 14,
    "infrastructure": 12,
}

# ------------------------------------------- other ecosystems (written after the rest) -----
# Runners, checkers and resolvers of other languages, as their tools print them. They are
# generated after the Python scenarios so that those logs stay as they were.


def sc_scalatest() -> Scenario:
    spec = pick(["QueueSpec", "RouterSpec", "CodecSpec"])
    lines = [
        "[info] Compiling 14 Scala sources to /home/runner/work/app/app/core/target/scala-2.13/classes ...",
        "[info] Done compiling.",
        f"[info] {spec}:",
        "[info] - keeps insertion order",
        "[info] - rejects an empty key",
        f"[info] - drops the oldest entry when full *** FAILED ***",
        f"[info]   {R.randint(4, 9)} did not equal 3 ({spec}.scala:{R.randint(20, 90)})",
        "[info] Run completed in 2 seconds, 113 milliseconds.",
        "[info] Tests: succeeded 11, failed 1, canceled 0, ignored 0, pending 0",
        "[info] *** 1 TEST FAILED ***",
        f"[error] Failed tests:",
        f"[error] \torg.example.{spec}",
        "[error] (core / Test / test) sbt.TestsFailedException: Tests unsuccessful",
    ]
    return Scenario("test", lines, {5, 6}, "sbt +test")


def sc_rspec() -> Scenario:
    lines = [
        "Randomized with seed 40213",
        "..........F.....",
        "",
        "Failures:",
        "",
        "  1) Cart#total rounds half up",
        "     Failure/Error: expect(cart.total).to eq(3)",
        "",
        "       expected: 3",
        "            got: 2",
        "     # ./spec/cart_spec.rb:14:in `block (3 levels) in <top (required)>'",
        "",
        "Finished in 0.0412 seconds (files took 0.31 seconds to load)",
        "16 examples, 1 failure",
        "",
        "Failed examples:",
        "",
        "rspec ./spec/cart_spec.rb:12 # Cart#total rounds half up",
    ]
    return Scenario("test", lines, {5, 6}, "bundle exec rspec")


def sc_phpunit() -> Scenario:
    lines = [
        "PHPUnit 10.5.0 by Sebastian Bergmann and contributors.",
        "",
        "......E......",
        "",
        "Time: 00:00.112, Memory: 8.00 MB",
        "",
        "There was 1 error:",
        "",
        "1) App\\Tests\\InvoiceTest::testTotals",
        "TypeError: App\\Invoice::add(): Argument #1 ($cents) must be of type int, string given",
        "",
        "/home/runner/work/app/app/src/Invoice.php:21",
        "",
        "ERRORS!",
        "Tests: 13, Assertions: 40, Errors: 1.",
    ]
    return Scenario("test", lines, {8, 9}, "vendor/bin/phpunit")


def sc_go_build_failed() -> Scenario:
    lines = [
        "ok  \texample.com/app/store\t0.041s",
        "# example.com/app/api [example.com/app/api.test]",
        "api/handler_test.go:14:2: undefined: newRouter",
        "FAIL\texample.com/app/api [build failed]",
        "FAIL",
        "make: *** [Makefile:12: test] Error 2",
    ]
    return Scenario("build", lines, {2, 3}, "make test", exit=2)


def sc_markdownlint() -> Scenario:
    lines = [
        "markdownlint-cli2 v0.12.1 (markdownlint v0.33.0)",
        "Finding: **/*.md",
        "Linting: 12 file(s)",
        "Summary: 2 error(s)",
        "docs/install.md:14 MD012/no-multiple-blanks Multiple consecutive blank lines [Expected: 1; Actual: 2]",
        "README.md:88:81 MD013/line-length Line length [Expected: 80; Actual: 97]",
    ]
    return Scenario("lint", lines, {4, 5}, "npx markdownlint-cli2 '**/*.md'")


def sc_sbt_unresolved() -> Scenario:
    lines = [
        "[info] Updating ",
        "[warn] \t::::::::::::::::::::::::::::::::::::::::::::::",
        "[warn] \t::          UNRESOLVED DEPENDENCIES         ::",
        "[warn] \t::::::::::::::::::::::::::::::::::::::::::::::",
        "[warn] \t:: org.example#codec_2.13;2.4.0-SNAPSHOT: not found",
        "sbt.librarymanagement.ResolveException: Error downloading org.example:codec_2.13:2.4.0-SNAPSHOT",
        "[error] sbt.librarymanagement.ResolveException: unresolved dependency: org.example#codec_2.13;2.4.0-SNAPSHOT: not found",
        "[error] Total time: 9 s, completed Jun 1, 2024 10:00:00 AM",
    ]
    return Scenario("dependency", lines, {4, 5, 6}, "sbt compile")


def sc_tests_timed_out() -> Scenario:
    lines = [
        "Acceptance: checkout flow",
        ".",
        "Acceptance: invoice page",
        "Tests timed out",
        "rake aborted!",
        "Command failed with status (124): [node test/run-browser-tests.js ...]",
        "/home/runner/work/app/app/lib/tasks/qunit.rake:41:in `block in <main>'",
        "Tasks: TOP => qunit:test",
    ]
    return Scenario("timeout", lines, {3, 5}, "bundle exec rake qunit:test")


def sc_clone_then_missing() -> Scenario:
    lines = [
        "Cloning into 'vendor/toolkit'...",
        "fatal: unable to access 'https://git.example.org/toolkit/': Could not resolve host: git.example.org",
        "/home/runner/work/_temp/4f1c.sh: line 3: cd: vendor/toolkit: No such file or directory",
        "make: *** No rule to make target 'install'.  Stop.",
    ]
    return Scenario("network", lines, {1}, "./ci/fetch-toolkit.sh", exit=2)


EXTRA: list[Callable[[], Scenario]] = [
    sc_scalatest,
    sc_rspec,
    sc_phpunit,
    sc_go_build_failed,
    sc_markdownlint,
    sc_sbt_unresolved,
    sc_tests_timed_out,
    sc_clone_then_missing,
]

# ---------------------------------------------------------------- wrappers ----------------


DAY = [1]


def _ts(t: float) -> str:
    s = int(t)
    return f"2024-05-{DAY[0]:02d}T{(s // 3600) % 24:02d}:{(s // 60) % 60:02d}:{s % 60:02d}.{R.randint(0, 9999999):07d}Z "


def _color(line: str) -> str:
    for word, code in (("FAILED", "31"), ("PASSED", "32"), ("ERROR", "31"), ("error", "31")):
        if word in line and R.random() < 0.5:
            return line.replace(word, f"\x1b[{code}m{word}\x1b[0m", 1)
    return line


def install_noise() -> list[str]:
    out = []
    for pkg in R.sample(PKGS, R.randint(3, 8)):
        v = ver()
        out += [
            f"Collecting {pkg}>={v[:3]}",
            f"  Downloading {pkg}-{v}-py3-none-any.whl ({R.randint(10, 900)} kB)",
        ]
    out += [
        f"Installing collected packages: {', '.join(R.sample(PKGS, 4))}",
        f"Successfully installed {' '.join(p + '-' + ver() for p in R.sample(PKGS, 4))}",
    ]
    return out


def decoy_step() -> tuple[str, list[str]]:
    return pick(
        [
            ("ruff check .", ["All checks passed!"]),
            ("mypy src", ["Success: no issues found in 23 source files"]),
            ('python -c "import app; print(app.__version__)"', ["0.4.1"]),
            ('echo "Checking for error: nothing to do"', ["Checking for error: nothing to do"]),
        ]
    )


def gha(s: Scenario) -> tuple[list[str], dict[int, int]]:
    """A GitHub Actions job log around the scenario; returns lines and index map."""
    t = R.uniform(0, 80000)
    DAY[0] = R.randint(1, 28)
    out: list[str] = []
    mapping: dict[int, int] = {}

    def emit(line: str) -> None:
        nonlocal t
        t += R.uniform(0, 2)
        out.append(_ts(t) + line)

    py = pick(PYS)
    emit("Current runner version: '2.316.1'")
    emit("##[group]Operating System")
    emit("Ubuntu")
    emit(pick(["22.04.4", "24.04"]))
    emit("LTS")
    emit("##[endgroup]")
    emit("##[group]Runner Image")
    emit("Image: ubuntu-22.04")
    emit("##[endgroup]")
    emit("##[group]Run actions/checkout@v4")
    emit("with:")
    emit(f"  repository: org/{proj()}")
    emit("##[endgroup]")
    emit("Syncing repository: org/app")
    emit(
        f"HEAD is now at {R.getrandbits(28):07x} {pick(['Fix the parser', 'Bump deps', 'Add retry', 'Refactor'])}"
    )
    if s.cmd.startswith("Run actions/setup-python"):
        emit("##[group]Run actions/setup-python@v5")
        emit("with:")
        emit("  python-version: 3.7")
        emit("##[endgroup]")
        for i, line in enumerate(s.lines):
            mapping[i] = len(out)
            emit(line)
        return out, mapping
    emit("##[group]Run actions/setup-python@v5")
    emit(f"  python-version: {py}")
    emit("##[endgroup]")
    emit(f"Successfully set up CPython ({py}.4)")
    emit("##[group]Run python -m pip install --upgrade pip && pip install -e .[test]")
    emit("python -m pip install --upgrade pip && pip install -e .[test]")
    emit("shell: /usr/bin/bash -e {0}")
    emit("env:")
    emit(f"  pythonLocation: /opt/hostedtoolcache/Python/{py}.4/x64")
    emit("##[endgroup]")
    for line in install_noise():
        emit(line)
    if R.random() < 0.6:
        cmd, lines = decoy_step()
        emit(f"##[group]Run {cmd}")
        emit(cmd)
        emit("shell: /usr/bin/bash -e {0}")
        emit("##[endgroup]")
        for line in lines:
            emit(line)
    if s.cmd.startswith("Run "):
        emit(f"##[group]{s.cmd}")
        emit("with:")
        emit("  fail_ci_if_error: true")
        emit("##[endgroup]")
    else:
        emit(f"##[group]Run {s.cmd}")
        emit(s.cmd)
        emit("shell: /usr/bin/bash -e {0}")
        emit("env:")
        emit(f"  pythonLocation: /opt/hostedtoolcache/Python/{py}.4/x64")
        emit("##[endgroup]")
    for i, line in enumerate(s.lines):
        mapping[i] = len(out)
        emit(_color(line) if R.random() < 0.5 else line)
    if s.exit:
        if s.cls in ("lint", "type") and R.random() < 0.5:
            emit(f"##[error]Process completed with exit code {s.exit}.")
        else:
            emit(f"##[error]Process completed with exit code {s.exit}.")
    emit("Post job cleanup.")
    emit("[command]/usr/bin/git version")
    emit("git version 2.45.1")
    emit("Cleaning up orphan processes")
    return out, mapping


def gh_cli(s: Scenario) -> tuple[list[str], dict[int, int]]:
    """The job log as ``gh run view --log`` prints it: ``JOB<TAB>STEP<TAB>`` before each
    line, a BOM before the first timestamp of each step, no line added or removed."""
    lines, mapping = gha(s)
    job = f"test ({pick(PYS)})"
    step = "Set up job"
    out = []
    for k, line in enumerate(lines):
        text = line.split(" ", 1)[1] if " " in line else ""
        new = step
        if text.startswith("##[group]Run "):
            new = "Run tests" if text[13:].strip() == s.cmd else text[9:].strip()
        elif text == "Post job cleanup.":
            new = "Post Run actions/checkout@v4"
        bom = "\ufeff" if new != step or k == 0 else ""
        step = new
        out.append(f"{job}\t{step}\t{bom}{line}")
    return out, mapping


def raw(s: Scenario) -> tuple[list[str], dict[int, int]]:
    return list(s.lines), {i: i for i in range(len(s.lines))}


def tox(s: Scenario) -> tuple[list[str], dict[int, int]]:
    env = pick(["py311", "py312", "lint", "type", "py310"])
    out = [
        f"{env}: install_deps> python -I -m pip install -r requirements-test.txt",
        f".pkg: _optional_hooks> python /usr/lib/python3/dist-packages/pyproject_api/_backend.py True setuptools.build_meta",
        f"{env}: install_package> python -I -m pip install --force-reinstall --no-deps /home/runner/work/app/app/.tox/.tmp/package/1/app-0.1.tar.gz",
        f"{env}: commands[0]> {s.cmd}",
    ]
    mapping = {}
    for i, line in enumerate(s.lines):
        mapping[i] = len(out)
        out.append(line)
    out += [
        f"{env}: exit {s.exit or 1} ({R.uniform(0.5, 80):.2f} seconds) /home/runner/work/app/app> {s.cmd} pid={R.randint(1000, 9999)}",
        f"  {env}: FAIL code {s.exit or 1} ({R.uniform(5, 90):.2f}=setup[{R.uniform(1, 9):.2f}]+cmd[{R.uniform(1, 80):.2f}] seconds)",
        f"  evaluation failed :( ({R.uniform(5, 90):.2f} seconds)",
    ]
    return out, mapping


def nox(s: Scenario) -> tuple[list[str], dict[int, int]]:
    sess = pick(["tests-3.12", "lint", "typecheck", "tests(django='5.0')"])
    out = [
        f"nox > Running session {sess}",
        f"nox > Creating virtual environment (virtualenv) using python3.12 in .nox/{sess.replace('.', '-')}",
        "nox > python -m pip install -e '.[test]'",
        f"nox > {s.cmd}",
    ]
    mapping = {}
    for i, line in enumerate(s.lines):
        mapping[i] = len(out)
        out.append(line)
    out += [
        f"nox > Command {s.cmd} failed with exit code {s.exit or 1}",
        f"nox > Session {sess} failed.",
    ]
    return out, mapping


def travis(s: Scenario) -> tuple[list[str], dict[int, int]]:
    out = [
        "travis_fold:start:install\r\x1b[0Ktravis_time:start:0a1b2c3d\r\x1b[0K$ pip install -r requirements.txt"
    ] + install_noise()
    out += [
        f"travis_time:end:0a1b2c3d:start=1,finish=2,duration=1\r\x1b[0Ktravis_fold:end:install\r\x1b[0K",
        f"travis_time:start:1b2c3d4e\r\x1b[0K$ {s.cmd}",
    ]
    mapping = {}
    for i, line in enumerate(s.lines):
        mapping[i] = len(out)
        out.append(line + ("\r" if R.random() < 0.5 else ""))
    out += [
        f'travis_time:end:1b2c3d4e:start=3,finish=4,duration=1\r\x1b[0K\x1b[31;1mThe command "{s.cmd}" exited with {s.exit or 1}.\x1b[0m',
        "",
        "Done. Your build exited with 1.",
    ]
    return out, mapping


def choose_wrapper(
    s: Scenario,
) -> tuple[str, Callable[[Scenario], tuple[list[str], dict[int, int]]]]:
    if (
        not s.tool_header
        or s.cls in ("infrastructure",)
        or s.lines[0].startswith("##[")
        or any(l.startswith("##[") for l in s.lines)
    ):
        return "gha", gha
    if (
        s.cls == "timeout" and "No output has been received" in s.lines[3]
        if len(s.lines) > 3
        else False
    ):
        return "travis", travis
    r = R.random()
    if r < 0.55:
        return "gha", gha
    if r < 0.7:
        return "raw", raw
    if r < 0.8:
        return "tox", tox
    if r < 0.9:
        return "nox", nox
    return "travis", travis


def _write(
    s: Scenario, wrap: Callable[[Scenario], tuple[list[str], dict[int, int]]], name: str, wname: str
) -> dict[str, object]:
    lines, mapping = wrap(s)
    (OUT / name).write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    return {
        "file": name,
        "class": s.cls,
        "wrapper": wname,
        "error_lines": sorted(mapping[i] + 1 for i in s.marks),
        "failing_tests": s.tests,
    }


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.log"):
        old.unlink()
    labels = []
    for cls, n in COUNTS.items():
        for k in range(n):
            s = SCENARIOS[cls][k % len(SCENARIOS[cls])]()
            wname, wrap = choose_wrapper(s)
            if cls == "timeout" and s.cmd == "make integration":
                wname, wrap = "travis", travis
            if wname == "raw" and s.exit == 0:
                wname, wrap = "gha", gha
            lines, mapping = wrap(s)
            name = f"{cls}-{k:02d}-{wname}.log"
            crlf = wname == "raw" and R.random() < 0.2
            text = ("\r\n" if crlf else "\n").join(lines) + ("\r\n" if crlf else "\n")
            (OUT / name).write_bytes(text.encode("utf-8"))
            labels.append(
                {
                    "file": name,
                    "class": cls,
                    "wrapper": wname,
                    "error_lines": sorted(mapping[i] + 1 for i in s.marks),
                    "failing_tests": s.tests,
                }
            )
    for make in EXTRA:
        s = make()
        k = sum(x["class"] == s.cls for x in labels)
        wname, wrap = ("gha", gha) if k % 2 == 0 else ("travis", travis)
        labels.append(_write(s, wrap, f"{s.cls}-{k:02d}-{wname}.log", wname))
    # Written last, so that the logs above keep their bytes.
    s = sc_pytest_assert()
    k = sum(x["class"] == s.cls for x in labels)
    labels.append(_write(s, gh_cli, f"{s.cls}-{k:02d}-ghcli.log", "gh-cli"))
    (OUT / "labels.json").write_text(json.dumps(labels, indent=1) + "\n")
    print(f"wrote {len(labels)} logs to {OUT}")


if __name__ == "__main__":
    main()
