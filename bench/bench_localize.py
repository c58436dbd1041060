"""Localization quality and cost on injected single-line bugs in real packages.

For each package (sources from the package registry, with the tests their sdist ships):

1. run its suite once under truegreen's tracer (the ``settrace`` engine: every line that
   starts bytecode): the lines the tests execute;
2. inject single-line faults (seeded) with a small AST mutator, on executed lines only:
   arithmetic operator, comparison operator, constant (off-by-one / flipped boolean),
   and/or, augmented assignment, a removed ``None`` check (``if x is None`` -> ``if False``);
3. keep the mutants that make at least one test fail that passes on the pristine tree;
4. ``localize`` the failing tests (at most 5), in the sandbox a user gets by default (bwrap
   where it works; ``--sandbox none`` for the other), and record the worst-case rank of the
   statement holding the injected line (rank = the position of the last entry of its tie
   group), with everything localize orders by and by the formula's score alone, for each
   of the three formulas (the engine's ranking inputs are captured and re-ranked); the
   wall time against a bare ``python -m pytest`` of the same selection;
5. FauxPy (SBFL, statement granularity, Ochiai) on the same bug, the same selection
   and the same failing tests, side by side: worst-case rank of the statement holding
   the injected line (its lines mapped to statements the same way) and wall time.

    python bench/bench_localize.py [--packages inflection,toolz,python-slugify]
                                   [--mutants 12] [--seed 7] [--no-fauxpy]
                                   [--keep-docs DIR] [--sandbox none|bwrap] [--out FILE]

``--keep-docs`` keeps each bug's localization document and the ranking inputs (spectra,
evidence; a pickle) for studying ranking changes without running the tests again.

Downloads and the virtualenv are cached under bench/.cache (git-ignored); results are
written to bench/results/localize.json. Not part of the unit test suite (minutes).

What each round of localize's development measured with this and the real-bug benchmark
(bench_localize_real.py), and what was tried and taken back:
bench/results/localize-history.md. The latest figures are in docs/localize.md.
"""

from __future__ import annotations

import argparse
import ast
import json
import pickle
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CACHE = HERE / ".cache"
#: set by main(): the target projects' interpreter (a venv with pytest and the
#: packages' dependencies only) and FauxPy's (a separate venv: FauxPy's pytest plugin
#: takes about a second to import, which would slow the bare runs we compare against)
PY = Path()
FAUXPY_PY = Path()
#: where each bug's localization document is kept (for offline study), or None
DOCS: Path | None = None
#: the ``--sandbox`` localize runs with (None: the default a user gets, bwrap where it works)
SANDBOX: str | None = None

sys.path.insert(0, str(HERE.parent / "src"))

from truegreen.localize import LocalizeOptions, localize  # noqa: E402
from truegreen.localize.engine import _request, _selection  # noqa: E402
from truegreen.localize.spectrum import Statements, Trace, is_source, spectra  # noqa: E402
from truegreen.project import open_project  # noqa: E402
from truegreen.run.pytest_run import run_pytest  # noqa: E402


@dataclass(frozen=True)
class Package:
    dist: str  # the name on the package registry
    src: str  # the source package directory inside the sdist
    tests: tuple[str, ...]
    deps: tuple[str, ...] = ()


PACKAGES = {
    "inflection": Package("inflection", "inflection", ("test_inflection.py",)),
    "toolz": Package("toolz", "toolz", ("toolz/tests",)),
    "python-slugify": Package("python-slugify", "slugify", ("tests",), ("text-unidecode",)),
    "more-itertools": Package("more-itertools", "more_itertools", ("tests",)),
}


def sh(
    argv: list[str], cwd: Path | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )


def ensure_venv(base: str, name: str, need: list[str]) -> Path:
    venv = CACHE / name
    py = venv / "bin" / "python"
    if not py.exists():
        sh([base, "-m", "venv", str(venv)])
    done = sh([str(py), "-m", "pip", "install", "-q", *need])
    if done.returncode != 0:
        print(done.stderr[-2000:], file=sys.stderr)
    return py


