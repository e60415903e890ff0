import numpy as np

from rnnbook.synthesis import summaries


def test_max_rel_and_coverage():
    v = np.array([[1.0, 1.2], [2.0, 2.0]])
    assert abs(summaries.max_rel(v, [1.0, 2.0]) - 0.1) < 1e-12
    rng = np.random.default_rng(0)
    samples = 1.0 + 0.1 * rng.standard_normal((400, 8))
    assert 0.9 < summaries.coverage(samples, 1.0) <= 1.0
    assert summaries.coverage(samples + 1.0, 1.0) == 0.0
