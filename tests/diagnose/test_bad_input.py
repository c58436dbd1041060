"""Bad input gives one clear line and exit 2, never a traceback; big input stays bounded."""

from __future__ import annotations

import gzip
import io
import json

import pytest

from tests.conftest import cli
from truegreen.diagnose import diagnose, reader, scanner
from truegreen.diagnose.reader import LogInput, iter_chunks
from truegreen.diagnose.scanner import Scanner


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "is empty"),
        (b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 4000, "looks like an ELF executable"),
        ("ERROR: boom\n".encode("utf-16"), "UTF-16"),
        (b"\x1f\x8b\x08\x00garbage, not deflate data", "not a readable gzip"),
        (b"PK\x03\x04 not really a zip", "not a readable zip"),
    ],
)
def test_unreadable_logs_are_one_line_and_exit_2(tmp_path, capsys, content, message):
    path = tmp_path / "job.log"
    path.write_bytes(content)
    code, out, err = cli(capsys, "diagnose", str(path))
    assert code == 2
    assert out == ""
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_directory_and_a_missing_path_are_named(tmp_path, capsys):
    code, _, err = cli(capsys, "diagnose", str(tmp_path))
    assert code == 2 and "is a directory" in err
    code, _, err = cli(capsys, "diagnose", str(tmp_path / "nope.log"))
    assert code == 2 and "does not exist" in err


def test_usage_mistakes_are_exit_2(capsys):
    assert cli(capsys, "diagnose")[0] == 2
    assert cli(capsys, "diagnose", "--run", "5")[0] == 2
    assert cli(capsys, "diagnose", "--github", "not a repo", "--run", "5")[0] == 2


def test_non_utf8_and_truncated_mid_line_logs_are_diagnosed(tmp_path, capsys):
    path = tmp_path / "job.log"
    path.write_bytes(
        b"caf\xe9 \xff\xfe build\nsrc/m.c:3:1: error: expected ';' before '}' token\n"
        b"make: *** [Makefile:4: m.o] Error 1\nlast line cut in the midd"
    )
    code, out, _ = cli(capsys, "diagnose", str(path), "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["class"] == "build"
    assert doc["evidence"][0]["line"] == 2
    assert doc["source"]["non_utf8"] is True
    assert doc["source"]["lines"] == 4


def test_a_truncated_gzip_is_read_as_far_as_it_goes_or_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "job.log.gz"
    path.write_bytes(gzip.compress(b"ERROR: No matching distribution found for x\n" * 5000)[:300])
    code, _, err = cli(capsys, "diagnose", str(path))
    assert code in (0, 2)
    assert "Traceback" not in err


def test_gzip_logs_are_read(tmp_path):
    path = tmp_path / "job.log.gz"
    path.write_bytes(gzip.compress(b"ERROR: No matching distribution found for nosuch==1.0\n"))
    assert diagnose(path).class_ == "dependency"


class _Endless(io.RawIOBase):
    """A synthetic log of ``total`` bytes made on the fly (never held in memory)."""

    def __init__(self, total: int, tail: bytes, newlines: bool = True) -> None:
        self.left = self.total = total
        self.tail = tail
        line = b"2024-01-01T00:00:00.0000000Z Requirement already satisfied: pkg in /venv\n"
        self.block = line * 4000 if newlines else b"x" * len(line * 4000)

    def readable(self) -> bool:
        return True

    def readinto(self, buf) -> int:  # type: ignore[no-untyped-def]
        if self.left <= 0:
            data, self.tail = self.tail, b""
        else:
            start = (self.total - self.left) % len(self.block)
            data = self.block[start : start + min(len(buf), self.left)]
            self.left -= len(data)
        n = min(len(buf), len(data))
        buf[:n] = data[:n]
        if n < len(data):
            self.tail = data[n:] + self.tail
        return n


def _scan_bounded(stream: io.RawIOBase) -> tuple[scanner.ScanResult, int]:
    sc = Scanner("big")
    peak = 0
    for chunk in iter_chunks(io.BufferedReader(stream)):
        assert len(chunk.data) <= reader.CHUNK + reader.MAX_CARRY
        sc.feed(chunk)
        peak = max(peak, sc.ring_bytes)
    return sc.finish(), peak


@pytest.mark.slow
def test_a_large_log_is_read_in_bounded_memory():
    tail = b"2024-01-01T00:00:00.0000000Z ERROR: No matching distribution found for foo\n"
    result, peak = _scan_bounded(_Endless(48 << 20, tail))
    assert peak <= scanner.RING_BYTES + reader.CHUNK + reader.MAX_CARRY
    width = len(b"2024-01-01T00:00:00.0000000Z Requirement already satisfied: pkg in /venv\n")
    assert result.lines == (48 << 20) // width + 1
    assert any("No matching distribution" in c.text for c in result.candidates)


def test_a_log_without_line_feeds_is_cut_not_buffered():
    result, peak = _scan_bounded(_Endless(16 << 20, b"", newlines=False))
    assert result.lines == 1
    assert peak <= scanner.RING_BYTES + reader.CHUNK + reader.MAX_CARRY


def test_stdin_is_read(monkeypatch, capsys):
    data = b"src/a.py:1:1: F401 `os` imported but unused\nFound 1 error.\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, _ = cli(capsys, "diagnose", "-", "--json")
    assert code == 0 and json.loads(out)["class"] == "lint"


def test_log_input_streams_are_closed(tmp_path):
    path = tmp_path / "a.log"
    path.write_text("hello\n")
    (log,) = reader.open_inputs(path)
    assert isinstance(log, LogInput)
    log.stream.close()