def fetch(pkg: Package) -> Path:
    """The extracted sdist of ``pkg`` (downloaded once)."""
    sdists = CACHE / "sdists"
    sdists.mkdir(parents=True, exist_ok=True)
    norm = pkg.dist.replace("-", "_").lower()
    found = [
        p
        for p in sdists.glob("*.tar.gz")
        if p.name.lower().replace("-", "_").startswith(norm + "_")
    ]
    if not found:
        sh(
            [
                str(PY),
                "-m",
                "pip",
                "download",
                "-q",
                "--no-binary",
                ":all:",
                "--no-deps",
                pkg.dist,
                "-d",
                str(sdists),
            ]
        )
        found = [
            p
            for p in sdists.glob("*.tar.gz")
            if p.name.lower().replace("-", "_").startswith(norm + "_")
        ]
    sdist = sorted(found)[-1]
    dest = CACHE / "src" / sdist.name.removesuffix(".tar.gz")
    if not dest.exists():
        with tarfile.open(sdist) as tf:
            tf.extractall(CACHE / "src", filter="data")
    return dest


# ---------------------------------------------------------------- the mutator


@dataclass(frozen=True)
class Mutant:
    file: str
    line: int
    col: int
    end_col: int
    old: str
    new: str
    op: str

    def apply(self, text: str) -> str:
        lines = text.splitlines(keepends=True)
        ln = lines[self.line - 1]
        b = ln.encode("utf-8")
        seg = b[self.col : self.end_col].decode("utf-8")
        assert seg == self.old, (seg, self.old)
        lines[self.line - 1] = (b[: self.col] + self.new.encode() + b[self.end_col :]).decode(
            "utf-8"
        )
        return "".join(lines)


_BIN = {
    ast.Add: ("+", "-"),
    ast.Sub: ("-", "+"),
    ast.Mult: ("*", "//"),
    ast.Div: ("/", "*"),
    ast.FloorDiv: ("//", "*"),
    ast.Mod: ("%", "//"),
}
_CMP = {
    ast.Lt: ("<", "<="),
    ast.LtE: ("<=", "<"),
    ast.Gt: (">", ">="),
    ast.GtE: (">=", ">"),
    ast.Eq: ("==", "!="),
    ast.NotEq: ("!=", "=="),
    ast.Is: ("is", "is not"),
    ast.IsNot: ("is not", "is"),
    ast.In: ("in", "not in"),
    ast.NotIn: ("not in", "in"),
}
_BOOL = {ast.And: ("and", "or"), ast.Or: ("or", "and")}


def _span_op(
    rel: str, lines: list[bytes], left: ast.expr, right: ast.expr, sym: str, new: str, op: str
) -> Mutant | None:
    if left.end_lineno != right.lineno or left.end_col_offset is None:
        return None
    ln = left.end_lineno
    b = lines[ln - 1]
    gap = b[left.end_col_offset : right.col_offset].decode("utf-8", "replace")
    idx = gap.find(sym)
    if idx < 0 or gap.strip("() \t") != sym:
        return None
    start = left.end_col_offset + len(gap[:idx].encode())
    return Mutant(rel, ln, start, start + len(sym.encode()), sym, new, op)


