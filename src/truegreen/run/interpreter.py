"""The target project's interpreter: which one, and what it has.

``--python`` defaults to the project's own virtualenv (``.venv/bin/python`` at the
repository root when present), else the interpreter running truegreen.
"""

from __future__ import annotations

import ast
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from truegreen.errors import ExecutionCancelled, ExecutionError, UsageError
from truegreen.run.executor import Command, Executor, default_executor

_PROBE_SCRIPT = r"""
import os, sys, hashlib
info = {"python": ".".join(map(str, sys.version_info[:3])), "executable": sys.executable,
        "prefix": sys.prefix, "base_prefix": getattr(sys, "base_prefix", sys.prefix)}
# The installed distributions, found as importlib.metadata finds them (*.dist-info and
# *.egg-info on sys.path) but without importing it: it imports the email package to read
# each METADATA, which costs more than the rest of the probe. Name and Version are read
# from the headers (the first lines; a blank line ends them).
def headers(path):
    got = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.rstrip("\r\n")
                if not line:
                    break
                key, sep, value = line.partition(":")
                key = key.lower()
                if sep and key in ("name", "version") and key not in got:
                    got[key] = value.strip()
                    if len(got) == 2:
                        break
    except OSError:
        pass
    return got
pairs = []
try:
    for entry in sys.path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for name in names:
            low = name.lower()
            if not low.endswith((".dist-info", ".egg-info")):
                continue
            path = os.path.join(entry or ".", name)
            if os.path.isdir(path):
                path = os.path.join(path, "METADATA" if low.endswith(".dist-info") else "PKG-INFO")
            meta = headers(path)
            pairs.append(((meta.get("name") or "?").lower(), meta.get("version")))
except Exception:
    pairs = []
dists = sorted({"%s==%s" % kv for kv in pairs})
# pytest's version from its metadata when it has one: importing pytest costs more than
# the rest of the probe together (the runs import it anyway, and say so if it is broken)
info["pytest"] = None
versions = [v for name, v in pairs if name == "pytest" and v]
if versions:
    from importlib.util import find_spec
    if find_spec("pytest") is not None:
        info["pytest"] = versions[0]
if info["pytest"] is None:
    try:
        import pytest
        info["pytest"] = pytest.__version__
    except Exception as exc:
        info["pytest_error"] = "%s: %s" % (type(exc).__name__, exc)
info["distributions"] = len(dists)
info["distributions_sha256"] = hashlib.sha256("\n".join(dists).encode()).hexdigest()
# Where the interpreter imports from: sys.path (with the .pth entries that editable installs
# add) and the targets of setuptools' editable finders.
paths = [p for p in sys.path if p]
for name, mod in list(sys.modules.items()):
    if name.startswith("__editable__") and isinstance(getattr(mod, "MAPPING", None), dict):
        paths += [os.path.dirname(str(t)) for t in mod.MAPPING.values()]
info["import_paths"] = paths
# a Python literal, not JSON: importing json (and re) would be most of what is left
print(repr(info))
"""


@dataclass(frozen=True)
class Interpreter:
    """A Python interpreter that can run pytest."""

    path: Path
    python: str
    pytest: str
    prefix: str
    base_prefix: str
    distributions_sha256: str
    #: the directories it imports from: ``sys.path`` (``.pth`` entries included, which is
    #: how most editable installs work) and setuptools' editable-finder targets
    import_paths: tuple[str, ...] = ()

    @property
    def pytest_version(self) -> tuple[int, ...]:
        parts: list[int] = []
        for piece in self.pytest.split(".")[:3]:
            digits = "".join(ch for ch in piece if ch.isdigit())
            parts.append(int(digits) if digits else 0)
        return tuple(parts)

    def paths_under(self, origin: Path) -> tuple[Path, ...]:
        """This interpreter's import paths inside the checkout ``origin``, relative to it.

        A project installed in editable mode (``pip install -e .``) imports from its checkout
        (``origin/src``, say), whatever the current directory. Paths inside the interpreter's
        own environment (a ``.venv`` in the checkout) are not the project's code.
        """
        origin = origin.resolve()
        env_dirs = {Path(self.prefix).resolve(), Path(self.base_prefix).resolve()}
        out: list[Path] = []
        for entry in self.import_paths:
            path = Path(entry)
            if not path.is_absolute():
                continue
            path = path.resolve()
            if any(path == d or d in path.parents for d in env_dirs):
                continue
            try:
                rel = path.relative_to(origin)
            except ValueError:
                continue
            if rel not in out:
                out.append(rel)
        return tuple(out)

    def redirected_paths(self, origin: Path, tree: Path) -> tuple[Path, ...]:
        """The directories under ``tree``, a disposable worktree of ``origin``, that stand for
        this interpreter's import paths under ``origin``: a run in the worktree must import
        the worktree's code, so these go first on its ``PYTHONPATH``. Directories the
        worktree does not have (untracked build output) are left out."""
        if origin.resolve() == tree.resolve():
            return ()
        return tuple(tree / rel for rel in self.paths_under(origin) if (tree / rel).is_dir())

    def fingerprint(self) -> dict[str, str]:
        """What an exam records about the environment it was sealed in."""
        return {
            "python": self.python,
            "pytest": self.pytest,
            "distributions_sha256": self.distributions_sha256,
        }


