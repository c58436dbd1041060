"""truegreen for coding agents over the Model Context Protocol (``truegreen mcp``).

An adapter, like the command line: it turns tool calls into :mod:`truegreen.api` calls
and results into structured tool results, with no logic of its own. It needs the ``mcp``
extra (``pip install 'truegreen[mcp]'``); :func:`truegreen.mcp.server.build` makes the
server, :func:`truegreen.mcp.server.serve` runs it on stdio. See docs/agents.md.
"""

from __future__ import annotations
