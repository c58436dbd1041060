"""``python -m truegreen``."""

from truegreen._console import run

if __name__ == "__main__":
    run()
