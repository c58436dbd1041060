"""Version history as the last tie-break: of lines equal in every other key, the one
changed most recently goes first.

Code that changed recently is more likely to hold a fault than code that has stood
unchanged for years (change and age metrics improve spectrum-based localization: Sohn and
Yoo's FLUCCS, 2017), and when a test starts failing, the last changes are where a
maintainer looks first. It orders only lines that are equal in every other key (the
score, the evidence, the mutants); it never moves a line past one that differs in any of
them. ``git blame`` of the working tree gives each line the commit that last changed it;
a line changed in the working tree and not committed is the most recent of all. A file
git does not track, or a checkout that is not a git repository, gives no history: its
lines go after those with one.
"""

from __future__ import annotations

import datetime
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from truegreen.repo.git import GitRepo

Line = tuple[str, int]

#: the sha ``git blame`` gives a line that is not committed yet
UNCOMMITTED = "0" * 40
#: the recency of an uncommitted line: after every commit time
NOW = 2**62
#: how the note says what the history decided
ORDER = "of equal lines, the newest first"
#: only tie groups that start within this many places of the top are ordered by history
PLACES = 10
#: at most this many files are blamed for one ranking (the files of the top tie groups)
FILES = 12


@dataclass(frozen=True)
class Change:
    """The last change of one line: the commit's time (``NOW`` when not committed yet)."""

    time: int
    sha: str

    def note(self) -> str:
        """What the document says (where the history ordered lines equal in all else)."""
        if self.sha == UNCOMMITTED:
            return f"changed in the working tree, not committed; {ORDER}"
        day = datetime.datetime.fromtimestamp(self.time, tz=datetime.UTC).date().isoformat()
        return f"last changed on {day} in {self.sha[:10]}; {ORDER}"


def parse_blame(porcelain: str) -> dict[int, Change]:
    """Each line's last change, from ``git blame --porcelain`` output."""
    times: dict[str, int] = {}
    out: dict[int, Change] = {}
    sha, final = "", 0
    for text in porcelain.splitlines():
        if text.startswith("\t"):
            if sha:
                out[final] = Change(NOW if sha == UNCOMMITTED else times.get(sha, 0), sha)
            sha = ""
            continue
        head = text.split(" ")
        if len(head) >= 3 and len(head[0]) == 40 and head[1].isdigit() and head[2].isdigit():
            sha, final = head[0], int(head[2])
        elif head[0] == "committer-time" and sha and len(head) == 2 and head[1].isdigit():
            times[sha] = int(head[1])
    return out


def blame(
    git: GitRepo, rel: str, lines: Sequence[tuple[int, int]] = (), timeout: float = 60
) -> dict[int, Change]:
    """The last change of each line of ``rel`` (project-relative) as it is in the working
    tree, of the line ranges ``lines`` only when given; empty when git cannot say (an
    untracked file, a path outside the repository)."""
    got = git.blame(rel, lines, timeout=timeout)
    return parse_blame(got) if got is not None else {}


class History:
    """Blames files in a background thread (:meth:`start`) so that the wait overlaps the
    mutants' run; :meth:`recency` then keys each statement by its most recent line."""

    def __init__(self, git: GitRepo | None) -> None:
        self._git = git
        self._files: dict[str, dict[int, Change]] = {}
        self._thread: threading.Thread | None = None

    def start(self, spans: Iterable[tuple[str, int, int]]) -> None:
        """Blame the statements ``spans`` (file, first line, last line) in the background."""
        todo: dict[str, list[tuple[int, int]]] = {}
        for rel, lo, hi in spans:
            if rel in todo or len(todo) < FILES:
                todo.setdefault(rel, []).append((lo, hi))
        if self._git is None or not todo:
            return
        git = self._git

        def run() -> None:
            for rel, ranges in todo.items():
                try:
                    self._files[rel] = blame(git, rel, _merged(ranges))
                except Exception:  # history is a tie-break: without it, ties stand
                    self._files[rel] = {}

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def recency(self, spans: Mapping[Line, tuple[int, int]]) -> dict[Line, tuple[int, str]]:
        """Each statement's most recent change among its lines (``spans``: first and last
        line), with the note that says it; statements without history are left out."""
        if self._thread is not None:
            self._thread.join()
        out: dict[Line, tuple[int, str]] = {}
        for (rel, line), (lo, hi) in spans.items():
            lines = self._files.get(rel)
            if not lines:
                continue
            changes = [lines[n] for n in range(lo, hi + 1) if n in lines]
            if changes:
                last = max(changes, key=lambda c: (c.time, c.sha))
                out[(rel, line)] = (last.time, last.note())
        return out


def _merged(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Inclusive line ranges, sorted, with overlapping and adjacent ones joined (git blame
    refuses none, but repeats a line once per range that holds it)."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out
