"""What mc3g ships for a data set in ``mc3g/resources``, read in one place.

For each data set there are two kinds of file: its causal knowledge, ``NAME.causal`` (causal
rules, constraints, and feature settings that are facts about the data: they hold under every
profile), and each profile's own feature settings, ``NAME.PROFILE.causal`` (the product's:
advice a lender may give; the paper's: its experiments).  A file of the folder is read for every
split of its data set, against that split's schema, so it may name only features every split
has.  A split's own files have the same names in a folder named after the split
(``uci/adult.causal``, ``uci/adult.product.causal``: adult's UCI split has ``education`` and
``capital_loss``, which the paper's lacks), and each is laid over its counterpart: the split's
knowledge joins the data set's (the rules and constraints of both), and a split's profile
settings may tighten the profile's settings for the data set, never lift them
(:data:`~mc3g.protections.PROTECTIONS`).  A folder, not a longer name: ``adult.paper.causal`` is
the paper profile's file, so a name could not tell a split's knowledge from a profile's settings
where a split and a profile share a name.
"""

from __future__ import annotations

from dataclasses import replace
from importlib import resources
from importlib.resources.abc import Traversable

from ..causal import CausalModel
from ..exceptions import InternalError
from ..profiles import Profile
from ..schema import ProfileSettings, Schema

RESOURCES: Traversable = resources.files("mc3g.resources")
"""The folder of the shipped files (``mc3g/resources``)."""

_Files = dict[Profile | None, list[CausalModel]]  # None: the knowledge; else a profile's settings


def shipped_knowledge(schema: Schema, split: str, folder: Traversable = RESOURCES) -> CausalModel | None:
    """The causal knowledge shipped for the data set ``schema`` describes, on ``split``:
    ``NAME.causal`` and the split's own (``SPLIT/NAME.causal``), the rules and constraints of
    both; named after the data set.  None when none ships."""
    layers = _read(schema, split, folder).get(None)
    if not layers:
        return None
    knowledge = layers[0] if len(layers) == 1 else layers[0].combined(layers[1])
    return replace(knowledge, name=schema.name)


def shipped_profiles(schema: Schema, split: str, folder: Traversable = RESOURCES) -> dict[Profile, ProfileSettings]:
    """Each profile's own settings for the data set ``schema`` describes, on ``split``
    (``NAME.PROFILE.causal``, with the split's ``SPLIT/NAME.PROFILE.causal`` laid over it).  They
    travel with the schema, so every route that names it gets them: the command line, the
    service, ``MC3G(..., schema=ds.schema)``.  Such a file holds feature settings only: a causal
    rule or a constraint is knowledge, which goes in ``NAME.causal``.  A split's file that lifts
    a protection of the profile's settings or of the data is a shipped defect
    (:class:`InternalError`)."""
    found: dict[Profile, ProfileSettings] = {}
    for profile, layers in _read(schema, split, folder).items():
        if profile is None:
            continue
        for settings in layers:
            if settings.rules or settings.constraints:
                raise InternalError(f"{settings.name} holds causal rules or constraints; a profile's file holds feature settings only")
        if len(layers) == 2:
            _tightened(schema, *layers)
        laid = layers[0] if len(layers) == 1 else layers[0].combined(layers[1])
        found[profile] = ProfileSettings(laid.features, {name: str(where) for name, where in laid.sources.items()})
    return found


def _tightened(schema: Schema, shared: CausalModel, own: CausalModel) -> None:
    """Refuse a split's profile file (``own``) that lifts a protection of the data's metadata
    with the profile's settings for every split (``shared``) laid over it."""
    before = shared.schema(schema)
    after = own.schema(before)
    for name in own.features:
        lifted = before.feature(name).lifted(after.feature(name))
        if lifted is not None:
            raise InternalError(
                f"{own.sources[name]}: lifts {name!r} {lifted[1]}, which {shared.name} and {schema.name}'s metadata declare; "
                "a split's file may tighten a profile's settings, never lift them"
            )


def _read(schema: Schema, split: str, folder: Traversable) -> _Files:
    """Every shipped file of the data set for ``split``, parsed against ``schema``: the knowledge
    (key None) and each profile's settings, the file for every split first, then the split's.
    Each model is named after its file, which every message about it starts with."""
    found: _Files = {}
    for place, shown in ((folder, "mc3g/resources"), (folder.joinpath(split), f"mc3g/resources/{split}")):
        if not place.is_dir():
            continue
        for entry in sorted(place.iterdir(), key=lambda e: e.name):
            dataset, _, rest = entry.name.partition(".")
            if dataset != schema.name or not entry.name.endswith(".causal") or not entry.is_file():
                continue
            profile = rest.removesuffix("causal").removesuffix(".") or None
            file = f"{shown}/{entry.name}"
            if profile is not None and profile not in tuple(Profile):
                raise InternalError(
                    f"{file}: a shipped file is NAME.causal or NAME.PROFILE.causal, PROFILE one of {', '.join(Profile)}, "
                    "and a split's files are in its folder (SPLIT/NAME.causal)"
                )
            parsed = CausalModel.parse(entry.read_text(encoding="utf-8"), file=file, schema=schema)
            found.setdefault(None if profile is None else Profile(profile), []).append(replace(parsed, name=file))
    return found
