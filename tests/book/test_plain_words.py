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
