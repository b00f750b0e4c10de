"""Analysis: ``Program`` -> ``Region`` records (loops, accesses with index forms, calls, sharing,
extents, verdicts), their placement in the source text and the residency plan."""
