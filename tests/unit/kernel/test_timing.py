"""A query's stage times are disjoint and add up to its total (what ``--explain`` and bench.query report)."""

from __future__ import annotations

import time

from kernel import timing


def test_nested_stages_are_their_own_time_and_the_rest_is_other():
    with timing.clock() as timings:
        with timing.stage("documents"):
            time.sleep(0.02)
        with timing.stage("passages"):
            time.sleep(0.01)
            with timing.stage("statements"):
                time.sleep(0.05)
        time.sleep(0.01)  # outside any stage
    # passages' own 10 ms, not 60 with its pins' time: below the pins' own, however long a loaded machine sleeps
    assert timings["statements"] >= 45 and 5 <= timings["passages"] < timings["statements"]
    stages = sum(v for k, v in timings.items() if "." not in k and k != "total")
    assert abs(stages - timings["total"]) <= 0.5 and timings["other"] >= 5
