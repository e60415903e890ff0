"""Monte Carlo of random vanilla RNNs (rnnbook.mean_field.vanilla_rnn) against Eq. (2)."""

import numpy as np

from rnnbook.mean_field import theory, vanilla_rnn


def test_untied_vanilla_mc_follows_eq2():
    hp = theory.HP(np.array([0.8, 1.6]), 0.5, 0.0, 1.0)
    qs = theory.vanilla_qstar(hp)
    th = theory.vanilla_trajectory(np.zeros(10), hp, c0=0.9)
    mc = vanilla_rnn.simulate_pair(
        np.zeros(10), hp, N=512, K=24, tied=False, seed=4, q0=qs, c0=0.9
    )
    se = mc["c"].std(1, ddof=1) / np.sqrt(24)
    assert np.all(np.abs(mc["c"].mean(1) - th["c"]) <= 4 * se + 0.01)


def test_mc_converges_to_the_mean_field_map_as_the_width_grows():
    """Eq. (2) is a wide-network limit: the distance of the Monte Carlo (c^t, q^t) to the map
    shrinks as N grows (like 1/sqrt(N) at a fixed number of networks)."""
    hp = theory.HP(np.array([0.8, 1.5]), 0.5, 0.0, 1.0)
    qs = theory.vanilla_qstar(hp)
    Sig = np.full(8, 0.3)
    th = theory.vanilla_trajectory(Sig, hp, c0=0.9)
    err = []
    for N in (16, 128, 1024):
        mc = vanilla_rnn.simulate_pair(
            Sig, hp, N=N, K=16, tied=False, seed=N, q0=qs, c0=0.9
        )
        dc = mc["c"].mean(1) - th["c"]
        dq = mc["q"].mean(1) / th["q"] - 1
        err.append(float(np.sqrt(np.mean(dc**2) + np.mean(dq**2))))
    assert err[0] > err[1] > err[2]
    assert err[2] < err[0] / 4  # sqrt(1024/16) = 8 for the noise
