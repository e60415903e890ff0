"""The spectral radius rho(M) of a batch of square matrices and its exact gradient.

The LSC loss of Herranz-Celotti & Rouat, Eq. (2), ``sum_k (rho(M_k) - rho_t)^2``, is differentiated
through rho(M) = max_i |lambda_i(M)|. For a simple eigenvalue lambda of a real M with right
eigenvector v (M v = lambda v) and left eigenvector u (u^H M = lambda u^H), first-order
perturbation theory gives d lambda = u^H dM v / (u^H v), hence

    d|lambda| / dM = Re( conj(lambda) / |lambda| * conj(u) v^T / (u^H v) ),

a rank-one matrix that needs only the one eigenpair on the spectral circle. Differentiating
``torch.linalg.eigvals`` instead makes LAPACK compute every right eigenvector in the forward pass
(``geev`` with vectors costs about twice as much as without) and solves with the full eigenvector
matrix in the backward pass. :func:`spectral_radius` computes the eigenvalues alone in the forward
pass and, in the backward pass, the two eigenvectors of the top eigenvalue by inverse iteration on
one LU factorisation of ``M - sigma I``, with the shift sigma the computed eigenvalue moved by a few
units of rounding (so that the factorisation is never exactly singular). Three iterations reach the
eigenvectors to working precision when the top eigenvalue is separated from the others by more
than about sqrt(eps) of the matrix's scale; where the residual ``|M v - lambda v|`` says they did
not (a near-tie, a defective eigenvalue), that matrix's gradient is computed from the full
eigendecomposition instead (what ``eigvals``' autograd computes).

Ties. The two eigenvalues of a complex-conjugate pair have the same modulus and the same gradient
of their modulus (the expression above is invariant under conjugating lambda, u and v), so either
one is taken. An exact tie of two distinct moduli (e.g. lambda and -lambda) is a kink of the
maximum: the gradient of the first in LAPACK's order is taken (a Clarke subgradient; autograd of
``amax`` takes the average of the tied ones). At lambda = 0 the gradient is 0 (``torch.sgn``).
"""

from __future__ import annotations

import torch
from torch import Tensor

#: inverse-iteration steps of the backward pass
ITERATIONS = 3


def spectral_radius(M: Tensor, nonsquare: str = "pad") -> Tensor:
    """rho(M) = max |eigenvalue| over the last two dimensions, differentiable (see the module).

    For a non-square M: ``"pad"`` (default) pads with zeros to a square matrix, whose eigenvalues are those of
    the leading square block plus zeros; ``"norm"`` takes the spectral norm (largest singular value)."""
    n, m = M.shape[-2:]
    if n != m:
        if nonsquare == "norm":
            return torch.linalg.matrix_norm(M, ord=2)
        if nonsquare != "pad":
            raise ValueError(f"nonsquare = {nonsquare!r}: must be 'pad' or 'norm'")
        k = min(n, m)
        M = M[..., :k, :k]
    if M.shape[-1] == 1:
        return M[..., 0, 0].abs()
    if M.requires_grad and torch.is_grad_enabled():
        return _Radius.apply(M)
    return torch.linalg.eigvals(M).abs().amax(-1)


def radius_gradient(M: Tensor, lam: Tensor) -> Tensor:
    """d rho / dM (real, the shape of M) for matrices M (..., n, n) whose top eigenvalue is ``lam`` (...,)."""
    shape = M.shape
    A = M.detach().reshape(-1, shape[-1], shape[-1])
    lam = lam.reshape(-1)
    u, v, ok = _top_vectors(A, lam)
    g = _rank_one(lam, u, v)
    if not bool(ok.all()):  # a near-tie or defective eigenvalue: the full decomposition
        bad = (~ok).nonzero().squeeze(1)
        g[bad] = _from_eig(A[bad])
    return g.reshape(shape)


class _Radius(torch.autograd.Function):
    """rho(M) with the rank-one gradient of :func:`radius_gradient`."""

    @staticmethod
    def forward(ctx, M: Tensor) -> Tensor:
        lam = torch.linalg.eigvals(M)
        i = lam.abs().argmax(-1, keepdim=True)
        top = lam.gather(-1, i).squeeze(-1)
        ctx.save_for_backward(M, top)
        return top.abs()

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        M, top = ctx.saved_tensors
        return grad[..., None, None] * radius_gradient(M, top)


def _top_vectors(A: Tensor, lam: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """Right and left eigenvectors of the eigenvalue ``lam`` of each A (B, n, n), by inverse
    iteration; and whether the residual of each is at rounding level."""
    B, n, _ = A.shape
    C = A.to(lam.dtype)
    eps = torch.finfo(A.dtype).eps
    scale = A.abs().sum(-2).amax(-1).clamp_min(torch.finfo(A.dtype).tiny)  # ||A||_1
    shift = lam + (8 * n * eps) * scale * (1 + 1j) / 2**0.5
    eye = torch.eye(n, dtype=C.dtype, device=C.device)
    LU, piv, _ = torch.linalg.lu_factor_ex(C - shift[:, None, None] * eye)
    start = torch.ones(B, n, 1, dtype=C.dtype, device=C.device)
    start = start + 1j * torch.arange(n, device=C.device, dtype=A.dtype)[:, None] / n
    v, u = start, start
    for _ in range(ITERATIONS):
        v = torch.linalg.lu_solve(LU, piv, v)
        v = v / torch.linalg.vector_norm(v, dim=-2, keepdim=True)
        u = torch.linalg.lu_solve(LU, piv, u, adjoint=True)
        u = u / torch.linalg.vector_norm(u, dim=-2, keepdim=True)
    v, u = v[..., 0], u[..., 0]
    tol = 1e3 * n * eps * scale
    res_v = torch.linalg.vector_norm(
        (C @ v[..., None])[..., 0] - lam[:, None] * v, dim=-1
    )
    res_u = torch.linalg.vector_norm(
        (C.mT @ u.conj()[..., None])[..., 0] - lam[:, None] * u.conj(), dim=-1
    )
    uv = (u.conj() * v).sum(-1)
    ok = (res_v <= tol) & (res_u <= tol) & (uv.abs() > 1e3 * eps) & torch.isfinite(uv)
    return u, v, ok


def _rank_one(lam: Tensor, u: Tensor, v: Tensor) -> Tensor:
    """Re(conj(sgn lambda) conj(u) v^T / (u^H v)) for each (lambda, u, v)."""
    c = torch.sgn(lam).conj() / (u.conj() * v).sum(-1)
    return (c[:, None, None] * u.conj()[:, :, None] * v[:, None, :]).real


def _from_eig(A: Tensor) -> Tensor:
    """The same gradient from the full eigendecomposition A = V diag(lambda) V^{-1}: the rows of
    V^{-1} are the left eigenvectors (normalised by u^H v = 1); the top eigenvalue by ``argmax``."""
    lam, V = torch.linalg.eig(A)
    i = lam.abs().argmax(-1)
    c = torch.zeros_like(lam)
    c.scatter_(-1, i[:, None], torch.sgn(lam.gather(-1, i[:, None])).conj())
    # G^T = V diag(c) V^{-1}, so G = V^{-T} (V diag(c))^T
    G = torch.linalg.solve_ex(V.mT, (V * c[:, None, :]).mT)[0]
    return G.real.to(A.dtype)
