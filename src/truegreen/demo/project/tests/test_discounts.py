import pytest

from invoicekit.discounts import bulk_discount_percent, coupon_discount


def test_no_discount_for_small_orders():
    assert bulk_discount_percent(1) == 0
    assert bulk_discount_percent(9) == 0


def test_bulk_discount_tiers():
    assert bulk_discount_percent(20) == 5
    assert bulk_discount_percent(75) == 10
    assert bulk_discount_percent(500) == 15


def test_negative_quantity_is_an_error():
    with pytest.raises(ValueError):
        bulk_discount_percent(-1)


def test_coupon_codes():
    assert coupon_discount("welcome10") == 10
    assert coupon_discount(" SPRING5 ") == 5
    assert coupon_discount("NOPE") == 0
    assert coupon_discount(None) == 0


def test_coupons_match_the_published_list():
    import json
    from pathlib import Path

    published = json.loads((Path(__file__).parent / "data" / "coupons.json").read_text())
    for code, percent in published.items():
        assert coupon_discount(code) == percent
