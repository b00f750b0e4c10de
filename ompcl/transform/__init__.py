"""Transformations: analysed ``Region`` -> rewritten copies of its loop body, ready to print."""
