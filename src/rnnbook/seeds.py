"""Member seeds: the seed of run ``s`` of a chapter at master seed ``master``, shared by the rooms.

A training chapter runs ``seeds`` independent members (networks, teacher/student pairs, ...) at
one master ``seed``; member ``s`` draws from :func:`member_seed` ``(master, s)``. The first
thousand members keep the book's historic seeds, ``1000 * master + s``; from member 1000 on, the
seed lies in a range of its own (``2**40`` plus the Cantor pairing of ``master`` and
``s - 1000``), so that no two (master, member) pairs share a seed, however many members a
record runs (``1000 * master + s`` alone made master 0's member 1000 master 1's member 0).
A shard of a record runs members ``seed_start .. seed_start + seeds - 1`` (a chapter's
``seed_start`` parameter), each with the seed it would have in one long run.
"""

from __future__ import annotations

#: members below this keep the historic ``1000 * master + s``
HISTORIC = 1000
#: masters below this keep ``1000 * master + 999`` below :data:`OFFSET`
MAX_MASTER = 10**9
#: where the seeds of members ``s >= HISTORIC`` start
OFFSET = 2**40


def member_seed(master: int, s: int) -> int:
    """The seed of member ``s`` (0, 1, ...) at master seed ``master``: ``1000 * master + s``
    for ``s < 1000``, else ``2**40 + cantor(master, s - 1000)``; one-to-one on
    ``0 <= master < 10**9``, ``s >= 0`` and below ``2**63``."""
    for name, value in (("master", master), ("s", s)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"member_seed: {name} = {value!r} must be an integer >= 0")
    if master >= MAX_MASTER:
        raise ValueError(f"member_seed: master = {master} must be below {MAX_MASTER}")
    if s < HISTORIC:
        return HISTORIC * master + s
    t = s - HISTORIC
    seed = OFFSET + (master + t) * (master + t + 1) // 2 + t
    if seed >= 2**63:
        raise ValueError(f"member_seed: member {s} of master {master} is past 2**63")
    return seed


def member_seeds(master: int, start: int, count: int) -> list[int]:
    """The seeds of members ``start .. start + count - 1`` (:func:`member_seed`)."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise ValueError(f"member_seeds: count = {count!r} must be an integer >= 0")
    return [member_seed(master, start + s) for s in range(count)]
