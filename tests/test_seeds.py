"""Member seeds (rnnbook.seeds): the book's historic seeds kept, and one-to-one past them."""

import itertools

import pytest

from rnnbook.seeds import OFFSET, member_seed, member_seeds


def test_the_first_thousand_members_keep_the_historic_seeds():
    for master, s in itertools.product((0, 1, 4, 5, 104, 999_999), (0, 1, 7, 999)):
        assert member_seed(master, s) == 1000 * master + s


def test_no_two_master_seeds_share_a_member_seed():
    pairs = itertools.product(range(60), [*range(0, 1100, 7), *range(995, 1030)])
    seen = {}
    for master, s in pairs:
        seed = member_seed(master, s)
        assert seen.setdefault(seed, (master, s)) == (master, s), (master, s)
    # past member 999 the seeds leave the historic range
    assert member_seed(0, 1000) >= OFFSET and member_seed(1, 0) == 1000
    big = 10**9 - 1
    assert member_seed(big, 999) < OFFSET <= member_seed(0, 1000)
    assert member_seed(big, 5000) < 2**63


def test_a_shard_takes_the_seeds_of_its_members():
    assert member_seeds(3, 8, 4) == [member_seed(3, s) for s in range(8, 12)]
    assert member_seeds(3, 0, 8) + member_seeds(3, 8, 8) == member_seeds(3, 0, 16)


@pytest.mark.parametrize(
    "master, s", [(-1, 0), (0, -1), (10**9, 0), (0.5, 1), (True, 0)]
)
def test_bad_arguments_are_named(master, s):
    with pytest.raises(ValueError, match="member_seed"):
        member_seed(master, s)
