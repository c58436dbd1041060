"""Invoices: lines, discounts, tax and totals, all in integer cents."""

from dataclasses import dataclass, field

from invoicekit.discounts import bulk_discount_percent, coupon_discount
from invoicekit.money import format_cents, percent_of


@dataclass
class Line:
    sku: str
    unit_cents: int
    quantity: int = 1

    def subtotal(self):
        gross = self.unit_cents * self.quantity
        return gross - percent_of(gross, bulk_discount_percent(self.quantity))


@dataclass
class Invoice:
    lines: list = field(default_factory=list)
    coupon: str = ""
    tax_percent: int = 0

    def add(self, sku, unit_cents, quantity=1):
        self.lines.append(Line(sku, unit_cents, quantity))
        return self

    def subtotal(self):
        return sum(line.subtotal() for line in self.lines)

    def discount(self):
        return percent_of(self.subtotal(), coupon_discount(self.coupon))

    def tax(self):
        return percent_of(self.subtotal() - self.discount(), self.tax_percent)

    def total(self):
        return self.subtotal() - self.discount() + self.tax()

    def summary(self):
        return f"{len(self.lines)} lines, total {format_cents(self.total())}"
