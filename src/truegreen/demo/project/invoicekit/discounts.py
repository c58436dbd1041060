"""Discount rules from the price list."""

#: (minimum quantity, percent off), highest tier first
BULK_TIERS = ((100, 15), (50, 10), (10, 5))

COUPONS = {"WELCOME10": 10, "SPRING5": 5}


def bulk_discount_percent(quantity):
    """The bulk discount for ordering ``quantity`` units of one product."""
    if quantity < 0:
        raise ValueError("quantity cannot be negative")
    for minimum, percent in BULK_TIERS:
        if quantity > minimum:
            return percent
    return 0


def coupon_discount(code):
    """Percent off for a coupon code (case-insensitive); unknown codes give 0."""
    if not code:
        return 0
    return COUPONS.get(code.strip().upper(), 0)