def mutants(root: Path, rel: str, executed: set[int]) -> list[Mutant]:
    text = (root / rel).read_text(encoding="utf-8")
    lines = [ln.encode("utf-8") for ln in text.splitlines()]
    tree = ast.parse(text)
    docstrings = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    out: list[Mutant] = []
    for node in ast.walk(tree):
        ln = getattr(node, "lineno", None)
        if ln is None or ln not in executed or getattr(node, "end_lineno", ln) != ln:
            continue
        m: Mutant | None = None
        if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
            sym, new = _BIN[type(node.op)]
            m = _span_op(rel, lines, node.left, node.right, sym, new, "operator")
        elif isinstance(node, ast.AugAssign) and type(node.op) in _BIN:
            sym, new = _BIN[type(node.op)]
            m = _span_op(rel, lines, node.target, node.value, sym + "=", new + "=", "operator")
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _CMP:
            sym, new = _CMP[type(node.ops[0])]
            right = node.comparators[0]
            if (
                isinstance(node.ops[0], ast.Is | ast.IsNot)
                and isinstance(right, ast.Constant)
                and right.value is None
            ):
                pass  # handled as a removed None check below when it guards an `if`
            m = _span_op(rel, lines, node.left, right, sym, new, "condition")
        elif isinstance(node, ast.BoolOp) and len(node.values) == 2:
            sym, new = _BOOL[type(node.op)]
            m = _span_op(rel, lines, node.values[0], node.values[1], sym, new, "condition")
        elif (
            isinstance(node, ast.Constant)
            and id(node) not in docstrings
            and node.end_col_offset is not None
        ):
            old = lines[ln - 1][node.col_offset : node.end_col_offset].decode("utf-8", "replace")
            if isinstance(node.value, bool):
                m = Mutant(
                    rel,
                    ln,
                    node.col_offset,
                    node.end_col_offset,
                    old,
                    str(not node.value),
                    "constant",
                )
            elif isinstance(node.value, int) and old.isdigit():
                new = (
                    str(node.value + 1)
                    if node.value in (0, 1) or random.random() < 0.5
                    else str(node.value - 1)
                )
                m = Mutant(rel, ln, node.col_offset, node.end_col_offset, old, new, "off-by-one")
        elif (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Compare)
            and node.test.lineno == ln
        ):
            t = node.test
            if (
                len(t.ops) == 1
                and isinstance(t.ops[0], ast.Is | ast.IsNot)
                and isinstance(t.comparators[0], ast.Constant)
                and t.comparators[0].value is None
                and t.end_lineno == ln
                and t.end_col_offset is not None
            ):
                old = lines[ln - 1][t.col_offset : t.end_col_offset].decode("utf-8", "replace")
                new = "False" if isinstance(t.ops[0], ast.Is) else "True"
                out.append(Mutant(rel, ln, t.col_offset, t.end_col_offset, old, new, "none-check"))
        if m is not None:
            out.append(m)
    return out


# ---------------------------------------------------------------- ranks


def _score_key(s: str) -> tuple[int, Fraction]:
    if s == "inf":
        return (1, Fraction(0))
    s = s.removeprefix("sqrt(").removesuffix(")")
    return (0, Fraction(s))


def entry(ranking: list[dict[str, Any]], file: str, line: int) -> dict[str, Any] | None:
    """The ranking entry of the statement that holds ``line``."""
    for r in ranking:
        first, last = r.get("lines") or (r["line"], r["line"])
        if r["file"] == file and first <= line <= last:
            return r
    return None


def spectrum_rank(ranking: list[dict[str, Any]], file: str, line: int) -> int | None:
    """Worst-case rank by the formula's score alone (no evidence tie-breaks)."""
    mine = entry(ranking, file, line)
    if mine is None:
        return None
    k = _score_key(mine["score"])
    return sum(1 for r in ranking if _score_key(r["score"]) >= k)


#: the arguments of the engine's last ranking (captured, so that every formula can be
#: scored on the same spectra and evidence without running the tests again)
_LAST_RANK: dict[str, Any] = {}


def _capture_rank() -> None:
    import truegreen.localize.engine as engine

    real = engine.rank

    def capture(*args: Any, **kwargs: Any) -> Any:
        _LAST_RANK.clear()
        _LAST_RANK.update(args=args, kwargs=kwargs)
        return real(*args, **kwargs)

    engine.rank = capture  # type: ignore[assignment]


def formula_ranks(stmts: Statements, file: str, line: int) -> dict[str, dict[str, int | None]]:
    """Worst-case rank of the statement holding (file, line) under each formula: by the
    score alone, and with everything localize orders by (crash site, evidence, nearness)."""
    from truegreen.localize.ranking import FORMULAS, rank

    args, kwargs = _LAST_RANK["args"], dict(_LAST_RANK["kwargs"])
    failing, passing = args[0], args[1]
    key = (file, stmts.line(file, line))
    out: dict[str, dict[str, int | None]] = {}
    for f in FORMULAS:
        kwargs["formula"] = f
        full = rank(failing, passing, **kwargs)
        bare = rank(failing, passing, f)
        out[f] = {
            how: next((r.rank for r in ranked if (r.file, r.line) == key), None)
            for how, ranked in (("evidence", full), ("score", bare))
        }
    return out