def _strings(value: object) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def default_python(repo: Path) -> Path:
    for candidate in (repo / ".venv" / "bin" / "python", repo / ".venv" / "Scripts" / "python.exe"):
        if candidate.exists():
            return candidate
    return Path(sys.executable)


_cache: dict[str, Interpreter] = {}


def resolve(
    python: str | os.PathLike[str] | None, repo: Path, executor: Executor | None = None
) -> Interpreter:
    """Check that ``python`` (or the default for ``repo``) is a Python with pytest."""
    path = Path(python) if python is not None else default_python(repo)
    if python is not None and os.sep not in str(python) and not path.exists():
        # A bare name such as "python3.12": look it up on PATH.
        import shutil

        found = shutil.which(str(python))
        if found:
            path = Path(found)
    if not path.exists():
        raise UsageError(
            f"{str(path)!r} does not exist",
            hint="give the path of the project's interpreter",
            field="python",
        )
    if path.is_dir():
        raise UsageError(
            f"{str(path)!r} is a directory",
            hint="give the interpreter itself, e.g. .venv/bin/python",
            field="python",
        )
    if not os.access(path, os.X_OK):
        raise UsageError(
            f"{str(path)!r} is not executable",
            hint="give the path of a Python interpreter",
            field="python",
        )
    # Keep the venv's own path (do not resolve the interpreter's symlink): a venv's python
    # is a symlink to its base interpreter, and resolving it would lose the venv's
    # site-packages. Its directory is resolved: a path through `..` (`../venv/bin/python`)
    # named a directory the sandbox did not show the tests (it shows the interpreter's
    # real directories), and the run could not start (exit 127).
    path = path.parent.resolve() / path.name
    key = str(path)
    if key in _cache:
        return _cache[key]
    ex = executor or default_executor()
    env = {
        k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "SYSTEMROOT")
    }
    try:
        done = ex.run(
            Command((str(path), "-I", "-c", _PROBE_SCRIPT), cwd=repo, env=env, timeout=120)
        )
    except ExecutionCancelled:
        raise
    except ExecutionError as exc:
        raise UsageError(
            f"{str(path)!r} cannot be run: {exc.message}",
            hint="give the path of a Python interpreter",
            field="python",
        ) from exc
    info: dict[str, object] | None = None
    if done.returncode == 0:
        for line in reversed(done.stdout.strip().splitlines()):
            try:  # a literal: never evaluated as code
                parsed = ast.literal_eval(line)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                continue
            if isinstance(parsed, dict):
                info = parsed
                break
    if info is None:
        raise UsageError(
            f"{str(path)!r} is not a working Python interpreter",
            hint="give the path of the project's interpreter, e.g. .venv/bin/python",
            field="python",
        )
    if not info.get("pytest"):
        raise UsageError(
            f"{path} has no pytest ({info.get('pytest_error', 'not importable')})",
            hint=f"install it there ({path} -m pip install pytest), or give another interpreter",
            field="python",
        )
    interp = Interpreter(
        path=path,
        python=str(info["python"]),
        pytest=str(info["pytest"]),
        prefix=str(info["prefix"]),
        base_prefix=str(info["base_prefix"]),
        distributions_sha256=str(info["distributions_sha256"]),
        import_paths=_strings(info.get("import_paths")),
    )
    _cache[key] = interp
    return interp
