"""The Markdown evidence report for a ``truegreen.verification/1`` document."""

from __future__ import annotations

from typing import Any

from truegreen.verify.verdict import VERIFIED_MEANS

VERDICT_WORDS = {
    "verified": "VERIFIED",
    "refuted": "REFUTED",
    "inconclusive": "INCONCLUSIVE",
}


#: The layers of a verification, in the order they are shown.
LAYERS = ("exam", "tamper", "regression", "gates")

#: Layers that exist only when configured. The JSON document always carries them
#: (``"skipped"``), but a person is shown one only when it ran: "gates skipped" on every
#: verdict reads as if gates had been set up and passed over. A core layer (exam, tamper,
#: regression) that did not run is always shown: its evidence is missing.
OPTIONAL_LAYERS = ("gates",)


def shown_layers(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """(layer, status) pairs a person reads: every core layer, an optional one that ran."""
    layers = doc["layers"]
    return [
        (name, layers.get(name, "skipped"))
        for name in LAYERS
        if name not in OPTIONAL_LAYERS or layers.get(name, "skipped") != "skipped"
    ]


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(doc: dict[str, Any]) -> str:
    """A self-contained Markdown report (deterministic for the same document)."""
    out: list[str] = []
    verdict = doc["verdict"]
    out.append(f"# truegreen: {VERDICT_WORDS.get(verdict, verdict)} -> {doc['decision']}")
    out.append("")
    out.append(f"> {VERIFIED_MEANS}")
    out.append("")
    out.append(f"- repository: `{doc['repo']}`")
    out.append(f"- base: `{doc['base']}`")
    out.append(f"- head: `{doc['head']}`")
    if doc.get("patch_sha256"):
        out.append(f"- patch sha256: `{doc['patch_sha256']}`")
    if doc.get("carried"):
        files = ", ".join(f"`{f}`" for f in doc["carried"])
        out.append(f"- carried from the checkout (git ignores them): {files}")
    if doc.get("receipt"):
        out.append(
            f"- receipt sha256: `{doc['receipt']['sha256']}` (re-check: `truegreen receipt verify receipt.json`)"
        )
    out.append("")
    out.append("## Layers")
    out.append("")
    out.append("| layer | result |")
    out.append("|---|---|")
    for name, status in shown_layers(doc):
        out.append(f"| {name} | {status} |")
    out.append("")
    out.append("## Exams")
    out.append("")
    out.append("| exam | test | base | head |")
    out.append("|---|---|---|---|")
    for e in doc["exams"]:
        base = f"{e['base']['outcome']} x{e['base']['runs']}"
        head = f"{e['head']['outcome']} x{e['head']['runs']}"
        out.append(f"| `{e['id']}` | `{_cell(e['test'])}` | {base} | {head} |")
    out.append("")
    out.append("## Reasons")
    out.append("")
    if not doc["reasons"]:
        out.append("None: every layer passed.")
    for r in doc["reasons"]:
        where = ""
        if r.get("file"):
            where = f" `{r['file']}" + (f":{r['line']}" if r.get("line") else "") + "`"
        out.append(f"- **{r['code']}**{where}: {_cell(r.get('detail', ''))}")
    out.append("")
    reg = doc.get("regression")
    if reg:
        out.append("## Regression")
        out.append("")
        out.append(f"- complete: {'yes' if reg['complete'] else 'no'}")
        out.append(f"- {compared_tests(reg)}")
        for key, label in (
            ("new_failures", "new failures"),
            ("flaky", "flaky (passed on rerun)"),
            ("failing_on_both", "failing on both sides (not counted)"),
            ("collection_errors", "new collection errors"),
        ):
            if reg.get(key):
                out.append(f"- {label}: " + ", ".join(f"`{_cell(t)}`" for t in reg[key]))
        out.append("")
    strength = doc.get("strength")
    out.append("## Exam strength")
    out.append("")
    if strength is None:
        out.append(
            "Not measured: no mutant of a changed line of non-test code could be made, or the exam did not pass on the head."
        )
    else:
        out.append(
            f"The exam killed {strength['killed']} of {strength['mutants']} mutants of the changed lines: **{strength['label']}**."
        )
        for s in strength.get("survivors", []):
            out.append(f"- survived: `{s['file']}:{s['line']}` {_cell(s['mutation'])}")
    out.append("")
    if doc.get("notes"):
        out.append("## Notes")
        out.append("")
        out.extend(f"- {_cell(note)}" for note in doc["notes"])
        out.append("")
    return "\n".join(out)


def compared_tests(reg: dict[str, Any]) -> str:
    """What the regression layer compared, in a sentence (a layer that compared nothing
    must not read as a pass that means something)."""
    n = reg.get("compared", 0)
    if not reg.get("complete", True):
        return "incomplete: a suite run did not finish, so nothing was compared (not a pass)"
    if not n:
        return "no test besides the exams ran on both sides: nothing was compared"
    new, flaky = len(reg.get("new_failures") or []), len(reg.get("flaky") or [])
    counts = [f"{new} new failure{'' if new == 1 else 's'}", f"{flaky} flaky"]
    if reg.get("failing_on_both"):
        counts.append(f"{len(reg['failing_on_both'])} failing on both sides (not counted)")
    text = f"{n} test{' ran' if n == 1 else 's ran'} on both sides: " + ", ".join(counts)
    always = reg.get("always_run")
    if always:
        k = always["tests"]
        text += (
            f"; always-run ({', '.join(always['entries'])}): "
            + (f"{k} test{'' if k == 1 else 's'} among them" if k else "no test")
            + ", run whatever tests / ignore leave out"
        )
    return text