def fauxpy_rank(csv: Path, root: Path, file: str, line: int) -> int | None:
    """FauxPy's worst-case rank of the statement that holds ``line`` (its statement
    granularity reports a statement by one of its lines: both sides are mapped to the
    statement, as truegreen's ranking is)."""
    rows = fauxpy_scores(csv, root)
    mine = rows.get((file, Statements(root).line(file, line)))
    if mine is None:
        return None
    return sum(1 for v in rows.values() if v >= mine)


def fauxpy_scores(csv: Path, root: Path) -> dict[tuple[str, int], float]:
    """FauxPy's score of each source statement (file, first line) in its report."""
    stmts = Statements(root)
    rows: dict[tuple[str, int], float] = {}
    for raw in csv.read_text().splitlines()[1:]:
        ent, _, score = raw.rpartition(",")
        path, _, ln = ent.rpartition("::")
        try:
            rel = str(Path(path).resolve().relative_to(root.resolve()))
        except ValueError:
            continue
        if is_source(rel):  # the same rule as ours: tests are not ranked
            key = (rel, stmts.line(rel, int(ln)))
            rows[key] = max(rows.get(key, float(score)), float(score))
    return rows


# ---------------------------------------------------------------- the run


@dataclass
class Result:
    package: str
    mutant: Mutant
    failing: list[str]
    rank: int | None = None
    spectrum_rank: int | None = None
    ties: int | None = None
    localize_s: float = 0.0
    bare_s: float = 0.0
    selection: int = 0
    fauxpy_rank: int | None = None
    by_formula: dict[str, dict[str, int | None]] = field(default_factory=dict)
    fauxpy_s: float | None = None
    fauxpy_error: str | None = None
    notes: list[str] = field(default_factory=list)
    sandbox: str = ""  # the sandbox localize ran in


def outcomes(root: Path, tests: tuple[str, ...]) -> dict[str, str]:
    project = open_project(root, str(PY), "none")
    run = run_pytest(_request(project, list(tests), 120))
    return {t.id: t.outcome for t in run.tests}


def executed_lines(root: Path, tests: tuple[str, ...]) -> dict[str, set[int]]:
    project = open_project(root, str(PY), "none")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "t.json"
        # line events (not the probe engine's statement starts): mutants may sit on any
        # line of a multi-line statement, as in the measurements before the probe engine
        run = run_pytest(_request(project, list(tests), 300, tracer=out, engine="settrace"))
        trace = Trace.from_json(json.loads(out.read_text()))
    lines: dict[str, set[int]] = {}
    for s in spectra(trace, [t.id for t in run.tests]).values():
        for f, n in s:
            lines.setdefault(f, set()).add(n)
    return lines


