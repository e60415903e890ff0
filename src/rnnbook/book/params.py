"""Chapter parameters and profiles (ARCHITECTURE.md, *Profiles*).

Every chapter has one papermill ``parameters`` cell. Its ``profile`` picks a preset from a
:class:`Param` specification; any parameter given explicitly (not ``None``) overrides the preset.
A bad value stops the chapter with a :class:`ParameterError` naming the parameter and what is allowed.

The profiles, smallest first: ``smoke`` (tests), ``book`` (the published book, 2 CPU cores),
``gpu`` (the scale at which the training claims can be decided, on one GPU: a parameter without
its own ``gpu`` preset takes the ``book`` one) and ``paper`` (the papers' own sizes).
A chapter that trains or draws at random has a ``device`` parameter (:func:`Device`).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Callable, Mapping

PROFILES = ("smoke", "book", "gpu", "paper")

#: a ``Param`` without its own ``gpu`` preset takes its ``book`` one
BOOK = "<book>"


class ParameterError(ValueError):
    """A chapter parameter has a bad name or value."""


@dataclass(frozen=True)
class Param:
    """One chapter parameter: its type, its preset per profile and the rule its values must obey.

    ``kind`` is ``int``, ``float``, ``str``, ``bool`` or ``list`` (for ``list``, ``item`` is the type
    of the elements). ``check`` is a predicate on one value (on each element of a list) and ``allowed``
    says in words what it accepts, for the error message.
    """

    kind: type
    smoke: Any
    book: Any
    paper: Any
    check: Callable[[Any], bool] | None = None
    allowed: str = ""
    item: type | None = None
    help: str = ""
    training: bool = False  # a training length (steps, epochs): capped by a dry run
    repeats: bool = (
        False  # a repetition count (draws, networks, seeds): capped by a dry run
    )
    samples: bool = False  # an evaluation-set size: capped by a dry run
    gpu: Any = BOOK  # the gpu profile's preset (keyword only); BOOK: the book's
    convert: Callable[[Any], Any] | None = None  # applied to a valid value (the device)

    def preset(self, profile: str) -> Any:
        if profile == "gpu" and isinstance(self.gpu, str) and self.gpu == BOOK:
            return self.book
        return getattr(self, profile)


def _type_ok(value: Any, kind: type) -> bool:
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def _describe(p: Param) -> str:
    kind = (
        f"list of {p.item.__name__}" if p.kind is list and p.item else p.kind.__name__
    )
    return f"a {kind}" + (f" ({p.allowed})" if p.allowed else "")


def validate(name: str, value: Any, p: Param) -> Any:
    """Return ``value`` (ints promoted to float where a float is asked) or raise ParameterError."""
    if not _type_ok(value, p.kind):
        raise ParameterError(f"parameter {name!r} = {value!r}: must be {_describe(p)}")
    items = value if p.kind is list else [value]
    if p.kind is list:
        if len(value) == 0:
            raise ParameterError(
                f"parameter {name!r} = {value!r}: must be a non-empty {_describe(p)}"
            )
        if p.item is not None and not all(_type_ok(v, p.item) for v in value):
            raise ParameterError(
                f"parameter {name!r} = {value!r}: must be {_describe(p)}"
            )
    if p.check is not None and not all(p.check(v) for v in items):
        raise ParameterError(f"parameter {name!r} = {value!r}: must be {_describe(p)}")
    if p.kind is float:
        return float(value)
    if p.kind is list and p.item is float:
        return [float(v) for v in value]
    return value


def resolve(spec: Mapping[str, Param], profile: str, **given: Any) -> SimpleNamespace:
    """Resolve a chapter's parameters: the profile's presets, overridden by the values given.

    ``given`` holds the chapter's parameter variables; ``None`` means "use the preset".
    Raises :class:`ParameterError` on an unknown profile, an unknown name or a bad value.
    """
    if not isinstance(profile, str) or profile not in PROFILES:
        raise ParameterError(
            f"parameter 'profile' = {profile!r}: must be one of {', '.join(map(repr, PROFILES))}"
        )
    unknown = sorted(set(given) - set(spec))
    if unknown:
        raise ParameterError(
            f"unknown parameter {unknown[0]!r}; the parameters of this chapter are: profile, {', '.join(spec)}"
        )
    out = {"profile": profile}
    caps = {
        "training": dry_run_cap(),
        "repeats": dry_run_cap("RNNBOOK_DRY_RUN_REPEATS"),
        "samples": dry_run_cap("RNNBOOK_DRY_RUN_SAMPLES"),
    }
    for name, p in spec.items():
        value = given.get(name)
        kind = [k for k in caps if getattr(p, k)]
        cap = caps[kind[0]] if kind else None
        if value is None and cap is not None:
            value = min(p.preset(profile), cap)
            while p.check is not None and not p.check(value):  # e.g. at_least(10)
                value = min(p.preset(profile), 2 * value)
        out[name] = validate(name, p.preset(profile) if value is None else value, p)
        if p.convert is not None:
            try:
                out[name] = p.convert(out[name])
            except ValueError as e:
                raise ParameterError(str(e)) from None
    return SimpleNamespace(**out)


def _capped_count(smoke, book, paper, what, minimum, gpu=BOOK, **kind) -> Param:
    """An ``int >= minimum`` parameter that ``--dry-run`` caps (``kind``: training or repeats)."""
    return Param(
        int,
        smoke,
        book,
        paper,
        at_least(minimum),
        f">= {minimum}; {what}",
        gpu=gpu,
        **kind,
    )


def Device() -> Param:
    """The ``device`` parameter of a chapter that trains or draws at random: ``auto`` (CUDA
    when available, else the CPU), ``cpu`` or ``cuda``, resolved to ``"cpu"`` or ``"cuda"``
    by :func:`rnnbook.device.resolve` (``cuda`` where torch sees none stops the chapter)."""
    from rnnbook import device

    return Param(
        str,
        "auto",
        "auto",
        "auto",
        device.DEVICES.__contains__,
        "auto, cpu or cuda",
        help="where the chapter's networks and draws run; the draws do not depend on it",
        convert=device.resolve,
    )


def SeedStart() -> Param:
    """The ``seed_start`` parameter of a training chapter: the index of its first member, so
    that it runs members ``seed_start .. seed_start + seeds - 1``, each with the seed it has in
    one long run (:func:`rnnbook.seeds.member_seed`): a shard of a record (``record --shard``)."""
    return Param(
        int,
        0,
        0,
        0,
        at_least(0),
        ">= 0; the first member's index (a shard of a record)",
        help="members seed_start .. seed_start + seeds - 1 run; 0 in the book",
    )


def Steps(
    smoke: int, book: int, paper: int, what: str, minimum: int = 1, gpu: Any = BOOK
) -> Param:
    """A training length (steps, epochs, pre-training budget): an ``int >= minimum`` that
    ``--dry-run`` caps, so the paper profile's shapes run in minutes."""
    return _capped_count(smoke, book, paper, what, minimum, gpu, training=True)


