"""Renderers for evidence: Markdown, JSON and the receipt, written to a report directory."""