def bench_package(
    name: str, pkg: Package, n_keep: int, rng: random.Random, use_fauxpy: bool
) -> list[Result]:
    pristine = fetch(pkg)
    work = Path(tempfile.mkdtemp(prefix=f"tg-bench-{name}-")) / name
    shutil.copytree(pristine, work)
    base = outcomes(work, pkg.tests)
    executed = executed_lines(work, pkg.tests)
    cands: list[Mutant] = []
    for rel in sorted(executed):
        if rel.startswith(pkg.src + "/") and is_source(rel):
            cands += mutants(work, rel, executed[rel])
    rng.shuffle(cands)
    print(
        f"{name}: {len(base)} tests, {sum(map(len, executed.values()))} executed lines, {len(cands)} candidate mutants",
        file=sys.stderr,
    )
    results: list[Result] = []
    tried = 0
    for m in cands:
        if len(results) >= n_keep or tried >= n_keep * 4:
            break
        tried += 1
        path = work / m.file
        original = path.read_text(encoding="utf-8")
        mutated = m.apply(original)
        try:
            ast.parse(mutated)
        except SyntaxError:
            continue
        path.write_text(mutated, encoding="utf-8")
        try:
            now = outcomes(work, pkg.tests)
            failing = sorted(
                t for t, o in now.items() if o in ("failed", "error") and base.get(t) == "passed"
            )
            if not failing:
                continue
            res = Result(name, m, failing[:5])
            project = open_project(work, str(PY), SANDBOX)
            res.sandbox = project.sandbox
            t0 = time.perf_counter()
            doc = localize(project, res.failing, LocalizeOptions(limit=10**6))
            res.localize_s = time.perf_counter() - t0
            mine = entry(doc["ranking"], m.file, m.line)
            if mine is not None:
                res.rank, res.ties = mine["rank"], mine["ties"]
            res.spectrum_rank = spectrum_rank(doc["ranking"], m.file, m.line)
            res.by_formula = formula_ranks(Statements(work), m.file, m.line)
            if DOCS is not None:
                DOCS.mkdir(parents=True, exist_ok=True)
                stem = f"{name}-{m.file.replace('/', '_')}-{m.line}-{m.col}"
                (DOCS / f"{stem}.json").write_text(
                    json.dumps({"mutant": m.__dict__, "doc": doc}, default=str)
                )
                (DOCS / f"{stem}.pickle").write_bytes(pickle.dumps(dict(_LAST_RANK)))
            if doc["order_dependence"].get("order_dependent"):
                res.notes.append("order-dependent")
            if not doc["measurement"].get("consistent", True):
                res.notes.append("measurement changed outcomes")
            sel = _selection(project, res.failing, None)
            res.selection = doc["tests"]["selection"]
            t0 = time.perf_counter()
            sh(
                [str(PY), "-m", "pytest", "-q", "-p", "no:cacheprovider", *sel],
                cwd=work,
                timeout=300,
            )
            res.bare_s = time.perf_counter() - t0
            if use_fauxpy:
                run_fauxpy(work, pkg, sel, res)
            results.append(res)
            print(
                f"  {m.file}:{m.line} {m.op} {m.old!r}->{m.new!r}: rank {res.rank} (ties {res.ties}), "
                f"spectrum-only {res.spectrum_rank}, fauxpy {res.fauxpy_rank}; "
                f"{res.localize_s:.2f}s vs bare {res.bare_s:.2f}s, fauxpy {res.fauxpy_s}",
                file=sys.stderr,
            )
        except subprocess.TimeoutExpired:
            continue
        except Exception as exc:  # a bench run must go on: note it
            print(f"  {m.file}:{m.line} skipped: {type(exc).__name__}: {exc}", file=sys.stderr)
        finally:
            path.write_text(original, encoding="utf-8")
    shutil.rmtree(work.parent, ignore_errors=True)
    return results


def run_fauxpy(work: Path, pkg: Package, sel: list[str], res: Result) -> None:
    for old in work.parent.glob("FauxPyReport_*"):
        shutil.rmtree(old, ignore_errors=True)
    flist = work.parent / "failing.txt"
    flist.write_text("\n".join(res.failing) + "\n")
    t0 = time.perf_counter()
    done = sh(
        [
            str(FAUXPY_PY),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--src",
            pkg.src,
            "--family",
            "sbfl",
            "--granularity",
            "statement",
            "--failing-file",
            str(flist),
            # FauxPy's coverage warnings (module-not-imported, no-data-collected) become
            # INTERNALERRORs under projects' `filterwarnings = error` (toolz, slugify);
            # on 3.12 so does its own use of the deprecated ast.Num
            "-W",
            "ignore::coverage.exceptions.CoverageWarning",
            "-W",
            "ignore:ast.Num is deprecated:DeprecationWarning",
            *sel,
        ],
        cwd=work,
        timeout=900,
    )
    res.fauxpy_s = round(time.perf_counter() - t0, 3)
    reports = sorted(work.parent.glob("FauxPyReport_*/Scores_Ochiai.csv"))
    if not reports:
        res.fauxpy_error = (done.stdout + done.stderr)[-400:]
        return
    res.fauxpy_rank = fauxpy_rank(reports[-1], work, res.mutant.file, res.mutant.line)


