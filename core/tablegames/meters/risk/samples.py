"""Meter risk, statistics of the samples: sums, mean, percentiles and histogram of int64
cents or units, exact (Python integers where int64 could overflow).  No I/O, no Qt."""

from __future__ import annotations

import numpy as np

from core.tablegames.meters.risk.model import I64


def exact_sum(a: I64) -> int:
    """Sum of int64 values without overflow: chunks small enough for int64, then Python."""
    flat = a.ravel()
    if not flat.size:
        return 0
    big = int(np.abs(flat).max())
    chunk = max(1, (2**62) // (big + 1))
    if chunk >= flat.size:
        return int(flat.sum())
    return sum(int(flat[i:i + chunk].sum()) for i in range(0, flat.size, chunk))


def mean_cents(sorted_cents: I64) -> int:
    if not sorted_cents.size:
        return 0
    total = exact_sum(sorted_cents)
    return (2 * total + sorted_cents.size) // (2 * sorted_cents.size)  # nearest, half up


def percentile(sorted_cents: I64, q: int) -> int:
    """The smallest sample with at least q% of the samples at or below it."""
    if not sorted_cents.size:
        return 0
    k = max(1, -(-q * sorted_cents.size // 100))
    return int(sorted_cents[k - 1])


def histogram(cents: I64, bins: int) -> tuple[I64, I64]:
    """Bins of one round width (1, 2 or 5 x a power of ten cents, the smallest that covers
    the values in at most ``bins`` + 1 bins), edges on multiples of it: ``(edges, counts)``,
    bin i = [edge i, edge i+1) in cents."""
    if not cents.size:
        return np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64)
    lo, hi = int(cents.min()), int(cents.max())
    need = -(-(hi - lo + 1) // bins)
    width, scale = 1, 1
    while width < need:
        for step in (1, 2, 5):
            width = step * scale
            if width >= need:
                break
        scale *= 10
    start = lo // width * width
    count = (hi - start) // width + 1
    edges = start + width * np.arange(count + 1, dtype=np.int64)
    idx = (cents - start) // width
    return edges, np.bincount(idx, minlength=count).astype(np.int64)
