"""pytest's and truegreen's configuration, coverage thresholds, conftest.py and plugins."""

from __future__ import annotations

import ast
import configparser
import re
import tomllib
from pathlib import PurePosixPath
from typing import Any

from truegreen.model import reasons as R
from truegreen.model.reasons import Reason
from truegreen.run.pytest_ini import effective
from truegreen.run.pytest_ini import opt_name as _opt_name
from truegreen.run.pytest_ini import words as _words
from truegreen.verify.tamper.names import aliases, dotted, dump, parse
from truegreen.verify.tamper.snapshot import ChangeSnapshot

#: addopts that change what is collected or how outcomes are judged
_NARROW_OPTS = (
    "-k", "-m", "--deselect", "--ignore", "--ignore-glob", "-p", "--lf", "--last-failed",
    "--co", "--collect-only", "-x", "--exitfirst", "--maxfail", "--sw", "--stepwise",
    "--continue-on-collection-errors", "--noconftest", "-c", "--confcutdir", "--rootdir",
    "-o", "--override-ini", "--pyargs", "--import-mode", "--runxfail", "-W",
    "--pythonwarnings", "--disable-warnings", "--cache-clear", "--last-failed-no-failures",
    "--cov-fail-under", "--deselect-file",
)  # fmt: skip
#: addopts whose removal loosens judgement
_STRICT_OPTS = ("--strict-markers", "--strict", "--strict-config", "-W", "--runxfail")


def line_of(text: str | None, *needles: str) -> int | None:
    if text is None:
        return None
    for needle in needles:
        for i, ln in enumerate(text.splitlines(), 1):
            if needle in ln:
                return i
    return None


def _split(words: list[str]) -> tuple[list[str], set[str]]:
    """Options (an option and its separate value as one item) and test paths."""
    opts: list[str] = []
    paths: set[str] = set()
    for i, tok in enumerate(words):
        prev = words[i - 1] if i else ""
        if tok.startswith("-"):
            opts.append(tok)
        elif prev.startswith("-") and "=" not in prev and _opt_name(prev) not in _FLAGS:
            opts[-1] = f"{opts[-1]} {tok}"
        else:
            paths.add(tok.rstrip("/"))
    return opts, paths


#: options that take no value (what follows them is a path)
_FLAGS = {
    "-v", "-q", "-x", "-s", "-l", "-ra", "-rA", "--lf", "--ff", "--nf", "--sw", "--co",
    "--collect-only", "--exitfirst", "--last-failed", "--failed-first", "--strict-markers",
    "--strict", "--strict-config", "--runxfail", "--noconftest", "--disable-warnings",
    "--verbose", "--quiet", "--continue-on-collection-errors", "--pyargs", "--cache-clear",
    "--showlocals", "--no-header", "--no-summary", "-vv", "-qq",
}  # fmt: skip


def addopts_change(old: list[str], new: list[str]) -> list[str]:
    """What the new argument list adds that narrows or loosens, or drops that was strict."""
    why: list[str] = []
    o_opts, o_paths = _split(old)
    n_opts, n_paths = _split(new)
    rest = list(o_opts)
    for opt in n_opts:
        if opt in rest:
            rest.remove(opt)
        elif _opt_name(opt.split(" ", 1)[0]) in _NARROW_OPTS:
            why.append(f"adds `{opt}`")
    for opt in rest:
        if _opt_name(opt.split(" ", 1)[0]) in _STRICT_OPTS:
            why.append(f"drops `{opt}`")
    if n_paths and not o_paths <= n_paths:
        gone = sorted(o_paths - n_paths) or ["the whole suite"]
        why.append(f"runs {', '.join(sorted(n_paths - o_paths))} instead of {', '.join(gone)}")
    elif n_paths - o_paths and not o_paths:
        why.append(f"runs only {', '.join(sorted(n_paths))}")
    return why


def _globs(v: Any) -> set[str]:
    return set(_words(v))


_DEFAULTS = {
    "python_files": "test_*.py *_test.py",
    "python_classes": "Test",
    "python_functions": "test",
}


