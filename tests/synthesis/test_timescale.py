import numpy as np
import sympy as sp

from rnnbook.implicit_bias import scale_factors
from rnnbook.mean_field import theory
from rnnbook.synthesis import timescale


def test_four_limits_coincide():
    d = timescale.derive(3)
    assert d.coincide
    s = d.summary()
    assert s["one_step_exact"] and not s["two_step_exact"]
    assert set(d.latex()) == {"chi1", "frobenius", "rho", "grad", "radius", "tau"}


def test_rho_ratio_against_the_printed_eq21():
    d = timescale.derive(3)
    rho = scale_factors.PAPER_RHO
    direct = rho.subs(timescale.j, timescale.j + 1) / rho
    vals = {
        timescale.nu_W: 0.7,
        timescale.nu_F: 1.3,
        timescale.nu_C: 0.4,
        timescale.j: 5,
    }
    assert abs(float(d.rho_ratio.subs(vals)) - float(direct.subs(vals))) < 1e-12


def test_chi1_linear_equals_mean_field_tanh_in_the_small_signal_limit():
    # tanh'(0) = 1: with no input and no bias q* = 0 for sigma_w^2 < 1 and chi_1 = sigma_w^2
    hp = theory.HP(sigma_w=np.sqrt(0.6), sigma_v=0.0, mu_b=0.0, R=0.0)
    assert abs(float(theory.vanilla_chi1(hp)) - 0.6) < 1e-6


def test_gradient_ratio_numbers():
    d = timescale.derive(3)
    r = d.grad_ratio[1].subs({timescale.nu_W: 0.9, timescale.n: 10})
    assert abs(float(r) - 0.9 * 102 / 100) < 1e-12
    assert sp.simplify(d.tau + 1 / sp.log(timescale.nu_W)) == 0
