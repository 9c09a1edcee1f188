"""Benchmarks behind ``mc3g bench``: each returns plain results and leaves printing to the CLI."""
