"""Front end: C source file -> ``Program`` (preprocessed AST, bound OpenMP directives, source)."""
