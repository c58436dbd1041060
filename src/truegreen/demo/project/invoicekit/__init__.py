"""invoicekit: invoices, discounts and money formatting."""

from invoicekit.discounts import bulk_discount_percent, coupon_discount
from invoicekit.invoice import Invoice, Line
from invoicekit.money import format_cents, parse_amount

__all__ = ["Invoice", "Line", "bulk_discount_percent", "coupon_discount", "format_cents", "parse_amount"]
