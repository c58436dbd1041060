"""What the first bytes of an input say it is: a text log, a compressed log truegreen opens
(gzip, xz, bzip2), or something it refuses with a message that names what it saw and what
to do (exit 2), never a diagnosis of garbled text.

Known formats are told by their magic numbers: archives (zip, tar, 7z, RAR), other
compressors (zstd, lz4), images, PDF, executables, SQLite, and UTF-16/UTF-32 text. Anything
else is judged on its first 64 KiB: text logs, even with ANSI colours, progress bars and
some Latin-1, hold almost no control bytes and are nearly all valid UTF-8 (of the 263 real
CI logs of the development corpus, at most 10 control bytes in a whole file and 2 bytes in
64 KiB that are not UTF-8); compressed or random data is about 8 % such control bytes and
40 % not UTF-8.
"""

from __future__ import annotations

import lzma
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, cast

#: Errors a decompressing stream raises on a corrupt or cut input.
DECOMPRESS_ERRORS: tuple[type[BaseException], ...] = (
    OSError,
    EOFError,
    zlib.error,
    lzma.LZMAError,
)

#: More control bytes (NUL and the others text does not use, see ``_TEXT_CONTROLS``) than
#: this share of the sample: binary.
MAX_CONTROL_SHARE = 0.01
#: More bytes that are not UTF-8 than this share of the sample: binary (or text in another
#: encoding, which is said in the hint).
MAX_NOT_UTF8_SHARE = 0.30

#: control bytes terminals and CI logs use: tab, LF, VT, FF, CR, backspace, ESC, BEL (ends
#: an OSC sequence such as a hyperlink), SO/SI (``tput sgr0`` on some terminals)
_TEXT_CONTROLS = b"\t\n\x0b\x0c\r\x08\x1b\x07\x0e\x0f"
_CONTROLS = bytes(b for b in range(32) if b not in _TEXT_CONTROLS) + b"\x7f"


def _gunzip(stream: IO[bytes]) -> IO[bytes]:
    import gzip

    return cast("IO[bytes]", gzip.GzipFile(fileobj=stream, mode="rb"))


def _unxz(stream: IO[bytes]) -> IO[bytes]:
    return lzma.LZMAFile(stream)


def _bunzip2(stream: IO[bytes]) -> IO[bytes]:
    import bz2

    return bz2.BZ2File(stream)


@dataclass(frozen=True)
class Kind:
    """A format told by its magic number. ``what`` completes "NAME looks like ...";
    ``hint`` says what to do (``{name}`` is the input's name); ``open`` decompresses it."""

    what: str
    magic: bytes
    hint: str = ""
    offset: int = 0
    open: Callable[[IO[bytes]], IO[bytes]] | None = None
    #: more bytes that must follow the magic number (bzip2's block header)
    then: bytes = b""

    def matches(self, head: bytes) -> bool:
        at = self.offset + len(self.magic)
        if head[self.offset : at] != self.magic:
            return False
        if self.then:
            return head[at + 1 : at + 1 + len(self.then)] == self.then
        return True


