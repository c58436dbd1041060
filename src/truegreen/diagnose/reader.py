"""Reading a log as bytes, in bounded memory, and cleaning one line for analysis.

A log arrives as a path, stdin, bytes or a zip of GitHub Actions job logs. It is read in
chunks that end on a line feed, so a 1 GB log never sits in memory at once, and a line
longer than :data:`MAX_CARRY` (a log without line feeds) is cut rather than buffered.

Line numbers count LF only (a bare CR does not end a line), as the diagnosis contract
says. Cleaning (the ``JOB<TAB>STEP<TAB>`` columns of ``gh run view --log``, GitHub timestamps, ANSI colours, Travis fold markers, CR-overwritten
progress) happens per line, for analysis only; the line number stays the original one.
"""

from __future__ import annotations

import io
import re
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, BinaryIO

from truegreen.diagnose import sniff
from truegreen.errors import UsageError

#: Bytes read per chunk.
CHUNK = 1 << 20
#: A partial line longer than this (no LF in sight) is cut; the rest of it is skipped.
MAX_CARRY = 1 << 20
#: Characters of one line kept for analysis and quoting.
MAX_LINE_CHARS = 2000

_TIMESTAMP = re.compile(r"^\ufeff?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?")
#: ``gh run view --log`` / ``--log-failed`` put ``JOB<TAB>STEP<TAB>`` before the timestamp.
#: Bounded columns without tabs, and only when a timestamp follows.
_GH_CLI_PREFIX = re.compile(
    r"^([^\t\n]{1,300})\t([^\t\n]{0,300})\t(?=\ufeff?\d{4}-\d\d-\d\dT\d\d:)"
)
#: The same on bytes, for the scanner's step boundaries (group 2 is the STEP column);
#: used with ``match(data, pos)`` at a line start.
GH_CLI_PREFIX_B = re.compile(
    rb"([^\t\n]{1,300})\t([^\t\n]{0,300})\t(?=(?:\xef\xbb\xbf)?\d{4}-\d\d-\d\dT\d\d:)"
)
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_TRAVIS_MARKER = re.compile(r"^travis_(?:fold|time):\S*$")


@dataclass(frozen=True)
class Chunk:
    """Bytes that end on a line feed (except the last chunk), with the 1-based number of
    their first line. ``cut`` marks a chunk that starts in the middle of a cut line."""

    data: bytes
    first_line: int
    cut: bool = False


def iter_chunks(stream: IO[bytes]) -> Iterator[Chunk]:
    """Chunks of ``stream`` ending on LF. Memory stays under about CHUNK + MAX_CARRY."""
    carry = b""
    line = 1
    skipping = False  # inside a cut line: drop bytes until the next LF
    while True:
        block = stream.read(CHUNK)
        if not block:
            break
        if skipping:
            nl = block.find(b"\n")
            if nl < 0:
                continue
            block = block[nl + 1 :]
            line += 1
            skipping = False
        data = carry + block
        nl = data.rfind(b"\n")
        if nl < 0:
            if len(data) > MAX_CARRY:
                yield Chunk(data[:MAX_CARRY], line)
                carry = b""
                skipping = True
            else:
                carry = data
            continue
        head, carry = data[: nl + 1], data[nl + 1 :]
        yield Chunk(head, line)
        line += head.count(b"\n")
        if len(carry) > MAX_CARRY:
            yield Chunk(carry[:MAX_CARRY], line)
            carry = b""
            skipping = True
    if carry:
        yield Chunk(carry, line)


def clean(raw: bytes) -> list[str]:
    """The analysable segments of one raw line (no LF): decoded, timestamp and ANSI
    removed, split at bare CRs (each segment is what a terminal showed at some point),
    control characters dropped, empty segments and CI fold markers left out."""
    text = raw[: MAX_LINE_CHARS * 2].decode("utf-8", "replace")
    if "\t" in text:
        text = _GH_CLI_PREFIX.sub("", text, count=1)
    text = _TIMESTAMP.sub("", text, count=1)
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    parts = text.split("\r") if "\r" in text else [text]
    segments: list[str] = []
    for part in parts:
        seg = _TIMESTAMP.sub("", part, count=1)
        if _CONTROL.search(seg):
            seg = _CONTROL.sub("", seg)
        seg = seg.rstrip()
        if not seg.strip() or _TRAVIS_MARKER.match(seg):
            continue
        segments.append(seg[:MAX_LINE_CHARS])
    return segments


@dataclass
class LogInput:
    """One log to read: a display name and a binary stream (closed by the caller)."""

    name: str
    stream: IO[bytes]