def top(ranks: list[int | None], n: int) -> str:
    hit = sum(1 for r in ranks if r is not None and r <= n)
    return f"{hit}/{len(ranks)} ({100 * hit / max(1, len(ranks)):.0f}%)"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--packages", default="inflection,toolz,python-slugify")
    ap.add_argument("--mutants", type=int, default=12, help="kept mutants per package")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-fauxpy", action="store_true")
    ap.add_argument("--python", default=sys.executable, help="base interpreter for the venvs")
    ap.add_argument("--keep-docs", type=Path, help="write each bug's localization document here")
    ap.add_argument(
        "--sandbox",
        choices=("none", "bwrap"),
        help="localize's sandbox (default: the default a user gets, bwrap where it works)",
    )
    ap.add_argument("--out", type=Path, default=HERE / "results" / "localize.json")
    opts = ap.parse_args()
    names = [n.strip() for n in opts.packages.split(",") if n.strip()]
    pkgs = [PACKAGES[n] for n in names]
    global PY, FAUXPY_PY, DOCS, SANDBOX
    DOCS = opts.keep_docs
    SANDBOX = opts.sandbox
    _capture_rank()
    ver = sh([opts.python, "-c", "import sys; print('%d%d' % sys.version_info[:2])"]).stdout.strip()
    deps = [d for p in pkgs for d in p.deps]
    PY = ensure_venv(opts.python, f"venv{ver}", ["pytest", *deps])
    if not opts.no_fauxpy:
        FAUXPY_PY = ensure_venv(opts.python, f"venv{ver}-fauxpy", ["pytest", "fauxpy", *deps])
    print(f"python {ver}: {PY}", file=sys.stderr)
    rng = random.Random(opts.seed)
    random.seed(opts.seed)
    results: list[Result] = []
    for n, p in zip(names, pkgs, strict=True):
        results += bench_package(n, p, opts.mutants, rng, not opts.no_fauxpy)
    if not results:
        print("no mutant made a test fail")
        return 1
    ranks = [r.rank for r in results]
    sranks = [r.spectrum_rank for r in results]
    franks = [r.fauxpy_rank for r in results]
    ratios = [r.localize_s / r.bare_s for r in results if r.bare_s > 0]
    print(
        f"bugs (mutants that fail a test): {len(results)} in {', '.join(names)}; seed {opts.seed}; python {ver}"
    )
    print(f"{'':34}{'Top-1':>14}{'Top-3':>14}{'Top-5':>14}{'Top-10':>14}")
    for label, rs in (
        ("truegreen (Ochiai + evidence)", ranks),
        ("truegreen (Ochiai only)", sranks),
        *((("FauxPy 0.7 (Ochiai)", franks),) if not opts.no_fauxpy else ()),
    ):
        print(f"{label:34}" + "".join(f"{top(rs, n):>14}" for n in (1, 3, 5, 10)))
    for f in ("ochiai", "dstar", "tarantula"):
        for how in ("evidence", "score"):
            rs = [r.by_formula.get(f, {}).get(how) for r in results]
            label = f"  {f} ({how})"
            print(f"{label:34}" + "".join(f"{top(rs, n):>14}" for n in (1, 3, 5, 10)))
    print(
        "(worst-case ties: a line's rank is the position of the last line of its tie group; goals Top-1 >= 30%, Top-5 >= 60%)"
    )
    print(
        f"localize wall time / bare run of the same selection: median {statistics.median(ratios):.2f}x "
        f"(min {min(ratios):.2f}x, max {max(ratios):.2f}x; goal <= 2x)"
    )
    print(
        f"median localize {statistics.median(r.localize_s for r in results):.2f}s, "
        f"bare {statistics.median(r.bare_s for r in results):.2f}s; "
        f"sandbox {', '.join(sorted({r.sandbox for r in results}))}"
    )
    if not opts.no_fauxpy:
        fx = [r.fauxpy_s / r.bare_s for r in results if r.fauxpy_s and r.bare_s > 0]
        if fx:
            print(f"FauxPy wall time / bare run: median {statistics.median(fx):.2f}x")
        errs = [r for r in results if r.fauxpy_error]
        if errs:
            print(
                f"FauxPy produced no report on {len(errs)} bug(s); last output: {errs[-1].fauxpy_error!r}"
            )
    out = opts.out
    out.parent.mkdir(exist_ok=True)
    out.write_text(
        json.dumps(
            [
                {
                    **{k: v for k, v in r.__dict__.items() if k != "mutant"},
                    "mutant": r.mutant.__dict__,
                }
                for r in results
            ],
            indent=1,
            default=str,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
