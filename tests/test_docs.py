"""The docs describe the code as it is: links resolve, named files, modules, functions and
commands exist, the architecture page maps every module, and the rules it states hold.

A page that names something the code no longer has misleads more than a missing page;
these checks fail when either side moves without the other.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pytest

from tests.conftest import cli
from truegreen.cli import app

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "truegreen"
DOCS = sorted((ROOT / "docs").glob("*.md"))
USER_PAGES = [ROOT / "README.md", *DOCS]
#: pages linked from the docs that live elsewhere (their links are checked too)
LINKED_PAGES = [ROOT / "bench" / "results" / "localize-history.md"]
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
LOCALIZE = ROOT / "docs" / "localize.md"


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _split(text: str) -> tuple[list[str], list[str]]:
    """A Markdown page's prose lines and code-block lines (fenced, or indented by four
    spaces after a blank line; a list item's continuation is prose)."""
    prose: list[str] = []
    code: list[str] = []
    fenced = in_code = False
    previous = ""
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            in_code = False
        elif fenced:
            code.append(line)
        elif line.startswith("    ") and (in_code or not previous.strip()):
            in_code = True
            code.append(line)
        else:
            in_code = False
            prose.append(line)
        previous = line
    return prose, code


_SPAN = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _spans(page: Path) -> Iterator[str]:
    """The inline code spans of a page's prose (a table's escaped ``\\|`` unescaped)."""
    prose, _code = _split(page.read_text(encoding="utf-8"))
    for line in prose:
        for span in _SPAN.findall(line):
            yield span.replace("\\|", "|")


def _links(page: Path) -> Iterator[str]:
    prose, _code = _split(page.read_text(encoding="utf-8"))
    for line in prose:
        yield from _LINK.findall(_SPAN.sub("", line))


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = heading.replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    prose, _code = _split(page.read_text(encoding="utf-8"))
    return {_slug(m.group(1)) for line in prose if (m := re.match(r"#+\s+(.*)", line))}


@pytest.mark.parametrize("page", [*USER_PAGES, *LINKED_PAGES], ids=_rel)
def test_every_relative_link_points_to_a_file_and_heading_that_exist(page: Path) -> None:
    broken = []
    for target in _links(page):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target}: no file {linked}")
        elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
            broken.append(f"{target}: no heading with the anchor #{anchor} in {_rel(linked)}")
        elif not linked.is_relative_to(ROOT):
            broken.append(f"{target}: outside the repository")
    assert not broken, f"{_rel(page)}: " + "; ".join(broken)


_REPO_PATH = re.compile(r"(?:src|docs|bench|tests|\.ci)/[\w./*-]*")


@pytest.mark.parametrize("page", USER_PAGES, ids=_rel)
def test_every_repository_path_a_page_names_exists(page: Path) -> None:
    """Paths of this repository in code spans (``src/truegreen/...``, ``docs/...``,
    ``bench/...``, ``tests/...``): a file (a name with a suffix), a directory (ending in
    ``/``) or a glob. A bare ``tests/integration`` is a user's example, not ours."""
    missing = []
    for span in _spans(page):
        if not _REPO_PATH.fullmatch(span):
            continue
        last = span.rstrip("/").rsplit("/", 1)[-1]
        if not (span.endswith("/") or "." in last):
            continue
        if "*" in span:
            if not any(ROOT.glob(span)):
                missing.append(span)
        elif not (ROOT / span).exists():
            missing.append(span)
    assert not missing, f"{_rel(page)} names paths that do not exist: {missing}"


_DOC_REF = re.compile(r"\b((?:docs|bench/results)/[\w.-]+\.md)\b")


def _texts() -> Iterator[tuple[Path, str]]:
    """truegreen's source (docstrings, comments, messages), the bench scripts' docstrings
    (their bodies write other projects' files) and the pages."""
    for path in PACKAGE.rglob("*.py"):
        yield path, path.read_text(encoding="utf-8")
    for path in (ROOT / "bench").glob("*.py"):
        yield path, ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    for path in USER_PAGES:
        yield path, path.read_text(encoding="utf-8")


