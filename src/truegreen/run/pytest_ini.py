"""pytest's own settings of a project, as pytest reads them: which file, which values.

Used by the runner (which of the project's ``addopts`` a graded run keeps) and by the
tamper layer (what a change did to them).
"""

from __future__ import annotations

import configparser
import shlex
import tomllib
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

#: the files pytest reads its settings from, in the order it looks for them
INI_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")

#: ``addopts`` a graded run keeps: they make the project's tests importable or runnable
#: (``--import-mode=importlib``, ``-p pytester``, ``--ds=settings``), or judge more
#: strictly (``--strict-markers``, ``-W error``); nothing that narrows what is collected,
#: reorders, reruns or loosens. Option -> whether it takes a value.
KEPT_ADDOPTS: Mapping[str, bool] = {
    "--import-mode": True,
    "-p": True,
    "-W": True,
    "--pythonwarnings": True,
    "--strict-markers": False,
    "--strict-config": False,
    "--strict": False,
    "--doctest-modules": False,
    "--doctest-glob": True,
    "--doctest-continue-on-failure": False,
    "--ds": True,
    "--dc": True,
    "--nomigrations": False,
    "--no-migrations": False,
    "--asyncio-mode": True,
    "--timeout": True,
    "--timeout-method": True,
    "--benchmark-disable": False,
    "--benchmark-skip": False,
}


def ini_settings(path: str, text: str | None) -> dict[str, Any] | None:
    """The pytest settings in one file, or None when it holds none (pytest looks on)."""
    if text is None:
        return None
    name = PurePosixPath(path).name
    if name == "pyproject.toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return {"<unparseable pyproject.toml>": text}
        pt = data.get("tool", {}).get("pytest")
        if not isinstance(pt, dict):
            return None
        opts = pt.get("ini_options", {})
        out = {k: v for k, v in pt.items() if k != "ini_options"}
        out.update(opts if isinstance(opts, dict) else {})
        return out
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {f"<unparseable {name}>": text}
    section = {"setup.cfg": "tool:pytest"}.get(name, "pytest")
    if not parser.has_section(section):
        return {} if name in ("pytest.ini", ".pytest.ini") else None
    return {k: v for k, v in parser.items(section)}


def effective(files: Mapping[str, bytes | None]) -> tuple[str | None, dict[str, Any]]:
    """The file pytest takes its settings from (of ``files``, path -> content) and them."""
    for f in INI_FILES:
        data = files.get(f)
        s = ini_settings(f, data.decode("utf-8", "replace") if data is not None else None)
        if s is not None:
            return f, s
    return None, {}


def words(v: Any) -> list[str]:
    """An ini value (a string pytest splits like a shell, or a TOML list) as arguments."""
    if isinstance(v, list):
        return [str(x) for x in v]
    if isinstance(v, bool):
        return [str(v).lower()]
    try:
        return shlex.split(str(v))
    except ValueError:
        return str(v).split()


def opt_name(tok: str) -> str:
    """``--import-mode=importlib`` -> ``--import-mode``; ``-pfoo`` -> ``-p``."""
    if tok.startswith("--"):
        return tok.split("=", 1)[0]
    if tok.startswith("-") and len(tok) > 2:
        return tok[:2]
    return tok


#: pytest's own plugins that are off unless asked for
BUILTIN_OPT_IN_PLUGINS = ("pytester", "_pytest.pytester")


def _loadable(plugin: str, root: Path) -> bool:
    """Whether ``-p plugin`` from addopts is kept: pytest's opt-in plugins and the
    project's own plugin modules (a file in the checkout). Installed third-party plugins
    load by their entry points anyway; one that is not installed must not stop the run;
    ``no:NAME`` is the runner's business."""
    if plugin in BUILTIN_OPT_IN_PLUGINS:
        return True
    if not plugin or plugin.startswith("no:"):
        return False
    rel = plugin.replace(".", "/")
    return any(
        (root / base / f"{rel}{tail}").is_file()
        for base in ("", "src")
        for tail in (".py", "/__init__.py")
    )


def _options(toks: list[str], wanted: Mapping[str, bool]) -> list[tuple[str, str, str | None]]:
    """The options of ``wanted`` (option -> whether it takes a value) in ``toks``, in
    order, as (name, token, separate value or None); an option missing its value is left
    out, and so is everything not wanted."""
    out: list[tuple[str, str, str | None]] = []
    i = 0
    while i < len(toks):
        tok = toks[i]
        name = opt_name(tok)
        takes = wanted.get(name)
        glued = tok != name  # --opt=value or -pNAME
        value = None
        if takes and not glued:
            value = toks[i + 1] if i + 1 < len(toks) else None
            i += 2
        else:
            i += 1
        if takes is None or (takes and not glued and value is None):
            continue
        out.append((name, tok, value))
    return out


def _read_settings_files(root: Path) -> dict[str, bytes | None]:
    files: dict[str, bytes | None] = {}
    for name in INI_FILES:
        try:
            files[name] = (root / name).read_bytes()
        except OSError:
            files[name] = None
    return files


def kept_addopts(root: Path) -> tuple[str, ...]:
    """The project's ``addopts`` (from the settings file at ``root`` pytest would use) that
    a graded run keeps: see :data:`KEPT_ADDOPTS` and :func:`_loadable`."""
    _, settings = effective(_read_settings_files(root))
    out: list[str] = []
    for name, tok, value in _options(words(settings.get("addopts", "")), KEPT_ADDOPTS):
        if name == "-p" and not _loadable(tok[2:] if value is None else value, root):
            continue
        out += [tok] if value is None else [tok, value]
    return tuple(out)


#: ``addopts`` that leave tests out of the project's suite. A graded run drops them with
#: the rest of ``addopts``; the suite runs of ``verify`` put the base's own back (a
#: ``tests/integration`` the project never runs, because it needs the network; a
#: ``-m "not slow"``), on both sides. Runs of named tests (the exam, a rerun) do not take
#: them: ``--deselect`` or ``-m`` would leave out the very test asked for.
SUITE_EXCLUSION_ADDOPTS: Mapping[str, bool] = {
    "--ignore": True,
    "--ignore-glob": True,
    "--deselect": True,
    "-m": True,
    "-k": True,
}


def checkout_suite_exclusions(root: Path) -> tuple[str, ...]:
    """:func:`suite_exclusions` of the settings files in the checkout at ``root``."""
    return suite_exclusions(_read_settings_files(root))


def suite_exclusions(files: Mapping[str, bytes | None]) -> tuple[str, ...]:
    """The ``--ignore``, ``--ignore-glob``, ``--deselect``, ``-m`` and ``-k`` options of
    the ``addopts`` pytest would read from ``files`` (path -> content, e.g. a revision's),
    as arguments: a long option as one ``--option=value``, a short one as ``-m``, value."""
    _, settings = effective(files)
    out: list[str] = []
    for name, tok, value in _options(words(settings.get("addopts", "")), SUITE_EXCLUSION_ADDOPTS):
        if value is None:
            out.append(tok)
        elif name.startswith("--"):
            out.append(f"{name}={value}")
        else:
            out += [name, value]
    return tuple(out)
