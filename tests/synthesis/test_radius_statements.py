"""Every "radius" / "squared radius" statement about nu_W in the synthesis, the intro and the part
pages says the quantity its code computes (issue 41, item 2: the intro called the squared LSC radius
"the LSC radius" and set it equal to nu_W, whose square root the radius tends to).

:data:`STATEMENTS` lists every sentence of those pages that mentions a spectral radius: a phrase
that identifies it, the quantity it speaks of (``radius`` or ``squared radius``), the value it gives
that quantity in terms of nu_W (``nu_W``, ``sqrt(nu_W)``, or ``None`` where it gives none) and the
function whose output it describes (``None`` for a radius that is no statement about nu_W: the
LSC's target, a list of chapters). The checks: every radius sentence of the pages is in the table;
each phrase, and the limit the table says it states, are still in the sentence; and each function,
on a matrix J = sqrt(nu_W) P (P a permutation: one-step moment ||J||_F^2/n = nu_W, radius exactly
sqrt(nu_W)), returns the quantity the sentence names with the value the sentence gives it.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[2]
PAGES = (
    "book/intro.md",
    "book/synthesis.md",
    "book/lsc.md",
    "book/implicit_bias.md",
    "book/mean_field.md",
    "book/infinite_width.md",
    "notebooks/synthesis/one_timescale.py",
)
LIN = "rnnbook.synthesis.linear_diagnostics.measure"
NONLIN = "rnnbook.synthesis.nonlinear_diagnostics.measure"
DERIVE = "rnnbook.synthesis.timescale.radius2_limit"  # what derive() uses
SCALED = "rnnbook.implicit_bias.stability.scaled_spectral_radius"
SQ, R = "squared radius", "radius"

# (page, phrase, quantity, value in nu_W, text of that value in the sentence, function)
STATEMENTS = [
    ("book/intro.md", "which local radius keeps them stable", R, None, None, None),
    ("book/intro.md", "Lemma 1's mean spectral", R),
    ("book/intro.md", "every target except a radius of 1", R),
    ("book/intro.md", "a radius of 1 is not the worst start", R),
    (
        "book/intro.md",
        "the spectral radius of $W/\\sqrt n$ tends to $\\sqrt{\\nu_W}$",
        R,
        "sqrt(nu_W)",
        "tends to $\\sqrt{\\nu_W}$, not to $\\nu_W$",
        SCALED,
    ),
    (
        "book/intro.md",
        "the squared LSC radius",
        SQ,
        "nu_W",
        "one number, $\\nu_W$",
        LIN,
    ),
    (
        "book/synthesis.md",
        "The squared spectral radius of the transition derivative $W/\\sqrt n$",
        SQ,
        "nu_W",
        "all tend to $\\nu_W$",
        LIN,
    ),
    (
        "book/synthesis.md",
        "only asymptotic (the spectral radius",
        R,
        None,
        None,
        DERIVE,
    ),
    ("book/lsc.md", "expected spectral radius of each transition derivative be 1", R),
    ("book/lsc.md", "with target radii or norms", R),
    ("book/lsc.md", "the expected spectral radius of a random matrix", R),
    ("book/lsc.md", "`torch.func`, radii, the clipped weight multiplier", R),
    ("book/lsc.md", "the default LRU's radius", R),
    (
        "book/implicit_bias.md",
        "the spectral radius of $W/\\sqrt n$, whose limit is $\\sqrt{\\nu_W}$",
        R,
        "sqrt(nu_W)",
        "whose limit is $\\sqrt{\\nu_W}$, not $\\nu_W$",
        SCALED,
    ),
    (
        "notebooks/synthesis/one_timescale.py",
        "ask that the *radius* of each transition derivative",
        R,
    ),
    (
        "notebooks/synthesis/one_timescale.py",
        "the squared spectral radius of $J$",
        SQ,
        "nu_W",
        "all equal $\\nu_W$",
        LIN,
    ),
    (
        "notebooks/synthesis/one_timescale.py",
        "the outer radius of the disc is $\\|J\\|_{L^2(\\varphi)} = \\varphi(JJ^\\top)^{1/2}$",
        R,
        "sqrt(nu_W)",
        "$\\varphi(JJ^\\top)=\\nu_W$",
        DERIVE,
    ),
    (
        "notebooks/synthesis/one_timescale.py",
        "That the spectral radius converges to the edge",
        R,
        "sqrt(nu_W)",
        None,
        DERIVE,
    ),
    (
        "notebooks/synthesis/one_timescale.py",
        "the spectral radius of a finite matrix fluctuates around and above it",
        R,
        "sqrt(nu_W)",
        None,
        DERIVE,
    ),
    (
        "notebooks/synthesis/one_timescale.py",
        "The squared spectral radius lies above the line",
        SQ,
        "nu_W",
        None,
        LIN,
    ),
    (
        "notebooks/synthesis/one_timescale.py",
        "the LSC looks at the radius of each transition derivative",
        R,
    ),
    (
        "notebooks/synthesis/one_timescale.py",
        "the measured squared local radius follows it a little above",
        SQ,
        None,
        None,
        NONLIN,
    ),
    (
        "notebooks/synthesis/one_timescale.py",
        "its spectral radius is set by the largest gate values $u$",
        R,
    ),
]
STATEMENTS = [row + (None,) * (6 - len(row)) for row in STATEMENTS]
NU = 0.49
VALUE = {"nu_W": NU, "sqrt(nu_W)": math.sqrt(NU)}
_SPLIT = re.compile(r"(?<=[.;])\s+(?=[A-Z*{$])")
_RADIUS = re.compile(r"\bradi(?:us|i)\b")


def prose(text: str, notebook: bool) -> list[str]:
    """The sentences of a page (of a Jupytext notebook: of its Markdown cells only)."""
    if notebook:
        lines, md = [], False
        for line in text.splitlines():
            if line.startswith("# %%"):
                md = "[markdown]" in line
                lines.append("")
            else:
                lines.append(line[2:] if md and line.startswith("#") else "")
        text = "\n".join(lines)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    paras = (" ".join(p.split()) for p in re.split(r"\n\s*\n", text))
    return [s for p in paras for s in _SPLIT.split(p)]


def permutation_J(n: int = 4) -> torch.Tensor:
    """sqrt(NU) times a cyclic permutation: ||J||_F^2/n = NU, spectral radius sqrt(NU)."""
    return math.sqrt(NU) * torch.roll(torch.eye(n, dtype=torch.float64), 1, 0)


def computed(function: str) -> tuple[str, float]:
    """(quantity, value) that ``function`` computes where the radius is sqrt(NU)."""
    J = permutation_J()
    n = J.shape[-1]
    if function == LIN:
        from rnnbook.synthesis import linear_diagnostics

        ones = torch.ones(1, n, 1, dtype=J.dtype)
        v = linear_diagnostics.measure(J[None] * n**0.5, ones, ones.mT, 3)["radius2"]
    elif function == NONLIN:
        from rnnbook.synthesis import nonlinear_diagnostics

        Js = J.expand(1, 4, n, n)
        probes = torch.ones(1, 2, n, dtype=J.dtype)
        v = nonlinear_diagnostics.measure(Js, Js, probes)["radius2"]
    elif function == SCALED:
        from rnnbook.implicit_bias import stability

        v = stability.scaled_spectral_radius(J * n**0.5)
    elif function == DERIVE:
        from rnnbook.synthesis import timescale

        # the limit of r(J)^2, the squared radius (its docstring, and derive's "radius" step)
        return SQ, float(timescale.radius2_limit().subs(timescale.nu_W, NU))
    else:
        raise KeyError(function)
    v = float(v if isinstance(v, float) else v.reshape(-1)[0])
    for quantity, value in ((R, math.sqrt(NU)), (SQ, NU)):
        if math.isclose(v, value, rel_tol=1e-9):
            return quantity, v
    raise AssertionError(f"{function}: {v} is neither the radius nor its square")


def problems(texts: dict[str, str], table=None) -> list[str]:
    """What is wrong between the pages' radius sentences, the table and the code."""
    table = STATEMENTS if table is None else table
    out = []
    for page, text in texts.items():
        rows = [r for r in table if r[0] == page]
        for s in prose(text, page.endswith(".py")):
            if _RADIUS.search(s) and not any(r[1] in s for r in rows):
                out.append(f"{page}: a radius sentence not in the table: {s!r}")
    for page, phrase, quantity, value, value_text, function in table:
        if (quantity == SQ) != ("squared" in phrase.lower()):
            out.append(f"{page}: the phrase {phrase!r} does not name the {quantity}")
        hits = [s for s in prose(texts[page], page.endswith(".py")) if phrase in s]
        if not hits:
            out.append(f"{page}: no sentence says {phrase!r} any more")
        elif value_text and not any(value_text in s for s in hits):
            out.append(f"{page}: {phrase!r} no longer gives it as {value_text!r}")
        if value is None or function is None:
            continue
        q_code, v_code = computed(function)
        v_said = (
            VALUE[value]
            if quantity == q_code
            else VALUE[value] ** (2 if quantity == R else 0.5)
        )
        if not math.isclose(v_said, v_code, rel_tol=1e-9):
            out.append(
                f"{page}: {phrase!r} gives the {quantity} as {value}, but {function} "
                f"computes the {q_code}, which is {v_code:.3g} where nu_W = {NU}"
            )
    return out


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return {p: (ROOT / p).read_text() for p in PAGES}