def test_every_docs_page_the_code_and_the_docs_mention_exists() -> None:
    """``docs/x.md`` (or ``bench/results/x.md``) in a docstring, a message or a page."""
    missing = sorted(
        f"{_rel(src)}: {ref}"
        for src, text in _texts()
        for ref in set(_DOC_REF.findall(text))
        if not (ROOT / ref).is_file()
    )
    assert not missing, f"mentions of pages that do not exist: {missing}"


def _modules() -> list[str]:
    return sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py"))


def test_the_architecture_page_names_every_module() -> None:
    named = set(_spans(ARCHITECTURE))
    missing = [m for m in _modules() if m not in named]
    assert not missing, f"docs/ARCHITECTURE.md does not describe: {missing}"


def test_the_architecture_page_names_only_modules_that_exist() -> None:
    modules = set(_modules())
    unknown = [
        span
        for span in _spans(ARCHITECTURE)
        if re.fullmatch(r"[\w/]+\.py", span)
        and span not in modules
        and not (ROOT / span).is_file()  # tests/conftest.py, tests/test_docs.py
    ]
    assert not unknown, f"docs/ARCHITECTURE.md names modules that do not exist: {unknown}"


_TOP = {p.stem for p in PACKAGE.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}
_DOTTED = re.compile(r"(?:truegreen\.)?([a-z_]+)((?:\.[A-Za-z_]\w*)+)")


def _resolves(dotted: str) -> bool:
    """``pkg.module.attr.attr`` names a module of truegreen, then attributes of it."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module("truegreen." + ".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def _named_code(page: Path, prefixed_only: bool) -> Iterator[str]:
    for span in _spans(page):
        if re.fullmatch(r"[\w/]+\.(py|md|json|toml|yml)", span):
            continue  # a file's name
        m = _DOTTED.fullmatch(span)
        if m is None or m.group(1) not in _TOP:
            continue
        if prefixed_only and not span.startswith("truegreen."):
            continue
        yield m.group(1) + m.group(2)


@pytest.mark.parametrize("page", USER_PAGES, ids=_rel)
def test_every_function_and_constant_a_page_names_exists(page: Path) -> None:
    """``truegreen.x.y`` anywhere, and ``x.y`` on the architecture page (elsewhere a
    reason code such as ``sandbox.blocked_write`` reads the same)."""
    names = _named_code(page, prefixed_only=page != ARCHITECTURE)
    unknown = sorted({n for n in names if not _resolves(n)})
    assert not unknown, f"{_rel(page)} names what the code does not have: {unknown}"


def _command_lines(page: Path) -> Iterator[str]:
    """Command lines a page shows: code spans and code-block lines that start with
    ``truegreen `` (prose such as "truegreen runs your tests" is not a command)."""
    _prose, code = _split(page.read_text(encoding="utf-8"))
    for line in [*_spans(page), *code]:
        text = line.strip().removeprefix("$ ")
        if text.startswith("truegreen "):
            yield text


def _check_command(line: str) -> list[str]:
    words = line.split()[1:]
    if not words or words[0].startswith("-"):
        return []  # truegreen --help
    commands: list[click.Command] = []
    group: click.Command = app
    for alternative in words[0].split("|"):
        cmd = app.commands.get(alternative)
        if cmd is None:
            return [f"{line!r}: no command {alternative!r}"]
        commands.append(cmd)
    group = commands[0]
    rest = words[1:]
    if isinstance(group, click.Group) and rest and re.fullmatch(r"[a-z|-]+", rest[0]):
        commands = []
        for alternative in rest[0].split("|"):
            sub = group.commands.get(alternative)
            if sub is None:
                return [f"{line!r}: no command {words[0]} {alternative}"]
            commands.append(sub)
        rest = rest[1:]
    problems = []
    for cmd in commands:
        known = {o for p in cmd.params for o in [*p.opts, *p.secondary_opts]} | {"--help"}
        for token in rest:
            for option in re.findall(r"--[a-z][a-z-]*", token.split("#", 1)[0]):
                if option not in known:
                    problems.append(f"{line!r}: {cmd.name} has no option {option}")
    return problems


@pytest.mark.parametrize("page", USER_PAGES, ids=_rel)
def test_every_command_and_option_a_page_shows_exists(page: Path) -> None:
    problems = [p for line in _command_lines(page) for p in _check_command(line)]
    assert not problems, f"{_rel(page)}: " + "; ".join(problems)


def test_the_command_check_catches_commands_and_options_that_do_not_exist() -> None:
    assert _check_command("truegreen audit OWNER/REPO")
    assert _check_command("truegreen exams replay")
    assert _check_command("truegreen verify --base main --upload")
    assert not _check_command("truegreen exams list|show --json")


_ADAPTERS = ("cli/", "_console.py", "__main__.py")
_ADAPTER_IMPORTS = ("click", "rich", "truegreen.cli")


@pytest.mark.slow
def test_the_engine_imports_no_adapter_click_or_rich() -> None:
    """The rule docs/ARCHITECTURE.md states, checked on every import statement (also the
    lazy ones inside functions)."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(_ADAPTERS) or rel.startswith("demo/project/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            else:
                continue
            found += [
                f"{rel}:{node.lineno} imports {n}"
                for n in names
                if any(n == a or n.startswith(a + ".") for a in _ADAPTER_IMPORTS)
            ]
    assert not found, found


