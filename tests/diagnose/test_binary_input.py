"""What is not a text log is named and refused (one line, exit 2), never diagnosed as
"unknown" with garbled evidence; compressed logs are opened; text with odd bytes is read."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import random
import tarfile
import zipfile
import zlib
from pathlib import Path

import pytest

from tests.conftest import cli
from truegreen.diagnose import diagnose_bytes, sniff

LOG = (
    b"2024-05-01T10:00:00.0000000Z ##[group]Run pip install nosuch==1.0\n"
    b"2024-05-01T10:00:00.0000000Z pip install nosuch==1.0\n"
    b"2024-05-01T10:00:00.0000000Z ##[endgroup]\n"
    b"2024-05-01T10:00:01.0000000Z ERROR: Could not find a version that satisfies the"
    b" requirement nosuch==1.0 (from versions: none)\n"
    b"2024-05-01T10:00:01.0000000Z ERROR: No matching distribution found for nosuch==1.0\n"
    b"2024-05-01T10:00:02.0000000Z ##[error]Process completed with exit code 1.\n"
)
CORPORA = Path(__file__).parent


def _random(n: int = 20000) -> bytes:
    return random.Random(33).randbytes(n)


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    ihdr = (1).to_bytes(4, "big") * 2 + bytes([8, 2, 0, 0, 0])
    idat = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def _tar() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("job.log")
        info.size = len(LOG)
        tar.addfile(info, io.BytesIO(LOG))
    return buf.getvalue()


def _zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("1_build.txt", LOG)
    return buf.getvalue()


#: (label, bytes, what the one line must say); zstd and lz4 frames as the tools write them
REFUSED = [
    ("random bytes", _random(), "looks like binary data"),
    ("random bytes, short", _random(300), "looks like binary data"),
    (
        "zstd",
        b"(\xb5/\xfd\x04X\xb1\x01\x00ERROR: No matching distribution found for nosuch==1.0\n;\x88?\x00",
        "looks like a zstd-compressed file",
    ),
    (
        "lz4",
        b'\x04"M\x18d@\xa76\x00\x00\x80ERROR: No matching distribution found for nosuch==1.0\n'
        b"\x00\x00\x00\x00\x1a\x16)\xc6",
        "looks like an lz4-compressed file",
    ),
    ("tar", _tar(), "looks like a tar archive"),
    ("7z", b"7z\xbc\xaf\x27\x1c\x00\x04" + _random(200), "looks like a 7z archive"),
    ("png", _png(), "looks like a PNG image"),
    ("pdf", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n", "looks like a PDF document"),
    ("utf-16 with a BOM", "ERROR: boom\n".encode("utf-16"), "looks like UTF-16 text"),
    ("utf-16 without a BOM", ("ERROR: boom\n" * 20).encode("utf-16-le"), "UTF-16LE text without"),
    ("utf-32", "ERROR: boom\n".encode("utf-32"), "looks like UTF-32 text"),
    ("gzip inside xz", lzma.compress(gzip.compress(LOG)), "looks like a gzip-compressed file"),
    ("corrupt xz", b"\xfd7zXZ\x00" + _random(500), "is not a readable xz-compressed file"),
    ("xz of random bytes", lzma.compress(_random()), "(decompressed) looks like binary data"),
    (
        "cyrillic code page",
        "Сборка не удалась: тесты упали\n".encode("cp1251") * 50,
        "convert it first (iconv -f ENCODING -t UTF-8",
    ),
]


@pytest.mark.parametrize("content, message", [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_what_is_not_a_text_log_is_named_and_refused(tmp_path, capsys, content, message):
    path = tmp_path / "job.log"
    path.write_bytes(content)
    code, out, err = cli(capsys, "diagnose", str(path), "--json")
    assert (code, out) == (2, "")
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    "content, message",
    [
        (_random(), "looks like binary data"),
        (lzma.compress(_random()), "looks like binary data"),
        (_zip(), "give the zip as a file path"),
        (b"\x28\xb5\x2f\xfd" + _random(100), "decompress it first: zstd -d FILE"),
    ],
    ids=["random", "xz of random bytes", "zip", "zstd"],
)
def test_stdin_is_checked_the_same_way(monkeypatch, capsys, content, message):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(content)))
    code, out, err = cli(capsys, "diagnose", "-")
    assert (code, out) == (2, "")
    assert message in err and "Traceback" not in err


def test_a_hint_says_what_to_run_on_the_file(tmp_path, capsys):
    path = tmp_path / "job.log.zst"
    path.write_bytes(b"\x28\xb5\x2f\xfd" + _random(100))
    _, _, err = cli(capsys, "diagnose", str(path))
    assert f"{path} looks like a zstd-compressed file, not a text log" in err
    assert f"decompress it first: zstd -d {path}" in err


@pytest.mark.parametrize(
    "compress",
    [gzip.compress, lzma.compress, bz2.compress],
    ids=["gzip", "xz", "bzip2"],
)
@pytest.mark.parametrize("via", ["path", "stdin"])
def test_compressed_logs_are_opened(tmp_path, monkeypatch, capsys, compress, via):
    data = compress(LOG)
    if via == "stdin":
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
        args = ["-"]
    else:
        path = tmp_path / "job.log.z"
        path.write_bytes(data)
        args = [str(path)]
    code, out, _ = cli(capsys, "diagnose", *args, "--json")
    assert code == 0
    doc = json.loads(out)
    plain = diagnose_bytes(LOG, doc["source"]["name"]).document()
    assert doc == plain
    assert doc["class"] == "dependency" and doc["source"]["bytes"] == len(LOG)


@pytest.mark.parametrize("compress", [gzip.compress, lzma.compress, bz2.compress])
def test_a_truncated_compressed_log_is_refused_in_one_line(tmp_path, capsys, compress):
    noise = b"".join(b"%d %s\n" % (i, _random(40).hex().encode()) for i in range(3000))
    data = compress(noise + LOG)
    path = tmp_path / "job.log.z"
    path.write_bytes(data[: len(data) // 2])
    code, out, err = cli(capsys, "diagnose", str(path))
    assert (code, out) == (2, "")
    # cut in the first block (bzip2's are 900 kB) or after it
    assert "cannot read" in err or "is not a readable" in err
    assert "check that the" in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    "text",
    [
        "Prüfung fehlgeschlagen für Straße, Größe überschritten\n",
        "Échec de l'étape « installation » à 10 h 05, réessayé\n",
    ],
    ids=["german", "french"],
)
def test_latin1_logs_are_read(tmp_path, capsys, text):
    path = tmp_path / "job.log"
    path.write_bytes((text * 40).encode("latin-1") + LOG)
    code, out, _ = cli(capsys, "diagnose", str(path), "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["class"] == "dependency"
    assert doc["source"]["non_utf8"] is True


def test_odd_bytes_in_a_utf8_log_are_read(tmp_path, capsys):
    """ANSI colours and sgr0's SI, hyperlinks (OSC ended by BEL), backspaces, a progress
    bar's CRs, box drawing, a NUL, a Latin-1 byte."""
    noise = (
        b"\x1b[32m\xe2\x94\x82 ok \xe2\x94\x82\x1b[m\x0f \x1b]8;;https://x.invalid/a\x07link"
        b"\x1b]8;;\x07 spin\x08\x08 45%\r 90%\r100%\n"
    )
    path = tmp_path / "job.log"
    path.write_bytes(noise * 200 + b"caf\xe9\x00\n" + LOG)
    code, out, _ = cli(capsys, "diagnose", str(path), "--json")
    assert code == 0 and json.loads(out)["class"] == "dependency"


def test_every_log_of_the_corpora_is_text():
    logs = [
        p
        for corpus in ("corpus", "live")
        for p in (CORPORA / corpus).rglob("*")
        if p.is_file() and p.suffix not in (".json", ".md", ".py")
    ]
    assert len(logs) > 500
    refused = {
        p.name: sniff.kind_of(head) or sniff.not_text(head)
        for p in logs
        if (head := p.read_bytes()[:65536]) and (sniff.kind_of(head) or sniff.not_text(head))
    }
    assert refused == {}
