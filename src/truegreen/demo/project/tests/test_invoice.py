from invoicekit.invoice import Invoice


def test_empty_invoice_totals_zero():
    assert Invoice().total() == 0


def test_invoice_with_coupon_and_tax():
    inv = Invoice(coupon="WELCOME10", tax_percent=20).add("pen", 250, 4)
    assert inv.subtotal() == 1000
    assert inv.discount() == 100
    assert inv.tax() == 180
    assert inv.total() == 1080


def test_summary_mentions_total():
    inv = Invoice().add("mug", 1299)
    assert inv.summary() == "1 lines, total $12.99"
