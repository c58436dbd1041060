"""The exam for bug #42, written before anyone fixes it."""

from invoicekit.discounts import bulk_discount_percent


def test_bulk_discount_starts_at_exactly_ten():
    assert bulk_discount_percent(10) == 5
    assert bulk_discount_percent(50) == 10
    assert bulk_discount_percent(100) == 15
