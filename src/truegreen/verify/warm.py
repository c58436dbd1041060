"""The exam's warm run, for exam strength: one pytest process that records the lines the
exam runs and then, held after its session, runs the mutants in forked children
(``_lines/truegreen_strength.py``, the protocol is described there).

:class:`WarmRun` runs the process on a thread (the executor starts it, as every process)
and talks to it through a directory: ``ready`` (the exam ran, its outcomes and lines can
be read), ``spec.json`` or ``stop`` (from truegreen), ``results.json``. A held process is
never left waiting: :meth:`WarmRun.release` tells it to stop and waits for it to end.
"""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path
from typing import Any

from truegreen.run.executor import Executor
from truegreen.run.pytest_run import PytestRequest, read_held, run_pytest
from truegreen.run.results import PytestRun

#: the plugin, and the environment variables it reads
PLUGIN = "truegreen_strength"
DIR_VAR = "TRUEGREEN_STRENGTH_DIR"
LIMIT_VAR = "TRUEGREEN_STRENGTH_LIMIT"
#: the directory of the code swap and the hold protocol the plugin shares with localize's
#: mutant runner (``truegreen_mutants``)
SWAP_DIR = Path(__file__).resolve().parent.parent / "localize" / "_tracer"
#: how often the process's files are looked at while it runs
_POLL = 0.003


class WarmRun:
    """One held pytest process (see the module docstring); ``request`` must name
    ``where`` in its environment (``DIR_VAR``) and its records file."""

    def __init__(self, request: PytestRequest, executor: Executor, where: Path) -> None:
        self.request = request
        self.where = where
        self._executor = executor
        self._run: PytestRun | None = None
        self._error: BaseException | None = None
        self._sent = False
        self._thread = threading.Thread(target=self._target, daemon=True)

    def _target(self) -> None:
        try:
            self._run = run_pytest(self.request, self._executor)
        except BaseException as exc:  # raised on the caller's thread by result()
            self._error = exc

    def start(self) -> None:
        self._thread.start()

    @property
    def alive(self) -> bool:
        """Whether the process still runs (or holds)."""
        return self._thread.is_alive()

    def wait_ready(self) -> dict[str, Any] | None:
        """The baseline's word once the exam ran and the process holds (``{"baseline":
        "passed" | ..., "seconds": s}``), or None when the process ended without holding
        (the plugin did not run: no ``os.fork``, a collection error...)."""
        return self._wait_for(self.where / "ready")

    def _wait_for(self, path: Path) -> dict[str, Any] | None:
        """The JSON object the process writes whole (renamed into place) at ``path``,
        once it is there; None when the process ended without writing it."""
        while self._thread.is_alive() and not path.exists():
            self._thread.join(_POLL)
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return doc if isinstance(doc, dict) else None

    def outcomes(self) -> PytestRun:
        """The exam's outcomes: read from the records of the held process, or the ended
        run's (raising what the run raised)."""
        if self._thread.is_alive():
            held = read_held(self.request)
            if held is not None:
                return held
            self.release()
        return self.result()

    def result(self) -> PytestRun:
        """The ended run (after :meth:`release`), or what it raised."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._run is not None
        return self._run

    def send(self, spec: dict[str, Any]) -> dict[str, Any] | None:
        """Give the held process its mutants and wait for their results (None: it ended
        without writing them)."""
        if self._sent:
            return None
        self._sent = True
        part = self.where / "spec.json.tmp"
        part.write_text(json.dumps(spec), encoding="utf-8")
        part.replace(self.where / "spec.json")
        got = self._wait_for(self.where / "results.json")
        self._thread.join()  # it ends at once after writing them
        if self._error is not None:
            raise self._error
        return got

    def release(self) -> None:
        """Let the process end (told to stop if it holds), and wait for it."""
        if not self._sent:
            self._sent = True
            if self._thread.is_alive():
                (self.where / "stop").write_text("stop\n", encoding="utf-8")
        if self._thread.ident is not None:
            self._thread.join()

    def close(self) -> None:
        """:meth:`release`, then remove its directory."""
        try:
            self.release()
        finally:
            shutil.rmtree(self.where, ignore_errors=True)
