"""The kernel benchmark's per-call statistics (``--stat``): pure bookkeeping, no timing."""
from ompcl.bench.kernels import Samples


def _samples(rounds):
    s = Samples()
    for r in rounds:
        s.new_round()
        s.wall.extend(r)
    return s


def test_rounds_statistic_is_median_of_round_minima(monkeypatch):
    s = _samples([[5.0, 1.0, 9.0], [4.0, 3.0], [7.0, 6.0, 8.0]])
    assert s.per_round("wall") == [[5.0, 1.0, 9.0], [4.0, 3.0], [7.0, 6.0, 8.0]]
    monkeypatch.setattr(Samples, "stat", "rounds")
    assert s.ms("wall") == 3000.0          # minima 1, 3, 6 -> median 3 s
    monkeypatch.setattr(Samples, "stat", "min")
    assert s.ms("wall") == 1000.0
    monkeypatch.setattr(Samples, "stat", "median")
    assert s.ms("wall") == 5500.0          # 8 calls: (5 + 6) / 2


def test_rounds_statistic_without_marks_and_empty():
    s = Samples()
    s.wall.extend([2.0, 1.0])
    assert s.per_round("wall") == [[2.0, 1.0]]
    assert s.ms("kernel") != s.ms("kernel")  # nan: no samples
