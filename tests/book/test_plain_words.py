"""Code literals in words on the rendered page (rnnbook.book.plain_words)."""

from rnnbook.book import page_check
from rnnbook.book.plain_words import plain, plain_html


def test_literals_become_words_and_the_page_check_finds_none_left():
    text = (
        "equals binom( t, l) in 310 of 310; (1/T) binom(T+Dl+2, T) holds: True; "
        "within: False; converged in 1 steps, 1 cells left out; a <= b, c >= d, e != f"
    )
    out = plain(text)
    assert out == (
        "equals C(t, l) in 310 of 310; (1/T) C(T+Dl+2, T) holds: yes; within: no; "
        "converged in 1 step, 1 cell left out; a ≤ b, c ≥ d, e ≠ f"
    )
    assert not page_check.literals(out)
    assert page_check.literals(text)  # the check sees every one before


def test_what_is_not_a_literal_stays():
    for same in ("11 steps", "21 seeds", "0.1 steps", "is_True", "TrueX", '"True"'):
        assert plain(same) == same


def test_html_keeps_its_tags_code_and_math():
    html = (
        '<td class="x">holds: True</td><code>flag=True</code> \\(a<=b\\) '
        '<span title="a">1 seeds</span> $x<=y$'
    )
    assert plain_html(html) == (
        '<td class="x">holds: yes</td><code>flag=True</code> \\(a<=b\\) '
        '<span title="a">1 seed</span> $x<=y$'
    )


def test_a_binomial_whose_arguments_stand_in_other_nodes():
    assert plain_html("only binom( <em>t</em> - 1, L - 1) paths") == (
        "only C( <em>t</em> - 1, L - 1) paths"
    )


def test_the_rooms_names_read_as_words_and_subscripts():
    """The keys and math names that measured texts (and the records written before
    them) carry reach no page: the page check finds none left."""
    text = (
        "PascalRNN h_tl = h_(t-1)l + h_t(l-1); Var a_t0 0.14; (95% wilson, n=48); "
        "depth index 0 0.6, depth index -1 0.5; max |c_MC - c_theory| = 0.02, "
        "max |q_MC/q_theory - 1|; (m2_T1: 2.27, eq12_T1: 2.41, eq12_var_T16: 3, "
        "pred_T1: 2, var_T16: 1); a_k, b_k ≤ a_k; var_1 (s_1); sigma_min, min_i a_ii; "
        "chi_k or Kostlan; (vanilla_chi1, minimal_chi1); paths of max_len and max_len "
        "+ 2 moves; width 128 (parameter paper_width)"
    )
    out = plain(text)
    assert page_check.literals(text)
    assert not page_check.literals(out), page_check.literals(out)
    for words in (
        "hₜ,ₗ = hₜ₋₁,ₗ + hₜ,ₗ₋₁",
        "Var aₜ₀",
        "95% Wilson",
        "the shallowest depth 0.6, the deepest depth 0.5",
        "c (Monte Carlo) - c (theory)",
        "q (Monte Carlo)/q (theory)",
        "m₂ at T = 1: 2.27, Eq. (12) at T = 1: 2.41, Eq. (12)'s variance at T = 16",
        "aₖ, bₖ ≤ aₖ",
        "var₁ (s₁)",
        "σₘᵢₙ, minᵢ aᵢᵢ",
        "χₖ or Kostlan",
        "the vanilla RNN's χ₁",
    ):
        assert words in out, words


def test_names_that_are_not_math_stay():
    """A subscript without Unicode glyphs, a longer name, a path or a module stay."""
    for same in (
        "x_T1",
        "log_growth_one",
        "results/cpu/a_b",
        "rnnbook.lsc.a_k",
        "f_t(",
    ):
        assert plain(same) == same