def settings_change(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for w in addopts_change(_words(old.get("addopts", "")), _words(new.get("addopts", ""))):
        out.append(("addopts", f"addopts {w}"))
    for key in ("testpaths", "python_files", "python_classes", "python_functions"):
        if key in old or key in new:
            default = _DEFAULTS.get(key, "")
            o, n = _globs(old.get(key, default)), _globs(new.get(key, default))
            if not o <= n or (key == "testpaths" and key not in new):
                out.append((key, f"{key}: {sorted(o)} -> {sorted(n) if key in new else 'default'}"))
            elif key == "testpaths" and key not in old:
                out.append((key, f"testpaths set to {sorted(n)}"))
    for key in ("norecursedirs", "plugins", "required_plugins", "usefixtures", "pythonpath", "confcutdir",
                "empty_parameter_set_mark", "consider_namespace_packages", "python_classes"):  # fmt: skip
        if key in ("norecursedirs",) and set(_words(new.get(key, ""))) <= set(
            _words(old.get(key, ""))
        ):
            continue
        if _words(old.get(key, "")) != _words(new.get(key, "")) and key not in [k for k, _ in out]:
            out.append((key, f"{key}: {old.get(key)!r} -> {new.get(key)!r}"))
    if str(old.get("xfail_strict", "false")).lower() in ("true", "1") and str(
        new.get("xfail_strict", "false")
    ).lower() not in ("true", "1"):
        out.append(("xfail_strict", "xfail_strict turned off"))
    for key in ("strict", "strict_markers", "strict_config"):
        if str(old.get(key, "")).lower() in ("true", "1") and str(new.get(key, "")).lower() not in (
            "true",
            "1",
        ):
            out.append((key, f"{key} turned off"))
    fo, fn = _lines(old.get("filterwarnings", [])), _lines(new.get("filterwarnings", []))
    if any(f.split(":")[0] == "error" for f in fo) and (
        not any(f.split(":")[0] == "error" for f in fn)
        or any(
            f.split(":")[0] in ("ignore", "default", "always", "once", "module")
            for f in set(fn) - set(fo)
        )
    ):
        out.append(("filterwarnings", "filterwarnings: warnings that were errors no longer fail"))
    return out


def _lines(v: Any) -> list[str]:
    if isinstance(v, list):
        return [str(x).strip() for x in v]
    return [x.strip() for x in str(v).splitlines() if x.strip()]


def truegreen_config(files: Any) -> dict[str, Any]:
    data = files.get("truegreen.toml")
    if data is not None:
        try:
            return tomllib.loads(data.decode("utf-8", "replace"))
        except tomllib.TOMLDecodeError:
            return {"<unparseable>": True}
    data = files.get("pyproject.toml")
    if data is None:
        return {}
    try:
        tg = tomllib.loads(data.decode("utf-8", "replace")).get("tool", {}).get("truegreen", {})
    except tomllib.TOMLDecodeError:
        return {}
    return tg if isinstance(tg, dict) else {}


def entry_points(files: Any) -> set[str]:
    """pytest11 entry points declared in pyproject.toml or setup.cfg."""
    out: set[str] = set()
    data = files.get("pyproject.toml")
    if data is not None:
        try:
            eps = (
                tomllib.loads(data.decode("utf-8", "replace"))
                .get("project", {})
                .get("entry-points", {})
            )
            out |= {f"{k}={v}" for k, v in (eps.get("pytest11") or {}).items()}
        except (tomllib.TOMLDecodeError, AttributeError):
            pass
    data = files.get("setup.cfg")
    if data is not None:
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            parser.read_string(data.decode("utf-8", "replace"))
            if parser.has_option("options.entry_points", "pytest11"):
                out |= {
                    " ".join(x.split())
                    for x in parser.get("options.entry_points", "pytest11").splitlines()
                    if x.strip()
                }
        except configparser.Error:
            pass
    return out


def pytest_config(snap: ChangeSnapshot) -> list[Reason]:
    out: list[Reason] = []
    bf, b = effective(snap.base_files)
    hf, h = effective(snap.head_files)
    where = hf or bf
    text = snap.head_text(where) if where else None
    if bf != hf and hf is not None:
        out.append(
            Reason(
                R.TAMPER_PYTEST_CONFIG_CHANGED,
                hf,
                1,
                f"pytest now reads its settings from {hf} (was {bf or 'none'})",
            )
        )
    for key, detail in settings_change(b, h):
        out.append(Reason(R.TAMPER_PYTEST_CONFIG_CHANGED, where, line_of(text, key), detail))
    tb, th = truegreen_config(snap.base_files), truegreen_config(snap.head_files)
    for key in ("tests", "ignore", "pytest-args", "always-run", "sandbox", "suite-timeout"):
        if tb.get(key) != th.get(key) and not (
            key == "suite-timeout" and (th.get(key) or 0) >= (tb.get(key) or 0)
        ):
            f = "truegreen.toml" if "truegreen.toml" in snap.head_files else "pyproject.toml"
            out.append(
                Reason(
                    R.TAMPER_PYTEST_CONFIG_CHANGED,
                    f,
                    line_of(snap.head_text(f), key),
                    f"truegreen's `{key}`: {tb.get(key)!r} -> {th.get(key)!r}",
                )
            )
    new_eps = entry_points(snap.head_files) - entry_points(snap.base_files)
    for ep in sorted(new_eps):
        out.append(
            Reason(
                R.TAMPER_PYTEST_CONFIG_CHANGED,
                "pyproject.toml",
                line_of(snap.head_text("pyproject.toml"), "pytest11"),
                f"a pytest plugin entry point is added: {ep}",
            )
        )
    return out


# -- coverage thresholds -----------------------------------------------------------------

_FAIL_UNDER = re.compile(r"--cov-fail-under[= ]+(\d+(?:\.\d+)?)|--fail-under[= ]+(\d+(?:\.\d+)?)")


def fail_under(path: str, text: str | None) -> list[float]:
    if text is None:
        return []
    values = [float(a or b) for a, b in _FAIL_UNDER.findall(text)]
    name = PurePosixPath(path).name
    if name.endswith(".toml"):
        try:
            v = (
                tomllib.loads(text)
                .get("tool", {})
                .get("coverage", {})
                .get("report", {})
                .get("fail_under")
            )
            if isinstance(v, int | float):
                values.append(float(v))
        except tomllib.TOMLDecodeError:
            pass
    elif name in (".coveragerc", "setup.cfg", "tox.ini"):
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            parser.read_string(text)
            for section in ("report", "coverage:report"):
                if parser.has_option(section, "fail_under"):
                    values.append(float(parser.get(section, "fail_under")))
        except (configparser.Error, ValueError):
            pass
    return values


def coverage(snap: ChangeSnapshot, changed: list[str]) -> list[Reason]:
    out: list[Reason] = []
    for path in changed:
        name = PurePosixPath(path).name
        if not (
            name
            in (
                ".coveragerc",
                "setup.cfg",
                "tox.ini",
                "pyproject.toml",
                "Makefile",
                "noxfile.py",
                "pytest.ini",
            )
            or path.startswith(".github/workflows/")
        ):
            continue
        old, new = fail_under(path, snap.base_text(path)), fail_under(path, snap.head_text(path))
        if old and (not new or min(new) < min(old)):
            text = snap.head_text(path)
            out.append(Reason(R.TAMPER_COVERAGE_THRESHOLD_LOWERED, path, line_of(text, "fail_under", "fail-under"),
                                 f"coverage threshold {min(old):g} -> {min(new):g}" if new else f"coverage threshold {min(old):g} removed"))  # fmt: skip
    return out


# -- conftest.py and plugins -------------------------------------------------------------


def _parts(tree: ast.Module) -> dict[str, tuple[ast.AST, str, str]]:
    """(node, dump, kind) of what in a conftest/plugin can change outcomes or collection."""
    names = aliases(tree)
    out: dict[str, tuple[ast.AST, str, str]] = {}
    effects: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            decos = [dotted(d, names) or "" for d in node.decorator_list]
            autouse = any(
                isinstance(d, ast.Call)
                and any(
                    k.arg == "autouse"
                    and not (isinstance(k.value, ast.Constant) and not k.value.value)
                    for k in d.keywords
                )
                for d in node.decorator_list
            )
            if node.name.startswith("pytest_"):
                out[f"hook {node.name}"] = (node, dump(node), "hook")
            elif autouse:
                out[f"autouse fixture {node.name}"] = (node, dump(node), "autouse fixture")
            elif any(d.endswith("fixture") for d in decos):
                out[f"fixture {node.name}"] = (node, dump(node), "fixture")
        elif isinstance(node, ast.ClassDef):
            if any(
                isinstance(m, ast.FunctionDef) and m.name.startswith("pytest_") for m in node.body
            ):
                out[f"plugin class {node.name}"] = (node, dump(node), "hook")
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name) and t.id in (
                    "pytest_plugins",
                    "collect_ignore",
                    "collect_ignore_glob",
                    "pytestmark",
                ):
                    out[t.id] = (node, dump(node), "collection")
                elif not isinstance(t, ast.Name):
                    effects.append(node)
        elif (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)) or isinstance(
            node, ast.If | ast.Try | ast.With | ast.For
        ):
            effects.append(node)
    if effects:
        out["module-level code"] = (
            effects[0],
            "|".join(dump(e) for e in effects),
            "module-level code",
        )
    return out


