"""`truegreen demo`: the whole loop on the bundled project goes as designed."""

from __future__ import annotations

import pytest


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", ["none", pytest.param("bwrap", marks=pytest.mark.bwrap)])
def test_the_demo_command_prints_the_table_and_the_meaning(tmp_path, capsys, sandbox):
    from truegreen.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["demo", "--sandbox", sandbox, "--workdir", str(tmp_path)])
    out = capsys.readouterr().out
    # exit 0 means every candidate got its designed decision, and no test was called
    # flaky (the command checks it)
    assert exc.value.code == 0
    assert "exam strength strong" in out or "exam strength medium" in out
    assert "real-fix" in out and "approve" in out and "reject" in out
    assert 'It never means "correct"' in out
