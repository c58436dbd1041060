"""Which paths a rule means: globs with ``**``, and the category of a changed file.

A glob is matched against a path relative to the project's root with forward slashes.
``*`` and ``?`` stay within one directory, ``**`` spans any number of them (none
included), ``[...]`` is a character class. A glob without a ``/`` matches the file's name
at any depth (``*.lock`` matches ``uv.lock`` and ``sub/poetry.lock``), as in .gitignore.
A glob that ends with ``/`` matches everything under that directory.

Categories (:func:`category`, the first that applies): ``tests`` (test code and test
data, :mod:`truegreen.testpaths`), ``ci``, ``dependencies``, ``docs``, ``source`` (other
Python files), ``config`` (other configuration: TOML, INI, YAML, JSON, Makefiles,
Dockerfiles...), else ``other``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from truegreen.testpaths import is_test_code, is_test_data

#: every category a changed file can be in, in the order they are tried
CATEGORIES = ("tests", "ci", "dependencies", "docs", "source", "config", "other")

CI_GLOBS = (
    ".github/workflows/**",
    ".github/actions/**",
    ".gitlab-ci.yml",
    ".gitlab/ci/**",
    ".circleci/**",
    ".travis.yml",
    "azure-pipelines.yml",
    "Jenkinsfile",
    ".buildkite/**",
    "tox.ini",
    "noxfile.py",
    ".pre-commit-config.yaml",
)
DEPENDENCY_GLOBS = (
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements*.txt",
    "requirements/**",
    "constraints*.txt",
    "Pipfile",
    "Pipfile.lock",
    "poetry.lock",
    "uv.lock",
    "pdm.lock",
    "environment.yml",
    "environment.yaml",
)
DOC_GLOBS = (
    "docs/**",
    "doc/**",
    "*.md",
    "*.rst",
    "LICENSE*",
    "COPYING*",
    "AUTHORS*",
    "CHANGELOG*",
    "CHANGES*",
    "NEWS*",
)
SOURCE_SUFFIXES = (".py", ".pyi", ".pyx", ".pxd")
CONFIG_GLOBS = (
    "*.toml",
    "*.ini",
    "*.cfg",
    "*.yml",
    "*.yaml",
    "*.json",
    ".gitignore",
    ".gitattributes",
    ".editorconfig",
    "Makefile",
    "Dockerfile*",
    "MANIFEST.in",
)


@functools.lru_cache(maxsize=1024)
def _regex(glob: str) -> re.Pattern[str]:
    anchored = "/" in glob.rstrip("/")
    pattern = glob.rstrip("/") + "/**" if glob.endswith("/") else glob
    out = [] if anchored else ["(?:.*/)?"]
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z")


def matches(path: str, glob: str) -> bool:
    """Whether ``path`` (relative, forward slashes) matches ``glob`` (see the module docstring)."""
    return _regex(glob.lstrip("/")).match(path) is not None


def matching(path: str, globs: Iterable[str]) -> list[str]:
    """The globs of ``globs`` that ``path`` matches, in their order."""
    return [g for g in globs if matches(path, g)]


def check_glob(glob: str) -> str | None:
    """What is wrong with ``glob`` as a project-relative glob, or None."""
    if not glob.strip():
        return "is empty"
    if "\\" in glob:
        return "uses backslashes (write forward slashes)"
    if ".." in glob.split("/"):
        return "leads out of the project (..)"
    return None


def category(path: str) -> str:
    """The category of a changed file (one of :data:`CATEGORIES`)."""
    if is_test_code(path) or is_test_data(path):
        return "tests"
    if matching(path, CI_GLOBS):
        return "ci"
    if matching(path, DEPENDENCY_GLOBS):
        return "dependencies"
    if matching(path, DOC_GLOBS):
        return "docs"
    if path.endswith(SOURCE_SUFFIXES):
        return "source"
    if matching(path, CONFIG_GLOBS):
        return "config"
    return "other"
