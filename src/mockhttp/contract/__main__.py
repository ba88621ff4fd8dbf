"""``python -m mockhttp.contract``: the ``mockhttp check`` command on its own."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .._cli._check import configure_parser, run


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` as ``mockhttp check`` arguments and run the check."""
    parser = argparse.ArgumentParser(prog="mockhttp check")
    configure_parser(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
