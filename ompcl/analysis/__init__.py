"""Analysis: ``Program`` -> ``Region`` records (loops, accesses, sharing, verdicts, features)."""
