"""Ratios with bootstrap intervals for the benchmarks' "A against B"
figures: a ratio of two medians (bench/failover_ratio.py) and the median of
paired ratios (bench/lbd_conn_bench.py, where A's and B's turns are
adjacent in time).

The lab's own bootstrap (control-plane/lab/lab_sample.c) is C inside the cpha
program and interval-estimates one median; it cannot be imported from
Python. This one estimates the ratio of two independent samples' medians:
each resample draws len(a) values from a and len(b) from b with
replacement, and the interval is the 2.5th and 97.5th percentiles of the
resampled ratios (a percentile bootstrap, B = 2000 resamples, fixed seed,
so the same input prints the same interval). For paired samples (a[i]
and b[i] measured together), the median of the ratios a[i] / b[i], its
interval from resampling the pairs the same way. Pure: no I/O.
"""

import math
import random
import statistics

B = 2000        # resamples
CUT = 50        # resampled ratios cut off at each end: a 95% interval
SEED = 0x63706861


def median(xs):
    """The median of xs (the mean of the two middle values for an even
    count); NaN for none."""
    return statistics.median(xs) if xs else float("nan")


def ratio(a, b):
    """a / b where both are medians of non-negative figures: 1 when both are
    0 (the same), infinity when only b is 0."""
    if b == 0:
        return 1.0 if a == 0 else math.inf
    return a / b


def ratio_of_medians(a, b, resamples=B, seed=SEED):
    """(median(a) / median(b), low, high): the ratio and its 95% bootstrap
    interval. None when a side has no values. With one value on each side
    the interval is the ratio itself."""
    a, b = list(a), list(b)
    if not a or not b:
        return None
    point = ratio(median(a), median(b))
    rng = random.Random(seed)
    rs = sorted(ratio(median(rng.choices(a, k=len(a))), median(rng.choices(b, k=len(b))))
                for _ in range(resamples))
    cut = resamples * CUT // B
    return point, rs[cut], rs[resamples - 1 - cut]


def median_of_ratios(a, b, resamples=B, seed=SEED):
    """(median of a[i] / b[i], low, high) for paired samples of the same
    length, with a 95% bootstrap interval over the pairs. None when there
    are no pairs."""
    if len(a) != len(b):
        raise ValueError("paired samples of %d and %d values" % (len(a), len(b)))
    rs = [ratio(x, y) for x, y in zip(a, b)]
    if not rs:
        return None
    rng = random.Random(seed)
    ms = sorted(median(rng.choices(rs, k=len(rs))) for _ in range(resamples))
    cut = resamples * CUT // B
    return median(rs), ms[cut], ms[resamples - 1 - cut]


def fmt_ratio(r, digits=3):
    """'0.987 [0.950, 1.020]', or '-' for no figure."""
    if r is None:
        return "-"

    def one(x):
        return "inf" if math.isinf(x) else "%.*f" % (digits, x)
    return "%s [%s, %s]" % (one(r[0]), one(r[1]), one(r[2]))
