"""The exam document: a content-derived id, deterministic bytes, integrity that fails closed."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from truegreen import canonical
from truegreen.errors import IntegrityError, UsageError
from truegreen.model.exam import EXAM_ID, Exam, ExamFile, distributions_digest

from .conftest import TEST_FILE, exam_fields


def test_the_document_carries_the_contract_fields_and_its_id(make_exam):
    doc = make_exam().to_json()
    assert doc["schema"] == "truegreen.exam/1"
    for key in ("id", "test", "path", "sha256", "rev", "signature", "hidden", "runs"):
        assert key in doc
    assert EXAM_ID.match(doc["id"])
    assert doc["path"] == "tests/test_total.py"
    assert doc["sha256"] == canonical.sha256_text(TEST_FILE)
    assert [f["path"] for f in doc["files"]] == ["tests/conftest.py", "tests/test_total.py"]


def test_same_inputs_give_byte_identical_json(make_exam):
    a = canonical.pretty(make_exam().to_json())
    b = canonical.pretty(make_exam(files=dict(reversed(exam_fields()["files"].items()))).to_json())
    assert a == b


def test_durations_are_kept_but_not_part_of_the_id(make_exam):
    fast = make_exam(runs=[{"outcome": "failed", "signature": "s", "duration": 0.1}])
    slow = make_exam(runs=[{"outcome": "failed", "signature": "s", "duration": 2.123456789}])
    assert fast.id == slow.id
    assert slow.to_json()["runs"][0]["duration"] == 2.123


@pytest.mark.parametrize(
    "change",
    [
        {"files": {**exam_fields()["files"], "tests/test_total.py": TEST_FILE + "# edited\n"}},
        {"hidden": True},
        {"rev": "b" * 40},
        {"runs": [{"outcome": "failed", "signature": "other"}]},
        {"issue": "43"},
    ],
)
def test_any_change_of_content_changes_the_id(make_exam, change):
    assert make_exam(**change).id != make_exam().id


def test_a_file_is_hashed_as_its_bytes_crlf_included():
    f = ExamFile.of("tests/test_x.py", b"x = 1\r\n")
    assert f.content == "x = 1\r\n"
    assert f.sha256 == canonical.sha256_bytes(b"x = 1\r\n")


def _edit(doc: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    target = doc
    keys = path.split(".")
    for key in keys[:-1]:
        target = target[int(key)] if isinstance(target, list) else target[key]
    last = keys[-1]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return doc


@pytest.mark.parametrize(
    "path, value, message",
    [
        # The content changed, its recorded hash did not.
        ("files.1.content", TEST_FILE + "\n", "does not match its sha256"),
        ("files.0.content", "import os\n", "does not match its sha256"),
        ("sha256", "0" * 64, "sha256 does not match its test file"),
        # A flag flipped: every file hash is fine, the id is not.
        ("hidden", True, "does not match its content"),
        ("runs.0.outcome", "passed", "does not match its content"),
        ("id", "ex-0000000000000000", "does not match its content"),
        # Shapes that are not an exam at all.
        ("hidden", "yes", "not a valid truegreen.exam/1"),
        ("extra", 1, "not a valid truegreen.exam/1"),
        ("schema", "truegreen.exam/2", "not a truegreen.exam/1 document"),
        ("test", "tests/other.py::test_total", "is not in its file"),
    ],
)
def test_an_edited_document_fails_closed(make_exam, path, value, message):
    doc = _edit(make_exam().to_json(), path, value)
    with pytest.raises(IntegrityError, match=message):
        Exam.from_json(doc)


def test_rehashed_file_is_still_caught_by_the_id(make_exam):
    doc = make_exam().to_json()
    doc["files"][1]["content"] = TEST_FILE.replace("3", "4")
    doc["files"][1]["sha256"] = canonical.sha256_text(doc["files"][1]["content"])
    doc["sha256"] = doc["files"][1]["sha256"]
    with pytest.raises(IntegrityError, match="does not match its content"):
        Exam.from_json(doc)


def test_a_round_trip_through_json_text_keeps_the_exam(make_exam):
    exam = make_exam()
    assert Exam.from_json(json.loads(canonical.dumps(exam.to_json()))) == exam


@pytest.mark.parametrize(
    "change, message",
    [
        ({"test": "tests/test_total.py"}, "is not a pytest node id"),
        ({"test": "tests/test_other.py::test_x"}, "do not include its test file"),
        ({"files": {"../evil.py": "x", "tests/test_total.py": "y"}}, "not a path relative"),
        ({"files": {"tests/test_total.py": b"\xff\xfe"}}, "not UTF-8"),
        ({"rev": "main"}, "rev"),
        ({"runs": []}, "runs"),
        ({"runs": [{"outcome": "exploded"}]}, "outcome"),
    ],
)
def test_create_refuses_bad_input(make_exam, change, message):
    with pytest.raises(UsageError, match=message):
        make_exam(**change)


def test_distributions_digest_ignores_order_and_name_spelling():
    a = distributions_digest([("Foo_Bar", "1.0"), ("pytest", "8")])
    b = distributions_digest([("pytest", "8"), ("foo.bar", "1.0")])
    assert a == b
    assert a != distributions_digest([("pytest", "8")])
