"""The MCP server's tests use the engine API tests' calc project."""

from tests.api.conftest import calc_project

__all__ = ["calc_project"]
