"""``truegreen report RECEIPT_OR_JSON --format html|md|json``: a stored verification
rendered again; bad inputs (not a verification, a receipt whose hash does not match, not
JSON) are one line and exit 2, and nothing is written."""

from __future__ import annotations

import copy
import json

import pytest

from tests.conftest import cli, git
from tests.report.fixtures import fixture
from truegreen import api, canonical
from truegreen.exam.receipt import make_receipt, write_receipt
from truegreen.repo.git import GitRepo
from truegreen.report.context import collect


def stored(tmp_path, name="escalated"):
    """verification.json and receipt.json as verify --report writes them."""
    doc = fixture(name)
    del doc["receipt"]
    receipt = make_receipt({"repo": "invoicekit"}, copy.deepcopy(doc))
    doc["receipt"] = {"sha256": receipt["sha256"]}
    (tmp_path / "verification.json").write_text(canonical.pretty(doc), encoding="utf-8")
    write_receipt(tmp_path / "receipt.json", receipt)
    return doc, tmp_path / "receipt.json", tmp_path / "verification.json"


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_a_receipt_renders_in_every_format(tmp_path, capsys, fmt) -> None:
    doc, receipt, _ = stored(tmp_path)
    code, out, err = cli(capsys, "report", str(receipt), "--format", fmt)
    assert (code, err) == (0, "")
    assert doc["receipt"]["sha256"] in out and "policy.sensitive_path" in out
    if fmt == "json":
        assert json.loads(out) == doc


def test_a_verification_json_renders_to_a_file(tmp_path, capsys) -> None:
    doc, _, verification = stored(tmp_path, "rejected")
    target = tmp_path / "page.html"
    code, out, err = cli(capsys, "report", str(verification), "-o", str(target))
    assert code == 0 and out == ""
    assert err.strip() == f"truegreen: reject: wrote {target}"
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and doc["receipt"]["sha256"] in page
    result = api.render_report(api.ReportRequest(file=verification, format="md"))
    assert (result.source, result.decision) == ("verification", "reject")


def _refused(capsys, tmp_path, path, *extra: str) -> str:
    target = tmp_path / "out.html"
    code, out, err = cli(capsys, "report", str(path), "-o", str(target), *extra)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("truegreen: error: ")
    assert not target.exists()  # nothing written, not even half
    return err


def test_a_receipt_whose_hash_does_not_match_is_refused(tmp_path, capsys) -> None:
    _, receipt, _ = stored(tmp_path)
    data = json.loads(receipt.read_text())
    data["outputs"]["decision"] = "approve"  # edited after it was written
    receipt.write_text(json.dumps(data), encoding="utf-8")
    err = _refused(capsys, tmp_path, receipt)
    assert "does not match its sha256" in err


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ('{"schema": "truegreen.run/1", "tests": []}', "is not a verification (schema: 'truegreen.run/1')"),
        ("[1, 2]", "is not a verification (schema: 'list')"),
        ("not json at all", "is not JSON"),
        ('{"schema": "truegreen.verification/1", "repo": "x"}', "is not a well-formed truegreen.verification/1"),
    ],
)  # fmt: skip
def test_a_file_that_is_not_a_verification_is_refused(tmp_path, capsys, content, said) -> None:
    path = tmp_path / "thing.json"
    path.write_text(content, encoding="utf-8")
    assert said in _refused(capsys, tmp_path, path)


def test_a_missing_file_and_an_unknown_format_are_refused(tmp_path, capsys) -> None:
    assert "cannot read" in _refused(capsys, tmp_path, tmp_path / "nope.json")
    code, out, err = cli(capsys, "report", str(tmp_path / "x.json"), "--format", "pdf")
    assert code == 2 and out == "" and "pdf" in err


def test_the_context_comes_from_the_repository(make_project) -> None:
    root = make_project({"src/m.py": "def f(x):\n    return x > 1\n"})
    base = git(root, "rev-parse", "HEAD")
    (root / "src/m.py").write_text("def f(x):\n    return x >= 1\n", encoding="utf-8")
    git(root, "commit", "-qam", "fix")
    head = git(root, "rev-parse", "HEAD")
    doc = fixture("escalated")
    doc.update(base=base, head=head)
    doc["strength"]["survivors"] = [{"file": "src/m.py", "line": 2, "mutation": "x"}]
    ctx = collect(GitRepo(root), doc, [])
    assert ctx.diff is not None and "+    return x >= 1" in ctx.diff
    assert ctx.survivors[0].file == "src/m.py"
    assert ctx.missing == "the exam's code is not included (its exam is not in the ledger)"
    doc.update(head="3" * 40)
    assert "is not in" in (collect(GitRepo(root), doc, []).missing or "")
