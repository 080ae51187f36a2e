"""How many malformed command lines every ``podium`` subcommand was given, and how each ended
(tests/cli_fuzz.py: in this process, seeded, in a sandbox of private folders).

    .venv/bin/python benchmarks/fuzz_counts.py [--per-command N] [--seed S] [--only LEAF ...]

Per subcommand: inputs; exit status 0 (answered), 1 (a documented difference: a report that
does not reconcile, a broken ledger), 2 (refused in one line); and the problems, each of which
the property forbids: tracebacks (an exception out of ``main``, or its name on stderr), hangs
(no end within 30 s), writes on refusal (a file or folder left by a refused command), other (a
refusal of more than one line, an undocumented exit status).  Exit status 0 when all four are
0.  The default, 2,500 per subcommand, is over 100,000 inputs (about 15 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's core and tests, not an installed one
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> int:
    from tests import cli_fuzz

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-command", type=int, default=2500)
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--only", nargs="*", default=None, metavar="LEAF",
                    help='only these subcommands, e.g. "report drop"')
    ap.add_argument("--show", type=int, default=3, help="problem examples shown per command")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="podium-fuzz-counts-") as root:
        start = time.monotonic()
        def done(leaf: str, t: cli_fuzz.Tally) -> None:
            print(f"  {leaf}: {t.inputs} inputs, {time.monotonic() - start:,.0f} s",
                  file=sys.stderr, flush=True)

        tallies, bad = cli_fuzz.fuzz(Path(root), args.per_command, seed=args.seed,
                                     only=args.only, progress=done)
        print(cli_fuzz.table_text(tallies, time.monotonic() - start))
    for leaf in sorted(tallies):
        for example in tallies[leaf].examples[:args.show]:
            print(f"  {leaf}: {example[:400]!r}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
