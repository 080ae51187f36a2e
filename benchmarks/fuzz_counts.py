"""How many malformed inputs tests/test_fuzz_cli.py throws at each command, and how each ended
(exit status 0 = answered, 2 = refused in one line; anything else fails the test).

    .venv/bin/python benchmarks/fuzz_counts.py [pytest options]
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's core, not an installed one


class _Counts:
    counts: Counter[tuple[str, int]] = Counter()

    def pytest_sessionfinish(self) -> None:
        for name, module in list(sys.modules.items()):
            if name.endswith("test_fuzz_cli") and hasattr(module, "COUNTS"):
                self.counts = module.COUNTS


def main() -> int:
    plugin = _Counts()
    status = pytest.main(["-q", "-p", "no:cacheprovider",
                          str(ROOT / "tests" / "test_fuzz_cli.py"), *sys.argv[1:]],
                         plugins=[plugin])
    by_command: dict[str, Counter[int]] = {}
    for (command, code), n in plugin.counts.items():
        by_command.setdefault(command, Counter())[code] += n
    print(f"\n{'command':<22} {'inputs':>7} {'exit 0':>7} {'exit 2':>7} {'other':>6}")
    total: Counter[int] = Counter()
    for command in sorted(by_command):
        c = by_command[command]
        total += c
        other = sum(n for code, n in c.items() if code not in (0, 2))
        print(f"{command:<22} {sum(c.values()):>7} {c[0]:>7} {c[2]:>7} {other:>6}")
    other = sum(n for code, n in total.items() if code not in (0, 2))
    print(f"{'all':<22} {sum(total.values()):>7} {total[0]:>7} {total[2]:>7} {other:>6}")
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
