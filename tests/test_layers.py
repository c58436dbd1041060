"""The layers contract: adapters reach the engine only through truegreen.api (and the
records it returns), and the engine never imports an adapter, click or rich.

`lint-imports` checks the imports against the contracts in pyproject.toml; these tests run
it (so `make test` fails when an import breaks a layer) and check that the contracts
classify every top-level module of truegreen, so that a new module cannot slip past them.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "truegreen"

#: what may import what, by top-level module
ADAPTERS = {
    "truegreen.cli",
    "truegreen._console",
    "truegreen.__main__",
    "truegreen.mcp",
    "truegreen.claude",
}
#: the adapter still to come: classified as one once it exists (#37's GitHub client,
#: truegreen.github, is engine: the service's workers use it through the API; its adapters
#: are the `ci` and `verify OWNER/REPO#N` commands)
FUTURE_ADAPTERS = {"truegreen.service"}
#: what adapters may import besides each other: the door and the shared leaf modules
SHARED = {"truegreen.api", "truegreen.model", "truegreen.errors", "truegreen.canonical"}


def _contracts() -> dict[str, dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return {c["id"]: c for c in config["tool"]["importlinter"]["contracts"]}


def _top_level_modules() -> set[str]:
    found = set()
    for path in PACKAGE.iterdir():
        if path.name == "__init__.py" or path.name.startswith("."):
            continue
        if path.suffix == ".py" or (path.is_dir() and (path / "__init__.py").is_file()):
            found.add(f"truegreen.{path.stem}")
    return found


def test_the_contracts_classify_every_top_level_module() -> None:
    contracts = _contracts()
    modules = _top_level_modules()
    adapters = set(contracts["adapters"]["source_modules"])  # type: ignore[arg-type]
    engine = set(contracts["adapters"]["forbidden_modules"])  # type: ignore[arg-type]
    # the adapters contract names the adapters that exist, and forbids them the rest
    assert adapters == (ADAPTERS | FUTURE_ADAPTERS) & modules
    assert engine == modules - adapters - FUTURE_ADAPTERS - SHARED
    # the engine contract: every non-adapter may not import an adapter, click, rich or
    # the MCP SDK
    assert set(contracts["engine"]["source_modules"]) == modules - adapters  # type: ignore[arg-type]
    forbidden = set(contracts["engine"]["forbidden_modules"])  # type: ignore[arg-type]
    assert forbidden == adapters | {"click", "rich", "mcp"}


def test_the_imports_keep_the_contracts() -> None:
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if lint is None:
        pytest.fail("lint-imports is not installed: pip install -e '.[dev]' (import-linter)")
    done = subprocess.run(
        [lint, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 kept, 0 broken" in done.stdout
