"""Transformations: pure rewrites of ``c_ast`` subtrees (renaming, device functions, reduction
combines), each returning a new tree that keeps source coordinates."""
