"""truegreen: turn "the tests pass" into evidence a maintainer can trust.

"Verified" means: passes the sealed exam, no tampering found, no new failures.
It never means "correct".
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
