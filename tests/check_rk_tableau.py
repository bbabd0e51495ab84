#!/usr/bin/env python3
"""Checks the DOP853 tableau as committed (steppers/dop853_tableau.hpp) against Butcher's order
conditions, in 40-digit decimal arithmetic: for every rooted tree t with |t| ≤ p,
Σ_i w_i Φ_i(t) = 1/γ(t), where Φ_i(t) is the elementary weight built from a and γ the tree's
density. The 8th-order weights b must satisfy all 200 conditions up to order 8, the 5th-order
embedded weights b − e5 the 17 up to order 5 and the 3rd-order ones the 4 up to order 3, each to
1e-25 (the tableau has 30 digits); every row of a must sum to its node. A mistyped digit breaks
one of them by far more (the next order's conditions miss by 1e-5 to 1e-2). Also checks that b
is not of order 9 (a residual above 1e-6), so the test can tell orders apart.

    python3 tests/check_rk_tableau.py SOURCE_DIR
"""
import re
import sys
from decimal import Decimal, getcontext
from functools import lru_cache

getcontext().prec = 40
STAGES = 12
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+)(?:e[-+]?\d+)?")


def read_tableau(path):
    text = open(path, encoding="utf-8").read()

    def block(name):
        start = text.index(name)
        return text[text.index("=", start) + 1:text.index("};", start)]

    def numbers(chunk):
        return [Decimal(x) for x in NUMBER.findall(chunk)]

    def scalar(name):
        return Decimal(re.search(name + r" = ([^;]*);", text).group(1))

    rows = re.findall(r"\{([^{}]*)\}", block("kA ="))
    a = [numbers(r) + [Decimal(0)] * (STAGES - len(numbers(r))) for r in rows]
    b3 = [Decimal(0)] * STAGES
    b3[0], b3[8], b3[11] = scalar("kB3Stage1"), scalar("kB3Stage9"), scalar("kB3Stage12")
    tableau = {"c": numbers(block("kC =")), "a": a, "b": numbers(block("kB =")),
               "e5": numbers(block("kE5 =")), "b3": b3}
    for key in ("c", "a", "b", "e5"):
        assert len(tableau[key]) == STAGES, f"{key}: {len(tableau[key])} entries, not {STAGES}"
    return tableau


@lru_cache(maxsize=None)
def trees(order):
    """Rooted trees with `order` nodes, each a sorted tuple of its subtrees."""
    if order == 1:
        return ((),)
    found = set()

    def forests(remaining, largest):  # multisets of subtrees, in non-increasing order
        if remaining == 0:
            yield ()
            return
        for size in range(min(remaining, largest[0]), 0, -1):
            for tree in trees(size):
                if (size, tree) > largest:
                    continue
                for rest in forests(remaining - size, (size, tree)):
                    yield (tree,) + rest

    for forest in forests(order - 1, (order, ())):
        found.add(tuple(sorted(forest)))
    return tuple(sorted(found))


def size(tree):
    return 1 + sum(size(t) for t in tree)


def density(tree):
    g = size(tree)
    for t in tree:
        g *= density(t)
    return g


def elementary_weights(tree, a):
    """Φ_i(t) for every stage i."""
    phi = [Decimal(1)] * STAGES
    for child in tree:
        inner = elementary_weights(child, a)
        phi = [phi[i] * sum(a[i][j] * inner[j] for j in range(STAGES)) for i in range(STAGES)]
    return phi


def worst_residual(weights, a, order):
    worst = Decimal(0)
    for tree in trees(order):
        phi = elementary_weights(tree, a)
        value = sum(w * p for w, p in zip(weights, phi))
        worst = max(worst, abs(value - Decimal(1) / density(tree)))
    return worst


def main(source):
    t = read_tableau(f"{source}/steppers/dop853_tableau.hpp")
    failures = []
    for i in range(STAGES):
        if abs(sum(t["a"][i]) - t["c"][i]) > Decimal("1e-25"):
            failures.append(f"row {i + 1} of a does not sum to c_{i + 1}")
    b5 = [b - e for b, e in zip(t["b"], t["e5"])]
    counted = 0
    for name, weights, order in [("b", t["b"], 8), ("b - e5", b5, 5), ("b3", t["b3"], 3)]:
        for p in range(1, order + 1):
            residual = worst_residual(weights, t["a"], p)
            counted += len(trees(p))
            if residual > Decimal("1e-25"):
                failures.append(f"{name}: an order-{p} condition misses by {residual:.2e}")
    if worst_residual(t["b"], t["a"], 9) < Decimal("1e-6"):
        failures.append("b satisfies the order-9 conditions: the check cannot tell orders apart")
    if failures:
        print("\n".join(failures))
        return 1
    print(f"DOP853 tableau: {counted} order conditions hold, b is not of order 9")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
