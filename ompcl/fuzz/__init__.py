"""Differential fuzzing of ompcl: random valid OpenMP C programs (``generator``), built with gcc
and through ompcl and run in every mode (``oracle``), outputs compared (``compare``), failures
minimised into tests/fuzz_regressions/ (``reducer``); ``cli`` runs a campaign."""