def test_the_localize_page_documents_every_option_of_the_command() -> None:
    command = app.commands["localize"]
    text = LOCALIZE.read_text(encoding="utf-8")
    options = [
        o
        for p in command.params
        if isinstance(p, click.Option)
        for o in [*p.opts, *p.secondary_opts]
        if o != "-h"
    ]
    assert "--no-mutants" in options  # the walk above sees the flags' both forms
    missing = [o for o in options if f"`{o}" not in text and f"/{o}`" not in text]
    assert not missing, f"docs/localize.md does not document {missing}"


#: values, not field names: their keys are data (paths, variables, a value's own fields)
_DATA = {"files", "crash_locals", "value", "failing", "passing"}


def _keys(doc: object, depth: int = 0) -> set[str]:
    if isinstance(doc, list):
        return set().union(*(_keys(d, depth) for d in doc)) if doc else set()
    if not isinstance(doc, dict):
        return set()
    out = set(doc)
    for k, v in doc.items():
        if not (depth and k in _DATA):
            out |= _keys(v, depth + 1)
    return out


_LOCALIZE_PROJECT = {
    "pkg/__init__.py": "",
    "pkg/prices.py": """
        def find(table, key):
            for name, value in table:
                if name == key:
                    return value
            return None

        def with_tax(table, key):
            price = find(table, key)
            return price + 1
        """,
    "tests/test_prices.py": """
        from pkg.prices import with_tax

        def test_found():
            assert with_tax([("a", 1)], "a") == 2

        def test_missing():
            assert with_tax([("a", 1)], "b") == 1
        """,
}


@pytest.mark.slow
def test_the_localize_page_documents_every_field_of_a_real_document(
    make_project: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """A real ``truegreen.localization/1`` (a ``None`` returned, then used: the crash,
    its origin, values that differ): every field name it has appears on the page, and the
    page's JSON example has the same top-level fields and ranking entry fields."""
    root = make_project(_LOCALIZE_PROJECT)
    code, out, err = cli(
        capsys,
        "localize",
        "tests/test_prices.py::test_missing",
        "--repo",
        str(root),
        "--python",
        sys.executable,
        "--sandbox",
        "none",
        "--no-mutants",
        "--json",
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["values"]["origins"], "the fixture must exercise the origins of a None"
    text = LOCALIZE.read_text(encoding="utf-8")
    words = {w for span in _spans(LOCALIZE) for w in re.findall(r"\w+", span)}
    undocumented = sorted(k for k in _keys(doc) if k not in words)
    assert not undocumented, f"docs/localize.md does not explain {undocumented}"
    example = json.loads(text.split("```json\n", 1)[1].split("\n```", 1)[0])
    assert set(example) == set(doc)
    assert set(example["ranking"][0]) == set(doc["ranking"][0])
    assert set(example["values"]) == set(doc["values"])


def test_the_markdown_reading_separates_code_from_prose(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text(
        textwrap.dedent("""\
            # A `title`: here

            - item
                continued [prose](a.md)

                truegreen nothing [code](b.md)
            `truegreen demo` and [link](c.md#a-title-here)
            """),
        encoding="utf-8",
    )
    assert list(_links(page)) == ["a.md", "c.md#a-title-here"]
    assert list(_command_lines(page)) == ["truegreen demo", "truegreen nothing [code](b.md)"]
    assert _anchors(page) == {"a-title-here"}
