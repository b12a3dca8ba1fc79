"""Benchmarks of vcore against the limits of issue 5, measured side by side in one process."""