def _sniff(stream: IO[bytes], under: IO[bytes] | None = None) -> tuple[bytes, BinaryIO]:
    """Peek at the first bytes without losing them (stdin cannot seek). Closing the
    stream returned closes ``stream`` and ``under`` (what a decompressor reads)."""
    head = stream.read(65536)
    rest = io.BufferedReader(_Prepend(head, stream, under))
    return head, rest


class _Prepend(io.RawIOBase):
    """A raw stream that yields ``head`` and then the rest of ``stream``."""

    def __init__(self, head: bytes, stream: IO[bytes], under: IO[bytes] | None = None) -> None:
        self._head = head
        self._stream = stream
        self._under = under

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        if not self.closed:
            try:
                self._stream.close()
            finally:
                if self._under is not None:
                    self._under.close()
        super().close()

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._stream.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        return n


def open_inputs(source: str | Path | BinaryIO, name: str | None = None) -> list[LogInput]:
    """The logs in ``source``: a path (a text log, a .gz, or a zip of job logs), ``-`` for
    stdin, or an open binary stream. Raises :class:`UsageError` for what cannot be read."""
    if isinstance(source, (str, Path)) and str(source) == "-":
        return [text_input(sys.stdin.buffer, "<stdin>")]
    if not isinstance(source, (str, Path)):
        return [text_input(source, name or "<stream>")]
    path = Path(source)
    if not path.exists():
        raise UsageError(f"{path} does not exist", hint="give the path of a CI log, or - for stdin")
    if path.is_dir():
        raise UsageError(
            f"{path} is a directory, not a log",
            hint="give one log file (or a zip of job logs), or - for stdin",
        )
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise UsageError(
            f"cannot read {path}: {exc.strerror}", hint="check the path and its permissions"
        ) from exc
    head = handle.read(4)
    handle.seek(0)
    if head.startswith(b"PK\x03\x04"):
        with handle:
            return zip_inputs(path, path.name)
    return [text_input(handle, str(path))]


def text_input(stream: IO[bytes], name: str) -> LogInput:
    """``stream`` as a text log: a gzip, xz or bzip2 one decompressed (one layer), anything
    that is not text refused with what it looks like and what to do (see
    :mod:`truegreen.diagnose.sniff`). The stream is closed when it is refused."""
    head, text = _sniff(stream)
    kind = sniff.kind_of(head)
    if kind is not None and kind.open is not None:
        inner = kind.open(text)
        try:
            head, text = _sniff(inner, under=text)
        except sniff.DECOMPRESS_ERRORS as exc:
            inner.close()
            text.close()
            what = kind.what.split(" ", 1)[1]
            raise UsageError(
                f"{name} is not a readable {what}: {exc}",
                hint="check that the file is complete, or give the log uncompressed",
            ) from exc
        name_read = f"{name} (decompressed)"
        kind = sniff.kind_of(head)
    else:
        name_read = name
    if not head:
        text.close()
        raise UsageError(f"{name_read} is empty", hint="give the log of a failed job")
    why = (kind.what, kind.hint) if kind is not None else sniff.not_text(head)
    if why:
        text.close()
        what, hint = why
        raise UsageError(
            f"{name_read} looks like {what}, not a text log",
            hint=hint.format(name="FILE" if name.startswith("<") else name),
        )
    return LogInput(name, text)


def zip_inputs(source: Path | IO[bytes], name: str, only: set[str] | None = None) -> list[LogInput]:
    """The job logs in a GitHub Actions run zip. The zip holds one ``N_<job>.txt`` per job
    at the top level and the same text split per step in ``<job>/N_<step>.txt``; only the
    whole-job files are read when they are there. ``only`` keeps jobs by name."""
    try:
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError) as exc:
        raise UsageError(f"{name} is not a readable zip: {exc}", hint="give a text log") from exc
    names = [i.filename for i in archive.infolist() if not i.is_dir()]
    top = [n for n in names if "/" not in n and n.endswith(".txt")]
    chosen = top or [n for n in names if n.endswith((".txt", ".log"))]
    if only is not None:
        wanted = [n for n in chosen if _job_name(n) in only]
        chosen = wanted or chosen
    if not chosen:
        raise UsageError(f"{name} holds no .txt job logs", hint="give a GitHub Actions run zip")
    inputs: list[LogInput] = []
    try:
        for n in sorted(chosen):
            inputs.append(text_input(archive.open(n), f"{name}:{n}"))
    except UsageError:
        for log in inputs:
            log.stream.close()
        raise
    return inputs


def _job_name(member: str) -> str:
    base = member.rsplit("/", 1)[-1].removesuffix(".txt")
    number, _, rest = base.partition("_")
    return rest if number.isdigit() and rest else base
