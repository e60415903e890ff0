"""Square-loss regression data of Chizat et al., Sec. 2.5, and the risk with an explicit normalisation.

x ~ N(0, x_std² I_d), λ* ~ N(0, I_d), y = x^T λ* (noise-free), n samples. The risk is
F(λ) = (1/2c) Σ_i (λ·x_i − y_i)² with c = n (``"mean"``: the paper's ∫ · dp with p the empirical measure of the
training set) or c = 1 (``"sum"``: the sum over samples); its gradient in λ is ξ(λ) = M λ − b, the ξ of Sec. 2.1.
Numpy only (the limit model does not need torch).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

NORMALISATIONS = ("mean", "sum")
INPUTS = {
    "unit": "x ~ N(0, I_d), as printed",
    "scaled": "x ~ N(0, I_d/d), the authors' code",
}


@dataclass(frozen=True)
class Regression:
    """Square-loss regression data: inputs ``X`` (n×d), labels ``y = X λ*`` and the risk's normalisation.

    The risk is F(λ) = (1/2c) Σ_i (λ·x_i − y_i)² with c = n (``"mean"``) or c = 1 (``"sum"``); its gradient
    in λ is ξ(λ) = M λ − b with M = X^T X / c and b = X^T y / c (the ξ of Sec. 2.1 for the square loss).
    """

    X: np.ndarray
    y: np.ndarray
    lam_star: np.ndarray
    normalisation: str = "mean"

    def __post_init__(self) -> None:
        if self.normalisation not in NORMALISATIONS:
            raise ValueError(
                f"normalisation {self.normalisation!r}: must be one of {NORMALISATIONS}"
            )

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]

    @property
    def c(self) -> float:
        return float(self.n) if self.normalisation == "mean" else 1.0

    @property
    def M(self) -> np.ndarray:
        """The (empirical) second-moment matrix of the inputs, Eq. (5.13), with the chosen normalisation."""
        return self.X.T @ self.X / self.c

    @property
    def b(self) -> np.ndarray:
        return self.X.T @ self.y / self.c

    def xi(self, lam: np.ndarray) -> np.ndarray:
        """ξ(λ) = ∫ x (λ·x − y) dp = M λ − b, for λ of shape (..., d)."""
        return lam @ self.M - self.b

    def risk(self, lam: np.ndarray) -> np.ndarray:
        """F(λ) = (1/2c) Σ_i (λ·x_i − y_i)², for λ of shape (..., d)."""
        r = lam @ self.X.T - self.y
        return 0.5 * np.sum(r**2, axis=-1) / self.c

    def min_norm(self) -> np.ndarray:
        """The minimal-ℓ2-norm minimizer of the risk (Theorem 2.3), by the pseudo-inverse: X⁺ y."""
        return np.linalg.pinv(self.X) @ self.y

    def torch_moments(self, dtype=None, device="cpu"):
        """(M, b) as torch tensors (float64 unless ``dtype`` is given)."""
        import torch

        dtype = torch.float64 if dtype is None else dtype
        return (
            torch.as_tensor(self.M, dtype=dtype, device=device),
            torch.as_tensor(self.b, dtype=dtype, device=device),
        )


def gaussian_regression(
    d: int, n: int, seed: int, x_std: float = 1.0, normalisation: str = "mean"
) -> Regression:
    """Sec. 2.5: x ~ N(0, x_std² I_d), λ* ~ N(0, I_d), y = x^T λ* (noise-free), n samples."""
    if d < 1 or n < 1:
        raise ValueError(f"d = {d}, n = {n}: must be positive")
    if not x_std > 0:
        raise ValueError(f"x_std = {x_std}: must be positive")
    rng = np.random.default_rng(seed)
    lam_star = rng.standard_normal(d)
    X = x_std * rng.standard_normal((n, d))
    return Regression(
        X=X, y=X @ lam_star, lam_star=lam_star, normalisation=normalisation
    )


def input_std(d: int, inputs: str) -> float:
    """The standard deviation of the inputs: 1 for ``"unit"``, 1/√d for ``"scaled"``."""
    if inputs not in INPUTS:
        raise ValueError(f"inputs {inputs!r}: must be one of {sorted(INPUTS)}")
    return d**-0.5 if inputs == "scaled" else 1.0
