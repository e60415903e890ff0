"""The training rules keep the design of book/verdicts.md (issue: verdicts that their own data
support): a gate that never reads what it guards, lines that a paper that is exactly right can
cross, and seeds declared from a power analysis that this test recomputes."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from rnnbook.book import claims
from rnnbook.stats import POWER

ROOT = Path(__file__).resolve().parents[2]
DECLARED = claims.all_declared(ROOT)
TRAINING = {k: d for k, d in DECLARED.items() if d.trained is not None}
IDS = sorted(TRAINING)


def _names(expr: str, d: claims.Declaration) -> set[str]:
    """The measured names an expression reads (not constants, functions or bound names)."""
    tree = ast.parse(str(expr), mode="eval")
    bound = {
        n.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    return {
        n.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Name)
        and n.id not in bound
        and n.id not in claims.FUNCTIONS
        and n.id not in d.constants
        and n.id not in ("key", "profile")
    }


@pytest.mark.parametrize("cid", IDS)
def test_no_gate_reads_the_statistic_it_guards(cid):
    """The experiment's gate and every setting rule read none of the measurements an effect
    decides on; so perturbing the decided statistic cannot change a gate."""
    d = TRAINING[cid]
    decided = set().union(*(_names(e["effect"], d) for e in d.effects))
    assert not _names(d.trained, d) & decided, (d.trained, decided)
    for e in d.effects:
        if "setting" in e:
            assert not _names(e["setting"], d) & decided, (e["setting"], decided)


@pytest.mark.parametrize("cid", IDS)
def test_a_gate_reads_the_reference_or_says_why(cid):
    """Each name the gate reads has a declared role (reference, compared or setup); a gate
    that reads a compared arm carries the sentence the box shows, saying why reading it
    cannot hide the outcome. Roles, not variable names, decide."""
    d = TRAINING[cid]
    roles = claims.gate_roles(d)
    assert roles, f"{cid}: a gate that reads nothing measured"
    assert all(r in claims.ROLES for r in roles.values()), (cid, roles)
    if "compared" in roles.values():
        assert d.gate_why and len(d.gate_why.split()) >= 12, (cid, roles)


def test_gate_roles_are_checked_by_role(tmp_path):
    """A gate that reads a compared arm without a reason is caught whatever the arm's
    name; one that reads only the reference needs none; an undeclared name has no role."""
    import yaml

    def decl(roles, why=None):
        c = {
            "id": "lsc.t.x",
            "source": "Fig. 0",
            "statement": "s",
            "rule": {
                "effects": [
                    {
                        "name": "e",
                        "effect": "d",
                        "direction": "above",
                        "smallest": "0.1",
                    }
                ]
            },
            "trained": {"rule": "ref_ok > 0.5 and arm_b > 0"},
            "roles": roles,
        }
        if why:
            c["gate_why"] = why
        f = tmp_path / "c.claims.yaml"
        f.write_text(yaml.safe_dump({"paper": "lsc", "claims": [c]}))
        return claims.load(f)["lsc.t.x"]

    d = decl({"reference": ["ref_ok"], "compared": ["arm_b"]})
    assert claims.gate_roles(d) == {"ref_ok": "reference", "arm_b": "compared"}
    assert not d.gate_why  # the design test above fails on it
    d = decl({"reference": ["ref_ok", "arm_b"]})
    assert set(claims.gate_roles(d).values()) == {"reference"}
    d = decl({"reference": ["ref_ok"]})
    assert claims.gate_roles(d)["arm_b"] is None
    with pytest.raises(claims.ClaimError, match="two roles"):
        decl({"reference": ["ref_ok"], "compared": ["ref_ok"]})


def _smallest(d, e):
    names = {**d.constants, "profile": "book"}
    return (
        float(claims.evaluate(e["smallest"], names)),
        float(claims.evaluate(e["no_effect"], names)),
    )


@pytest.mark.parametrize("cid", IDS)
def test_the_line_lies_short_of_the_papers_effect(cid):
    """Each smallest effect lies strictly between no effect and the paper's own effect (never
    at the paper's point estimate), or at no effect where the line comes from the paper's
    words ('improves', 'grows': beyond no effect); a claim of no effect has the paper inside
    its band."""
    d = TRAINING[cid]
    for e in d.effects:
        assert "paper" in e, f"{cid}: effect {e['name']!r} declares no 'paper' effect"
        paper = float(e["paper"])
        small, null = _smallest(d, e)
        if e["direction"] == "above":
            assert null < small < paper or null == small < paper, (
                e["name"],
                null,
                small,
                paper,
            )
        elif e["direction"] == "below":
            assert paper < small < null or paper < small == null, (
                e["name"],
                small,
                paper,
            )
        else:
            assert abs(paper - null) < abs(small), (e["name"], small, paper)


@pytest.mark.parametrize("cid", IDS)
def test_declared_seeds_reproduce_a_paper_that_is_right(cid):
    """At the seeds the claim declares (its record's size), a true effect exactly the paper's
    is reproduced with probability at least 80% (recomputed from the declared spreads)."""
    d = TRAINING[cid]
    assert d.power, f"{cid}: declares no 'power' (seeds from a power analysis)"
    got = claims.claim_power(d, d.power["seeds"])
    assert got >= POWER, f"{cid}: power {got:.2f} at {d.power['seeds']} seeds"


def test_verdicts_page_states_the_engines_design():
    """The table "The design at a glance" of book/verdicts.md says what the engine does."""
    from rnnbook.stats import BOOTSTRAP_MIN_SEEDS

    text = (ROOT / "book" / "verdicts.md").read_text()
    table = text.split("## The design at a glance")[1].split("\n## ")[0]
    rows = {
        r.split("|")[1].strip(): r.split("|")[2].strip()
        for r in table.splitlines()
        if r.startswith("| ") and "---" not in r
    }
    assert f"at level {claims.LEVEL:.0%}" in rows["an effect reproduced"]
    union = f"1 − {claims.ALPHA:g}/k"
    for row in (
        "an effect short of the paper, or against it",
        "the claim not reproduced",
    ):
        assert union in rows[row], row
    assert union in rows["the claim partly reproduced"]
    assert f"each at {claims.LEVEL:.0%}" in rows["the claim reproduced"]
    assert f"probability {POWER:.0%}" in rows["the declared seeds"]
    assert f"from {BOOTSTRAP_MIN_SEEDS} seeds on" in rows["a bootstrap interval"]
    assert "never a compared arm, never the statistic" in rows["the gate"]


def _partly_can_arise(d: claims.Declaration) -> bool:
    """Whether the rule can return partly-reproduced (:func:`rnnbook.stats.combine_effects`):
    it needs two effects, one of which can fall short of its line without lying against the
    paper, which only an effect above or below a line apart from its no-effect value can."""
    names = {**d.constants, "profile": "book"}
    n = sum(claims.effect_keys(d, e) for e in d.effects)

    def apart(e):
        line = float(claims.evaluate(e["smallest"], names, d.id))
        return line != float(claims.evaluate(e["no_effect"], names, d.id))

    return n >= 2 and any(e["direction"] != "within" and apart(e) for e in d.effects)


@pytest.mark.parametrize("cid", [k for k in IDS if TRAINING[k].effects])
def test_the_tolerance_offers_no_verdict_the_rule_cannot_give(cid):
    """A tolerance that promises 'partly' where every line sits at no effect (an effect
    that falls short is then against the paper) tells the reader of a verdict that can never
    come (three boxes did, found by an audit of the claims files)."""
    d = TRAINING[cid]
    if d.combine is not None or _partly_can_arise(d):
        return
    assert "partly if" not in " ".join(str(d.tolerance).split()), cid