def Repeats(
    smoke: int, book: int, paper: int, what: str, minimum: int = 1, gpu: Any = BOOK
) -> Param:
    """A repetition count (Monte Carlo draws, random networks, independent sequences): an
    ``int >= minimum`` that ``--dry-run`` caps, so that each draw keeps the paper profile's
    shapes while the paper's thousands of repetitions do not turn minutes into hours."""
    return _capped_count(smoke, book, paper, what, minimum, gpu, repeats=True)


def Samples(
    smoke: int, book: int, paper: int, what: str, minimum: int = 1, gpu: Any = BOOK
) -> Param:
    """An evaluation-set size (validation or test examples): an ``int >= minimum`` that
    ``--dry-run`` caps, because evaluating every run of a grid on the paper's 10,000 examples is
    hours of work that exercises no shape a few hundred examples do not."""
    return _capped_count(smoke, book, paper, what, minimum, gpu, samples=True)


def dry_run_cap(variable: str = "RNNBOOK_DRY_RUN") -> int | None:
    """Under ``python -m rnnbook build --dry-run``: the cap on every training-length parameter
    (``RNNBOOK_DRY_RUN=<steps>``), repetition count (``RNNBOOK_DRY_RUN_REPEATS``) or
    evaluation-set size (``RNNBOOK_DRY_RUN_SAMPLES``); otherwise None."""
    import os

    raw = os.environ.get(variable)
    return int(raw) if raw else None


def describe(P: SimpleNamespace) -> str:
    """The resolved parameters of a chapter as one Markdown line (shown under its parameters cell)."""
    return f"Profile **{P.profile}**: " + ", ".join(
        f"`{k}={v}`" for k, v in vars(P).items() if k != "profile"
    )


def positive(x: Any) -> bool:
    return x > 0


def in_open_unit(x: Any) -> bool:
    return 0 < x < 1


def at_least(k: int) -> Callable[[Any], bool]:
    def check(x: Any) -> bool:
        return x >= k

    return check
