"""Scrubbing secrets out of everything truegreen prints.

The tracer never sends a secret: it redacts values by name (``password``, ``token``,
``api_key``...) and by shape (GitHub/Slack/AWS/OpenAI-style tokens, JWTs, private-key
blocks, long high-entropy strings) and reports only ``{len, sha256}`` of each redacted
string. Text that does not come from the tracer (pytest's failure excerpt, source lines)
is scrubbed here: every substring whose length and sha256 match a reported secret, plus
the same name and shape rules.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "<redacted>"

_SHAPE = re.compile(
    r"(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|"
    r"xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    r"(\.[A-Za-z0-9_-]+)?|-----BEGIN [A-Z ]*PRIVATE KEY-----|AIza[0-9A-Za-z_-]{30,})"
)
_ASSIGN = re.compile(
    r"(?i)((?:pass(?:wd|word|phrase)?|secret|api[_-]?key|apikey|private[_-]?key|"
    r"credential|auth(?!ors?(?![a-z]))|access[_-]?key|client[_-]?secret)\w*['\"]?\s*[:=]\s*)"
    r"(['\"])([^'\"\n]{3,})\2"
)
#: a token or a signature is as often a lexer's or inspect's as a credential: only an
#: opaque literal (8 characters or more, no whitespace, brackets, quotes or markup) is
#: taken for a secret, as the tracer does
_ASSIGN_OPAQUE = re.compile(
    r"(?i)((?:token|signature)\w*['\"]?\s*[:=]\s*)(['\"])([^'\"\s()\[\]{}<>*#`,;]{8,})\2"
)


class Scrubber:
    def __init__(self, secrets: Iterable[Mapping[str, Any]] = ()) -> None:
        self.by_len: dict[int, set[str]] = {}
        for s in secrets:
            try:
                self.by_len.setdefault(int(s["len"]), set()).add(str(s["sha256"]))
            except (KeyError, TypeError, ValueError):
                continue

    def text(self, text: str) -> str:
        text = _SHAPE.sub(REDACTED, text)
        for assign in (_ASSIGN, _ASSIGN_OPAQUE):
            text = assign.sub(lambda m: f"{m.group(1)}{m.group(2)}{REDACTED}{m.group(2)}", text)
        for n, hashes in self.by_len.items():
            if n > len(text):
                continue
            spans: list[tuple[int, int]] = []
            data = text
            i = 0
            while i + n <= len(data):
                if hashlib.sha256(data[i : i + n].encode("utf-8", "replace")).hexdigest() in hashes:
                    spans.append((i, i + n))
                    i += n
                else:
                    i += 1
            for a, b in reversed(spans):
                text = text[:a] + REDACTED + text[b:]
        return text

    def document(self, value: Any) -> Any:
        """``value`` with every string value scrubbed (keys are the document's own
        field names, or dict keys the tracer already rendered safely)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list | tuple):
            return [self.document(v) for v in value]
        if isinstance(value, dict):
            return {k: self.document(v) for k, v in value.items()}
        return value
