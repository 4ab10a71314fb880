"""Benchmarks: ``python -m bench`` from the repo root prints one table of medians and ratios."""
