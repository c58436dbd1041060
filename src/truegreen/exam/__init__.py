"""Exams: sealing, the exam store, the hash-chained ledger and receipts.

Import the submodules directly (``from truegreen.exam.store import Ledger``).
"""
