"""``check --profile ag-ui`` against ``@ag-ui/client`` 1.0 on many seeded AG-UI streams.

Usage: ``python scripts/agui_differential.py [--count 10000] [--seed 1]`` (needs ``node``
and the packages .ci/install-agui installs).  Each stream (tests/helpers/agui_differential.py
makes them: valid runs of every event type, half of them broken once) is judged by the
reference client (scripts/agui/verify.mjs: ``HttpAgent`` reading the bytes) and by the
profile; the script prints both tallies and every disagreement, and exits 1 if there is
one: a violation on a stream the client accepts, or none on a stream it rejects.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from mockhttp.contract._agui_schema import EVENT_SCHEMAS
from tests.helpers.agui_differential import (
    Tally,
    compare,
    reference_missing,
    reference_version,
    sequences,
)

BATCH = 2000  # streams a Node process judges


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    missing = reference_missing()
    if missing:
        raise SystemExit(f"agui_differential: {missing}")
    started = time.monotonic()
    cases = list(sequences(args.seed, args.count))
    total = Tally()
    for at in range(0, len(cases), BATCH):
        part = compare(cases[at : at + BATCH])
        total.total += part.total
        total.accepted += part.accepted
        total.rejected += part.rejected
        total.flagged_accepted += part.flagged_accepted
        total.missed_rejected += part.missed_rejected
        total.types.update(part.types)
        total.reasons.update(part.reasons)
    took = time.monotonic() - started
    flagged, missed = len(total.flagged_accepted), len(total.missed_rejected)
    print(f"@ag-ui/client {reference_version()}: {total.total} streams (seed {args.seed}), "
          f"{took:.0f} s")  # fmt: skip
    print(f"  the reference accepts {total.accepted}: mockhttp flags {flagged}")
    print(f"  the reference rejects {total.rejected}: mockhttp flags "
          f"{total.rejected - missed}")  # fmt: skip
    print(f"  agreement: {total.agreed} of {total.total}")
    known = set(EVENT_SCHEMAS) & set(total.types)
    print(f"  AG-UI event types in accepted streams: {len(known)} of {len(EVENT_SCHEMAS)}")
    print("  the reference's reasons to reject, most common first:")
    for reason, count in total.reasons.most_common(12):
        print(f"    {count:5}  {reason} ...")
    for case, found in total.flagged_accepted[:10]:
        print(f"\nFLAGGED (accepted by the reference) #{case.number} {case.label}: {found}")
        print(case.body)
    for case, why in total.missed_rejected[:10]:
        print(f"\nMISSED (the reference: {why}) #{case.number} {case.label}")
        print(case.body)
    return 1 if flagged or missed else 0


if __name__ == "__main__":
    sys.exit(main())