_UNPACK = "extract the log from it first"
KINDS: tuple[Kind, ...] = (
    # opened (one layer; the hint is for a compressed file inside a compressed file)
    Kind(
        "a gzip-compressed file", b"\x1f\x8b", "decompress it first: gzip -dc {name}", open=_gunzip
    ),
    Kind(
        "an xz-compressed file", b"\xfd7zXZ\x00", "decompress it first: xz -dc {name}", open=_unxz
    ),
    # "BZh", the block size digit, then the block header's magic (pi in BCD)
    Kind(
        "a bzip2-compressed file",
        b"BZh",
        "decompress it first: bzip2 -dc {name}",
        then=b"\x31\x41\x59\x26\x53\x59",
        open=_bunzip2,
    ),
    Kind("a zstd-compressed file", b"\x28\xb5\x2f\xfd", "decompress it first: zstd -d {name}"),
    Kind("an lz4-compressed file", b"\x04\x22\x4d\x18", "decompress it first: lz4 -d {name}"),
    Kind(
        "a zip archive",
        b"PK\x03\x04",
        "give the zip as a file path (the logs of a GitHub Actions run are read from one), "
        "or " + _UNPACK + ": unzip {name}",
    ),
    Kind("an empty zip archive", b"PK\x05\x06", "give the log of a failed job"),
    Kind("a 7z archive", b"7z\xbc\xaf\x27\x1c", _UNPACK + ": 7z x {name}"),
    Kind("a RAR archive", b"Rar!\x1a\x07", _UNPACK + ": unrar x {name}"),
    Kind("a tar archive", b"ustar", _UNPACK + ": tar -xf {name}", offset=257),
    Kind(
        "a PNG image", b"\x89PNG\r\n\x1a\n", "give the log's text; a picture of it cannot be read"
    ),
    Kind("a JPEG image", b"\xff\xd8\xff", "give the log's text; a picture of it cannot be read"),
    Kind("a GIF image", b"GIF8", "give the log's text; a picture of it cannot be read"),
    Kind("a PDF document", b"%PDF-", "give the log as text (the raw log, or its text copied out)"),
    Kind("an ELF executable", b"\x7fELF", "give the log of the job, not a program"),
    Kind("an SQLite database", b"SQLite format 3\x00", "give the log of the job"),
    Kind(
        "UTF-32 text",
        b"\xff\xfe\x00\x00",
        "convert it to UTF-8 first: iconv -f UTF-32 -t UTF-8 {name}",
    ),
    Kind(
        "UTF-32 text",
        b"\x00\x00\xfe\xff",
        "convert it to UTF-8 first: iconv -f UTF-32 -t UTF-8 {name}",
    ),
    Kind(
        "UTF-16 text",
        b"\xff\xfe",
        "convert it to UTF-8 first: iconv -f UTF-16 -t UTF-8 {name}",
    ),
    Kind(
        "UTF-16 text",
        b"\xfe\xff",
        "convert it to UTF-8 first: iconv -f UTF-16 -t UTF-8 {name}",
    ),
)


def kind_of(head: bytes) -> Kind | None:
    """The known format ``head`` (an input's first bytes) starts with, or None."""
    return next((k for k in KINDS if k.matches(head)), None)


def not_text(head: bytes) -> tuple[str, str] | None:
    """Why ``head`` (an input's first bytes, no known format) is not a text log, as
    (what it looks like, what to do), or None."""
    sample = head[:65536]
    if not sample:
        return None
    size = f"{len(sample) // 1024} KiB" if len(sample) >= 2048 else f"{len(sample)} bytes"
    # UTF-16 of mostly ASCII text: every other byte is NUL, the others are not
    nul_even, nul_odd = sample[0::2].count(0), sample[1::2].count(0)
    half = max(len(sample) // 2, 1)
    if len(sample) >= 16 and max(nul_even, nul_odd) > 0.4 * half > 20 * min(nul_even, nul_odd):
        codec = "UTF-16LE" if nul_odd > nul_even else "UTF-16BE"
        return (
            f"{codec} text without a byte-order mark",
            f"convert it to UTF-8 first: iconv -f {codec} -t UTF-8 {{name}}",
        )
    hint = "give the text of a CI log (a compressed log: decompress it first)"
    controls = len(sample) - len(sample.translate(None, _CONTROLS))
    if controls >= 8 and controls > MAX_CONTROL_SHARE * len(sample):
        share = 100 * controls / len(sample)
        return f"binary data ({share:.0f}% of its first {size} are control or NUL bytes)", hint
    if not sample.isascii():
        text = sample.decode("utf-8", "surrogateescape")
        bad = len(sample) - len(text.encode("utf-8", "ignore"))
        if bad > MAX_NOT_UTF8_SHARE * len(sample):
            share = 100 * bad / len(sample)
            return (
                f"binary data ({share:.0f}% of its first {size} is not UTF-8)",
                hint + "; text in another encoding: convert it first "
                "(iconv -f ENCODING -t UTF-8 {name})",
            )
    return None
