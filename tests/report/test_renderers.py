"""One report model, three renderers: they agree (decision, reasons, receipt hash in each),
the Markdown fits a pull-request comment without cutting a table mid-row, the HTML page
reaches for nothing on the network and escapes what it shows, a hidden exam's code never
appears; and every renderer is deterministic."""

from __future__ import annotations

import re
from html import unescape

import pytest

from tests.report.fixtures import DIFF, EXAM_TEXT, FIXTURES, context, fixture
from truegreen import canonical
from truegreen.report import html, markdown
from truegreen.report.model import build, parse_diff


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_the_three_renderers_agree(name: str) -> None:
    doc = fixture(name)
    ctx = context(doc)
    outputs = {
        "json": canonical.pretty(doc),
        "md": markdown.render(doc, ctx),
        "html": html.render(doc, ctx),
    }
    for kind, text in outputs.items():
        assert doc["decision"] in text, kind
        assert doc["receipt"]["sha256"] in text, kind
        for r in doc["reasons"]:
            assert r["code"] in text, (kind, r["code"])
    # the decision and the one-line reason come first in the two pages
    headline = build(doc).headline
    assert outputs["md"].splitlines()[0].endswith(f"-> {doc['decision']}")
    assert headline.split(":")[0] in outputs["md"].splitlines()[2]
    first = outputs["html"].index('id="decision"')
    assert first < outputs["html"].index('id="layers"')
    # deterministic: the same document and context give the same bytes
    assert markdown.render(doc, ctx) == outputs["md"]
    assert html.render(doc, ctx) == outputs["html"]


def test_the_html_page_needs_no_network_and_escapes_what_it_shows() -> None:
    doc = fixture("rejected")
    doc["reasons"][1]["detail"] = '<script>alert("x")</script> <img src="http://evil/x.png">'
    page = html.render(doc, context(doc))
    assert "<script" not in page and "<img" not in page
    assert "&lt;script&gt;" in page
    # no tag reaches out: no src, href, url() or @import anywhere outside the escaped text
    assert not re.search(r"""<[^>]*\s(src|href)\s*=|url\(|@import""", page)
    assert "<style>" in page and "prefers-color-scheme: dark" in page and "@media print" in page
    for name in FIXTURES:
        clean = html.render(fixture(name), context(fixture(name)))
        assert "http" not in clean and "<script" not in clean


def test_the_marked_lines_of_the_diff() -> None:
    doc = fixture("escalated")
    report = build(doc, context(doc))
    assert report.diff is not None
    marks = {
        (f.path, line.new or line.old, line.kind): line.marks
        for f in report.diff
        for line in f.lines
        if line.marks
    }
    assert marks[("invoicekit/discounts.py", 12, "add")] == ("survivor",)
    assert marks[("tests/test_issue_42.py", 5, "add")] == ("exam",)
    rejected = build(fixture("rejected"), context(fixture("rejected")))
    assert rejected.diff is not None
    tampered = [
        (f.path, line.new) for f in rejected.diff for line in f.lines if "tamper" in line.marks
    ]
    assert tampered == [("tests/test_issue_42.py", 4)]


def test_a_diff_is_read_file_by_file_with_its_line_numbers() -> None:
    files = parse_diff(DIFF)
    assert [path for path, _ in files] == ["invoicekit/discounts.py", "tests/test_issue_42.py"]
    lines = files[0][1]
    assert [(x.kind, x.old, x.new) for x in lines if x.kind in ("add", "del")] == [
        ("del", 12, None),
        ("add", None, 12),
    ]


@pytest.mark.parametrize("render", [markdown.render, html.render])
def test_a_hidden_exams_code_is_never_shown(render) -> None:
    doc = fixture("approved")
    shown = render(doc, context(doc))
    assert "assert bulk_discount_percent(10) == 5" in shown
    hidden = render(doc, context(doc, hidden=True))
    # the exam's own file is not in the diff of this context's change either way;
    # its code block is gone and the page says why
    assert hidden.count("assert bulk_discount_percent(10) == 5") == shown.count(
        "assert bulk_discount_percent(10) == 5"
    ) - EXAM_TEXT.count("assert bulk_discount_percent(10) == 5")
    assert "a hidden exam; its code is not shown" in hidden


def test_the_markdown_fits_a_comment_and_never_cuts_a_table_mid_row() -> None:
    doc = fixture("rejected")
    doc["reasons"] = [
        {"code": "tamper.assert_weakened", "file": f"tests/test_{i}.py", "line": i + 1,
         "detail": f"assertion {i} loosened | with a pipe and some words " * 3}
        for i in range(2000)
    ]  # fmt: skip
    text = markdown.render(doc, context(doc))
    assert len(text) <= markdown.LIMIT
    assert "more reasons left out to fit a pull-request comment: see report.html" in text
    assert doc["receipt"]["sha256"] in text and text.startswith("# truegreen: REFUTED -> reject")
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert rows and all(line.endswith("|") for line in rows)
    for line in rows:  # every row has the cells of its table's header
        assert len(re.split(r"(?<!\\)\|", line)) in (4, 5, 6)


def test_a_small_report_is_not_cut_and_puts_long_parts_in_details() -> None:
    doc = fixture("escalated")
    text = markdown.render(doc, context(doc))
    assert "left out" not in text
    assert (
        "<details><summary><code>invoicekit/discounts.py</code> (2 marked lines)</summary>" in text
    )
    assert text.count("<details>") == text.count("</details>")


def test_without_context_the_report_says_what_is_missing() -> None:
    doc = fixture("approved")
    for text in (markdown.render(doc), unescape(html.render(doc))):
        assert "the diff and the exam's code are not included" in text


def test_a_gates_violation_marks_its_line_and_a_policy_rule_its_file() -> None:
    doc = fixture("escalated")
    doc["reasons"] += [
        {"code": "gate.ruff", "file": "invoicekit/discounts.py", "line": 12, "detail": "F401"},
        {"code": "policy.file_category", "file": "tests/test_issue_42.py", "line": None,
         "detail": "x"},
    ]  # fmt: skip
    report = build(doc, context(doc))
    assert report.diff is not None
    files = {f.path: f for f in report.diff}
    assert files["tests/test_issue_42.py"].marks == ("policy",)
    line_12 = [x for x in files["invoicekit/discounts.py"].lines if x.new == 12]
    assert [x.marks for x in line_12] == [("gate", "survivor")]
    page = html.render(doc, context(doc))
    assert 'class="add m-gate m-survivor"' in page


@pytest.mark.parametrize("hidden", [False, True])
def test_the_context_never_carries_a_hidden_exams_code(hidden: bool) -> None:
    from tests.exam.conftest import TEST_FILE, exam_fields
    from truegreen.model.exam import Exam
    from truegreen.report.context import exam_code

    exam = Exam.create(**exam_fields(hidden=hidden))
    (code,) = exam_code([exam])
    assert (code.id, code.path, code.hidden) == (exam.id, "tests/test_total.py", hidden)
    assert code.text == (None if hidden else TEST_FILE)
    doc = fixture("approved")
    doc["exams"][0]["id"] = exam.id
    from truegreen.report.model import ReportContext

    for render in (markdown.render, html.render):
        text = render(doc, ReportContext(exams=(code,)))
        assert ("assert total([1, 2]) == 3" in unescape(text)) is not hidden