def test_every_radius_statement_matches_its_code(texts):
    assert problems(texts) == []


@pytest.mark.parametrize(
    "page, old, new",
    [
        # the slip of issue 41, item 2: the radius, not its square, said to be nu_W
        ("book/intro.md", "the squared LSC radius", "the LSC radius"),
        (
            "book/implicit_bias.md",
            "whose limit is $\\sqrt{\\nu_W}$",
            "whose limit is $\\nu_W$",
        ),
        (
            "book/synthesis.md",
            "Unrolled in time",
            "Its spectral radius is nu_W. Unrolled in time",
        ),
    ],
)
def test_a_planted_wrong_statement_fails(texts, page, old, new):
    assert old in texts[page]
    assert problems({**texts, page: texts[page].replace(old, new, 1)})


def test_a_table_row_that_misreads_its_code_fails(texts):
    """The intro's squared radius quoted as a radius tending to nu_W: the code computes r^2."""
    row = ("book/intro.md", "the squared LSC radius", SQ, "sqrt(nu_W)", None, LIN)
    assert any("computes the squared radius" in p for p in problems(texts, [row]))
    row = (
        "book/implicit_bias.md",
        "the spectral radius of $W/\\sqrt n$",
        R,
        "nu_W",
        None,
        SCALED,
    )
    assert any("computes the radius" in p for p in problems(texts, [row]))
