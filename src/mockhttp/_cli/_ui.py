"""``mockhttp ui RECORDING... [--out FILE]``: recordings as a saved journal that the
dashboard opens offline (``record/_journal.py``; docs/dashboard.md, "A recording")."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from .._core._errors import MockfileError
from .._core._mock import Mock
from .._mockfile._load import files, load
from .._server._dashboard import UI_DIR
from ..record._journal import journal_of

__all__ = ["configure_parser", "run"]


def configure_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="RECORDING",
        help="recorded mock files (mockhttp record's), or folders of them",
    )
    parser.add_argument(
        "--out",
        default="-",
        metavar="FILE",
        help="write the journal (JSON) to FILE; '-' (the default): to stdout",
    )


def run(args: argparse.Namespace) -> int:
    mocks: list[Mock] = []
    names: list[str] = []
    try:
        for path in files(args.paths):
            found = load(path)
            mocks += found
            names += [str(path)] * len(found)
    except MockfileError as exc:
        print(exc, file=sys.stderr)
        return 1
    journal = journal_of(mocks, time.time(), names)
    if not journal["calls"]:
        print(f"mockhttp ui: no recordings in {', '.join(args.paths)}", file=sys.stderr)
        return 1
    text = json.dumps(journal, ensure_ascii=False, indent=1) + "\n"
    count = len(journal["calls"])
    if args.out == "-":
        sys.stdout.write(text)
        where = "the journal above"
    else:
        Path(args.out).write_text(text, encoding="utf-8")
        where = args.out
    page = (UI_DIR / "index.html").as_uri()
    print(
        f"mockhttp: {count} recorded exchange{'s' if count != 1 else ''}; open {page} "
        f"and choose {where} with 'Open a saved journal'",
        file=sys.stderr,
    )
    return 0
