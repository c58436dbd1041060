"""Money as integer cents: parsing and formatting."""

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation


def parse_amount(text):
    """'12.34' or '$12.34' or '1,234.50' -> cents (int)."""
    cleaned = text.strip().lstrip("$").replace(",", "")
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        raise ValueError(f"not an amount: {text!r}") from None
    return int((value * 100).quantize(Decimal("1"), rounding=ROUND_HALF_UP))


def format_cents(cents):
    """1234567 -> '$12,345.67'; negative amounts get a leading minus."""
    sign = "-" if cents < 0 else ""
    dollars, rest = divmod(abs(cents), 100)
    return f"{sign}${dollars:,}.{rest:02d}"


def percent_of(cents, percent):
    """``percent`` % of ``cents``, rounded half up to a whole cent."""
    exact = Decimal(cents) * Decimal(percent) / Decimal(100)
    return int(exact.quantize(Decimal("1"), rounding=ROUND_HALF_UP))
