"""The ``truegreen`` console script and ``python -m truegreen``: :func:`truegreen.cli.main`
in a process that runs one command and ends.

Two things a one-command process can skip, measured on ``truegreen localize`` (a command
timed against a bare test run; see bench/results/localize-history.md, round 23):

* **Full passes of the cyclic garbage collector.** A command builds large structures that
  live to its end (localize reads a trace of every test's lines and parses the modules they
  ran) and makes little cyclic garbage. With the default thresholds the collector traversed
  all of them again and again: about 3% of a median localize (3.6% with the collector off;
  the raised thresholds measured 1% slower than off, within the noise). Young objects are still
  collected (an exception's frames, say), every 50,000 allocations; objects that survive
  that are traversed again only after far more than a command allocates.
* **The interpreter's teardown**: freeing every module and object one by one, and a last
  full collection, after the output is written: about 28 ms. When the command is done and
  no other thread runs, the exit handlers run (``atexit``: logging's flush, temporary
  directories' finalizers) and the process ends with the command's status. With another
  thread still running, or a status that is not a number, the interpreter ends as usual.

:func:`truegreen.cli.main` itself, called in-process (by tests, by another program), is left
as it is: only a process started for one command is tuned.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
import threading
from typing import NoReturn

#: generation 0 collected every 50,000 net allocations (default 700); generation 1 after
#: 50 of those; the oldest after 1,000 of those
THRESHOLDS = (50_000, 50, 1_000)


def run() -> NoReturn:
    """Run one ``truegreen`` command from ``sys.argv`` and end the process."""
    gc.set_threshold(*THRESHOLDS)  # before the imports: they allocate as much as the rest
    from truegreen.cli import main

    try:
        main()
    except SystemExit as exc:
        end(exc)
    raise AssertionError("truegreen.cli.main always ends in SystemExit")  # pragma: no cover


def end(exc: SystemExit) -> NoReturn:
    """End the process with the status of ``exc``, without the interpreter's teardown when
    nothing else is running; else as the interpreter would."""
    code = 0 if exc.code is None else exc.code
    if not isinstance(code, int) or threading.active_count() > 1:
        raise exc
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        raise exc from None  # a closed pipe: let the interpreter report it as it does
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # written by an exit handler, after the command's own output was flushed
    os._exit(code & 0xFF)
