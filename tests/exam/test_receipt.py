"""Receipts: canonical JSON with its sha256; `receipt verify` re-hashes it."""

from __future__ import annotations

import json

import pytest

from truegreen import canonical
from truegreen.errors import UsageError
from truegreen.exam.receipt import check_receipt, make_receipt, verify_receipt, write_receipt

INPUTS = {"repo": "github.com/acme/invoices", "base": "a" * 40, "head": "b" * 40, "runs": 3}
OUTPUTS = {"schema": "truegreen.verification/1", "verdict": "verified", "decision": "escalate"}


def test_a_receipt_hashes_everything_but_its_hash():
    receipt = make_receipt(INPUTS, OUTPUTS)
    assert receipt["schema"] == "truegreen.receipt/1"
    body = {k: v for k, v in receipt.items() if k != "sha256"}
    assert receipt["sha256"] == canonical.digest(body)
    assert check_receipt(receipt).ok


def test_the_same_inputs_give_the_same_bytes(tmp_path):
    a = write_receipt(tmp_path / "a.json", make_receipt(INPUTS, OUTPUTS))
    b = write_receipt(tmp_path / "b.json", make_receipt(dict(reversed(INPUTS.items())), OUTPUTS))
    assert a.read_bytes() == b.read_bytes()
    assert not list(tmp_path.glob(".receipt-*"))  # no temporary file left behind


def test_verify_accepts_the_written_file(tmp_path):
    path = write_receipt(tmp_path / "r" / "receipt.json", make_receipt(INPUTS, OUTPUTS))
    check = verify_receipt(path)
    assert check.ok and "ok" in check.message


def test_verify_catches_a_one_byte_edit(tmp_path):
    path = write_receipt(tmp_path / "receipt.json", make_receipt(INPUTS, OUTPUTS))
    data = path.read_bytes()
    at = data.index(b'"verified"') + 1
    path.write_bytes(data[:at] + b"V" + data[at + 1 :])
    check = verify_receipt(path)
    assert not check.ok
    assert "does not match its sha256" in check.message
    assert check.recorded != check.actual


def test_reformatting_is_not_an_edit(tmp_path):
    path = tmp_path / "receipt.json"
    path.write_text(json.dumps(make_receipt(INPUTS, OUTPUTS), indent=7), encoding="utf-8")
    assert verify_receipt(path).ok


@pytest.mark.parametrize(
    "content, message",
    [
        (b"not json at all", "is not a JSON receipt"),
        (b"\xff\xfe", "is not a JSON receipt"),
        (b"[1, 2]", "is not a truegreen.receipt/1 receipt"),
        (b'{"schema": "truegreen.verification/1"}', "is not a truegreen.receipt/1 receipt"),
        (b'{"schema": "truegreen.receipt/1", "inputs": {}}', "not a well-formed receipt"),
        (
            b'{"schema": "truegreen.receipt/1", "inputs": {}, "inputs": {}, "outputs": {}, "sha256": ""}',
            "appears twice",
        ),
        (b'{"schema": "truegreen.receipt/1", "inputs": NaN}', "is not a JSON receipt"),
    ],
)
def test_a_file_that_is_not_a_receipt_is_a_usage_error(tmp_path, content, message):
    path = tmp_path / "r.json"
    path.write_bytes(content)
    with pytest.raises(UsageError, match=message):
        verify_receipt(path)


def test_a_missing_file_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="cannot read"):
        verify_receipt(tmp_path / "nope.json")


def test_a_receipt_that_does_not_verify_is_not_written(tmp_path):
    receipt = make_receipt(INPUTS, OUTPUTS)
    receipt["outputs"] = {"verdict": "refuted"}
    with pytest.raises(UsageError, match="does not verify"):
        write_receipt(tmp_path / "r.json", receipt)
    assert not (tmp_path / "r.json").exists()
