"""Benchmarks for runscore: corpus generator (``generate``), harness (``run``), diff (``compare``).

A plain folder, not an installed package: run from the repository root, e.g.
``python -m benchmarks.generate --runs 10000 --layout single-file --seed 7 --out benchmarks/out/c``.
"""