def plugin_changes(path: str, old_text: str | None, new_text: str | None) -> list[Reason]:
    """A conftest.py (or a plugin pytest loads) added, removed or changed where it matters:
    hooks, autouse fixtures, fixtures existing tests use, pytest_plugins, collect_ignore,
    module-level code. A fixture that is new is only for new tests."""
    new = parse(new_text)
    if new_text is not None and new is None:
        return [Reason(R.TAMPER_CONFTEST_CHANGED, path, None, "no longer parses")]
    if new is None:
        return [Reason(R.TAMPER_CONFTEST_CHANGED, path, None, "removed")] if parse(old_text) else []
    old = parse(old_text)
    a = _parts(old) if old is not None else {}
    b = _parts(new)
    out: list[Reason] = []
    for key in sorted(set(a) | set(b)):
        if key in a and key in b and a[key][1] == b[key][1]:
            continue
        if key not in a and b[key][2] == "fixture":
            continue  # a new, not autouse fixture: only new tests can ask for it
        what = "added" if key not in a else "removed" if key not in b else "changed"
        node = b[key][0] if key in b else a[key][0]
        out.append(
            Reason(R.TAMPER_CONFTEST_CHANGED, path, getattr(node, "lineno", None), f"{key} {what}")
        )
    return out


def plugin_modules(snap: ChangeSnapshot, files: Any, text_of: Any) -> set[str]:
    """Files of the plugins pytest would load on one side: pytest_plugins, -p, entry points."""
    mods: set[str] = set()
    for path in files:
        if PurePosixPath(path).name == "conftest.py":
            tree = parse(text_of(path))
            for node in tree.body if tree else []:
                if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "pytest_plugins" for t in node.targets
                ):
                    mods |= {
                        c.value
                        for c in ast.walk(node.value)
                        if isinstance(c, ast.Constant) and isinstance(c.value, str)
                    }
    _, settings = effective(files)
    words = _words(settings.get("addopts", ""))
    mods |= {
        words[i + 1]
        for i, w in enumerate(words[:-1])
        if w == "-p" and not words[i + 1].startswith("no:")
    }
    mods |= {
        w[2:] for w in words if w.startswith("-p") and len(w) > 2 and not w[2:].startswith("no:")
    }
    mods |= {ep.split("=", 1)[1].strip().split(":")[0] for ep in entry_points(files) if "=" in ep}
    mods |= set(_words(settings.get("plugins", "")))
    out: set[str] = set()
    for m in mods:
        base = m.replace(".", "/")
        for cand in (
            f"{base}.py",
            f"{base}/__init__.py",
            f"src/{base}.py",
            f"src/{base}/__init__.py",
        ):
            if cand in files:
                out.add(cand)
    return out
