"""The command line starts light: hooks and agents call it often, and localize is timed
against a bare test run, so importing the CLI must not pull in the engine, rich or pydantic."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from truegreen.cli._app import Output

HEAVY = ("rich", "pydantic", "sqlalchemy", "typer")
ENGINE = ("truegreen.localize", "truegreen.verify", "truegreen.diagnose", "truegreen.exam")


def _modules_after(code: str) -> set[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_importing_the_cli_imports_no_engine_and_no_heavy_library() -> None:
    loaded = _modules_after("import truegreen.cli")
    assert "click" in loaded  # the probe saw the CLI's own imports
    heavy = sorted(m for m in loaded if m.split(".")[0] in HEAVY)
    engine = sorted(m for m in loaded if m.startswith(ENGINE))
    assert heavy == [] and engine == [], (heavy, engine)


def test_a_command_imports_only_its_own_engine() -> None:
    code = (
        "from truegreen.cli import main\n"
        "try:\n    main(['localize', '--help'])\nexcept SystemExit:\n    pass"
    )
    loaded = _modules_after(code)
    assert not any(m.split(".")[0] in HEAVY for m in loaded)
    assert not any(m.startswith(("truegreen.verify", "truegreen.diagnose")) for m in loaded)


def test_plain_text_is_written_as_is(capsys: pytest.CaptureFixture[str]) -> None:
    out = Output(stderr=False)
    # log lines are data: no markup, no emoji codes, no wrapping
    line = "[bold]not markup[/] :smile: " + "x" * 300
    out.print(line, markup=False)
    out.print("a", "b", markup=False, end="")
    assert capsys.readouterr().out == line + "\na b"


def test_styled_text_goes_through_rich(capsys: pytest.CaptureFixture[str]) -> None:
    err = Output(stderr=True)
    err.print("[bold]styled[/] text")
    assert capsys.readouterr().err == "styled text\n"  # markup applied (no colour: not a tty)
