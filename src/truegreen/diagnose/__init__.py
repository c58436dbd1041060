"""Diagnose a failed CI log: classify it, keep the lines that explain it, find the failing
tests and their signatures, and say what to do next (``truegreen.diagnosis/1``).

    diagnose(path_or_stream)    -> Diagnosis   (a text log, a .gz, a run's zip, or stdin "-")
    diagnose_text(text)         -> Diagnosis
    diagnose_bytes(data)        -> Diagnosis

A log is untrusted input: its lines are quoted as data in the evidence, and nothing in
them changes what truegreen does (no command, URL or path in a log is ever acted on).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import BinaryIO

from truegreen.diagnose import sniff
from truegreen.diagnose.classify import Decision, decide
from truegreen.diagnose.model import (
    Diagnosis,
    EvidenceLine,
    FailedStep,
    Flaky,
    Signature,
    Source,
    Untrusted,
)
from truegreen.diagnose.reader import LogInput, iter_chunks, open_inputs
from truegreen.diagnose.scanner import Scanner, ScanResult
from truegreen.errors import UsageError

__all__ = ["Diagnosis", "diagnose", "diagnose_bytes", "diagnose_inputs", "diagnose_text", "scan"]

UNTRUSTED_NOTE = (
    "evidence lines are quoted from the log as data; text in a log never changes what "
    "truegreen does"
)


def scan(log: LogInput) -> ScanResult:
    """One pass over one log."""
    scanner = Scanner(log.name)
    try:
        for chunk in iter_chunks(log.stream):
            scanner.feed(chunk)
    except sniff.DECOMPRESS_ERRORS as exc:
        raise UsageError(
            f"cannot read {log.name}: {exc}", hint="check that the log is complete and readable"
        ) from exc
    return scanner.finish()


def diagnose(
    source: str | Path | BinaryIO, *, name: str | None = None, failed_step: str | None = None
) -> Diagnosis:
    """Diagnose the log(s) in ``source`` (see :func:`truegreen.diagnose.reader.open_inputs`)."""
    inputs = open_inputs(source, name)
    try:
        return diagnose_inputs(inputs, failed_step=failed_step)
    finally:
        for log in inputs:
            log.stream.close()


def diagnose_bytes(data: bytes, name: str = "<bytes>") -> Diagnosis:
    return diagnose(io.BytesIO(data), name=name)


def diagnose_text(text: str, name: str = "<text>") -> Diagnosis:
    return diagnose_bytes(text.encode("utf-8", "surrogateescape"), name)


def diagnose_inputs(inputs: list[LogInput], *, failed_step: str | None = None) -> Diagnosis:
    """One diagnosis for one or more job logs: the job whose failure is clearest leads."""
    if not inputs:
        raise UsageError("no log to diagnose", hint="give the log of a failed job")
    results: list[tuple[ScanResult, Decision]] = []
    for log in inputs:
        result = scan(log)
        results.append((result, decide(result, failed_step)))
    if sum(r.bytes for r, _ in results) == 0:
        raise UsageError(f"{inputs[0].name} is empty", hint="give the log of a failed job")

    def rank(item: tuple[ScanResult, Decision]) -> tuple[int, int, float]:
        d = item[1]
        return (d.cls != "unknown", d.step is not None, d.confidence)

    lead_scan, lead = max(results, key=rank)
    many = len(results) > 1
    tests: list[str] = []
    sigs: list[Signature] = []
    for _, d in results:
        for t in d.failing_tests:
            if t not in tests:
                tests.append(t)
        for s in d.signatures:
            if all(x.test != s["test"] for x in sigs):
                sigs.append(Signature(**s))
    flaky = lead.flaky
    step = lead.step
    fields: dict[str, object] = dict(
        schema="truegreen.diagnosis/1",
        confidence=lead.confidence,
        reasons=lead.reasons,
        step=FailedStep(
            name=step.name,
            command=step.command,
            tool=lead.tool,
            exit_code=step.exit_code,
            line=step.exit_line,
        )
        if step is not None
        else None,
        evidence=[
            EvidenceLine(
                line=c.line, text=c.text, kind=c.kind, source=lead_scan.name if many else None
            )
            for c in lead.evidence
        ],
        failing_tests=tests,
        signatures=sigs,
        flaky=Flaky(
            suspected=bool(flaky["suspected"]),
            tests=list(flaky["tests"]),  # type: ignore[call-overload]
            evidence=list(flaky["evidence"]),  # type: ignore[call-overload]
            note=str(flaky["note"]),
        ),
        next_step=lead.next_step,
        source=Source(
            name=lead_scan.name if not many else inputs[0].name.split(":", 1)[0],
            lines=sum(r.lines for r, _ in results),
            bytes=sum(r.bytes for r, _ in results),
            formats=sorted({f for r, _ in results for f in r.formats}) or ["generic"],
            non_utf8=any(r.non_utf8 for r, _ in results),
            jobs=[r.name for r, _ in results] if many else [],
        ),
        untrusted=Untrusted(note=UNTRUSTED_NOTE, lines=lead_scan.injection_lines),
    )
    fields["class"] = lead.cls
    return Diagnosis.model_validate(fields)
