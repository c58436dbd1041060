"""Work started early that may wait runs with a higher niceness (``Command.nice``), so that
it takes no CPU from the work that is waited for; the base's held process of a selected
verification is such work."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from truegreen.run.executor import Command, default_executor

SHOW = "import os, subprocess, sys; print(os.nice(0)); sys.stdout.flush(); "
CHILD = "subprocess.run([sys.executable, '-c', 'import os; print(os.nice(0))'])"


def test_a_commands_niceness_is_added_and_inherited_by_what_it_starts(tmp_path: Path) -> None:
    mine = os.nice(0)
    argv = (sys.executable, "-c", SHOW + CHILD)
    done = default_executor().run(Command(argv, cwd=tmp_path, nice=5))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(min(mine + 5, 19))] * 2
    # the command is recorded as it was asked for, and without ``nice`` nothing is added
    assert done.argv == argv
    plain = default_executor().run(Command(argv, cwd=tmp_path))
    assert plain.stdout.split() == [str(mine)] * 2
