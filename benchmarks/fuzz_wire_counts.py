"""The wire fuzzers of issue 12 run outside pytest, with their outcomes counted: floor files
(tests/core/floorconfig/test_fuzz_floor.py), card swipes (tests/core/people/test_fuzz_swipes.py) and
protocol frames (tests/core/controllers/test_fuzz_frames.py).  Each property asserts what it asserts
under pytest; a failure stops the run with Hypothesis's report.

    python benchmarks/fuzz_wire_counts.py            # SQLite for the floor and link properties
"""

from __future__ import annotations

import logging
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.ledger.db import make_engine, upgrade  # noqa: E402
from tests.core.controllers import test_fuzz_frames
from tests.core.floorconfig import test_fuzz_floor  # noqa: E402
from tests.core.people import test_fuzz_swipes


class _Caplog:
    """The piece of pytest's caplog the link property reads: the records of podium.*."""

    def __init__(self) -> None:
        self.records: list[logging.LogRecord] = []
        handler = logging.Handler()
        handler.emit = self.records.append  # type: ignore[method-assign]
        logging.getLogger("podium").addHandler(handler)
        logging.getLogger("podium").setLevel(logging.INFO)
        logging.getLogger("podium").propagate = False  # counted, not printed

    def set_level(self, *args: Any, **kw: Any) -> None:
        pass


def _engine(tmp: str, name: str) -> Any:
    eng = make_engine(f"sqlite:///{Path(tmp) / name}")
    upgrade(eng)
    return eng


def main() -> int:
    logging.basicConfig(level=logging.ERROR)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        f = test_fuzz_floor
        f.test_a_mutated_floor_is_accepted_or_refused_by_name()
        f.test_a_mutated_floor_file_is_accepted_or_refused_by_name()
        f.test_a_damaged_or_random_toml_text_is_accepted_or_refused_by_name()
        f.test_podium_certs_init_with_a_fuzzed_floor_file_exits_0_or_2_with_one_line()

        s = test_fuzz_swipes
        s.test_any_swipe_is_a_card_number_or_a_bad_read_that_echoes_nothing()
        eng = _engine(tmp, "swipes.sqlite3")
        hit_floor = s.hit_floor.__wrapped__(eng)  # type: ignore[attr-defined]
        s.test_a_malformed_swipe_on_the_floor_writes_one_bad_read_and_nothing_else(
            engine=eng, hit_floor=hit_floor)

        fr = test_fuzz_frames
        fr.test_a_frame_with_one_field_mutated_decodes_or_is_refused_naming_the_field()
        fr.test_any_json_value_as_a_frame_is_refused_by_name()
        eng = _engine(tmp, "frames.sqlite3")
        gen = fr.garbled.__wrapped__(eng, _Caplog())  # type: ignore[attr-defined]
        garbled = next(gen)
        try:
            fr.test_a_controller_sending_garbage_gets_each_frame_refused_and_recorded_and_no_money_moves(  # noqa: E501
                garbled=garbled)
        finally:
            next(gen, None)
    counts: Counter[str] = Counter()
    for module in (test_fuzz_floor, test_fuzz_swipes, test_fuzz_frames):
        counts.update(module.COUNTS)
    width = max(len(k) for k in counts)
    for key in sorted(counts):
        print(f"{key:<{width}}  {counts[key]:>6}")
    print(f"{'total inputs':<{width}}  {sum(counts.values()):>6}   "
          f"({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
