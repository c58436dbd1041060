"""``python -m truegreen_trace_launch ARGS``: ``python -m pytest ARGS`` with the tracer
imported first.

pytest imports some of a project's modules before it imports any ``-p`` plugin: a warning
filter in its configuration that names a class of the project
(``filterwarnings = ignore::pkg.warnings.Deprecated``) is resolved by importing ``pkg``.
Those modules would run their bodies before the tracer's import hook is installed, and not
one of their lines would be measured. Importing the tracer here, before pytest parses its
configuration, installs the hook first; ``-p truegreen_trace`` then registers the module
already imported.
"""

import sys

import pytest
import truegreen_trace  # noqa: F401  (installs the import hook; the plugin of this run)

if __name__ == "__main__":
    code = pytest.main()  # the arguments: sys.argv[1:], as `python -m pytest` reads them
    sys.stdout.flush()
    raise SystemExit(code)
