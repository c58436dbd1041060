"""``python -m truegreen``."""

from truegreen.cli import main

if __name__ == "__main__":
    main()
