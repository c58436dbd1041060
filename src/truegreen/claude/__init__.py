"""truegreen for Claude Code: the project's hooks, skill and MCP configuration, and the
hooks themselves. An adapter: it calls :mod:`truegreen.api` only. See docs/agents.md."""

from __future__ import annotations
