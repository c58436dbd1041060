import pytest

from invoicekit.money import format_cents, parse_amount, percent_of


@pytest.mark.parametrize(
    "text, cents",
    [("12.34", 1234), ("$5", 500), ("1,234.50", 123450), (" 0.005 ", 1)],
)
def test_parse_amount(text, cents):
    assert parse_amount(text) == cents


def test_parse_amount_rejects_garbage():
    with pytest.raises(ValueError, match="not an amount"):
        parse_amount("twelve")


def test_format_cents():
    assert format_cents(1234567) == "$12,345.67"
    assert format_cents(-5) == "-$0.05"


def test_percent_of_rounds_half_up():
    assert percent_of(250, 1) == 3
    assert percent_of(1000, 15) == 150
