"""Exact statistics the SQL packs cannot express: beta quantiles.

Pure Python on purpose (scipy is a test-only dependency): the regularized
incomplete beta function by its continued fraction (modified Lentz), and its
inverse by bisection to the last representable bit. Used for Clopper–Pearson
intervals (spec plugin-eval §6); tests compare against scipy.
"""

from __future__ import annotations

import math

#: Continued-fraction iterations. Convergence needs O(sqrt(max(a, b))) terms;
#: this bound covers a, b up to ~1e8 with room to spare.
_MAX_ITER = 100_000
_EPS = 1e-17
_TINY = 1e-300


def _log_beta_front(a: float, b: float, x: float) -> float:
    """log(x^a (1-x)^b / B(a, b))."""
    return (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of I_x(a, b) (Numerical Recipes §6.4, modified Lentz)."""
    qab = a + b
    qap = a + 1.0
    qam = a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < _TINY:
        d = _TINY
    d = 1.0 / d
    h = d
    for m in range(1, _MAX_ITER + 1):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        if abs(d) < _TINY:
            d = _TINY
        c = 1.0 + aa / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        if abs(d) < _TINY:
            d = _TINY
        c = 1.0 + aa / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            return h
    raise ArithmeticError(f"incomplete beta did not converge for a={a}, b={b}, x={x}")


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if not (a > 0 and b > 0):
        raise ValueError("betainc needs a > 0 and b > 0")
    if not 0.0 <= x <= 1.0:
        raise ValueError("betainc needs 0 <= x <= 1")
    if x == 0.0:
        return 0.0
    if x == 1.0:
        return 1.0
    # The continued fraction converges fast only below the mean; above it use
    # the symmetry I_x(a, b) = 1 - I_{1-x}(b, a).
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(_log_beta_front(a, b, x)) * _betacf(a, b, x) / a
    return 1.0 - math.exp(_log_beta_front(b, a, 1.0 - x)) * _betacf(b, a, 1.0 - x) / b


def beta_ppf(p: float, a: float, b: float) -> float:
    """The p-quantile of Beta(a, b): the x with I_x(a, b) = p.

    Bisection on [0, 1] until the bracket cannot shrink any more, so the answer
    is as exact as ``betainc`` itself (no approximation of the inverse).
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError("beta_ppf needs 0 <= p <= 1")
    if p == 0.0:
        return 0.0
    if p == 1.0:
        return 1.0
    return _bisect(p, a, b)


def _bisect(p: float, a: float, b: float) -> float:
    lo, hi = 0.0, 1.0
    while True:
        mid = lo + (hi - lo) / 2.0
        if mid <= lo or mid >= hi:
            break
        if betainc(a, b, mid) < p:
            lo = mid
        else:
            hi = mid
    # Both ends bracket the root to one ulp; return the closer one.
    return lo if abs(betainc(a, b, lo) - p) <= abs(betainc(a, b, hi) - p) else hi


def clopper_pearson(k: int, n: int, confidence: float) -> tuple[float, float]:
    """Exact (Clopper–Pearson) interval for k successes in n trials."""
    if n <= 0:
        raise ValueError("clopper_pearson needs n > 0")
    if not 0 <= k <= n:
        raise ValueError("clopper_pearson needs 0 <= k <= n")
    alpha = 1.0 - confidence
    lower = 0.0 if k == 0 else beta_ppf(alpha / 2.0, k, n - k + 1)
    upper = 1.0 if k == n else beta_ppf(1.0 - alpha / 2.0, k + 1, n - k)
    return lower, upper
