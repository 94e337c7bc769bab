"""Ranking methods for the solutions of a docking: pure functions over arrays.

A docking leaves, per swarm, its final glowworms and its cluster representatives. LightDock
ranks the representatives of all swarms by score alone (``dfire``); in blind docking the
search finds near-native poses far more often than that ranking puts them first. The methods
here reorder the same representatives:

* ``dfire``: by score (LightDock's ``lgd_rank.py``).
* ``soft_consensus``: the mean of each representative's rank by DFIRE, by ``dfire_soft`` and
  by MJ3h (Miyazawa–Jernigan residue contacts, LightDock's ``mj3h``): the search's own
  potential, its clash-tolerant form and a residue-level one, equal weights. The blind
  model's fallback outside its domain (the blind default before it): of the rank consensus
  of any one to four of DFIRE,
  ``dfire_soft``, TOBI, PISA and MJ3h, the one that put the most acceptable models in the top
  10 of the blind benchmark, chosen again for 18 of 19 complexes when each is left out
  (benchmarks/notebook/performance.md gives what that choice is worth on a complex it did not see).

* ``paratope``: for an antibody receptor docked with ``--paratope``: the mean of each
  representative's ranks by DFIRE, ``dfire_soft``, MJ3h and its CDR share (of the receptor's
  residues within 5 Å of the ligand, the share that are CDR residues: an antibody binds with
  its CDRs), equal weights, ties in the share ranked as their mean. The default of such a
  docking (benchmarks/notebook/performance.md, "Antibodies on their CDRs", measures it and the tried
  alternatives).

* ``restraints``: for a restrained docking: the mean of each solution's rank by score and by
  restraint satisfaction (the share of active and passive restraint residues in contact, as
  the 40 % filter counts them; ties ranked as their mean), over the solutions the filter
  kept. The score already rewards restraints through LightDock's terms, but only those
  residues within 2.5 Å; the satisfaction share counts contacts within 5 Å and the passive
  residues. The default of a restrained docking under the sparkledock protocol, chosen on the
  training complexes (benchmarks/notebook/performance.md, "Restrained protocol"); the default before
  ``learned``; the partial model's fallback outside its domain.
* ``learned``: for a restrained docking: gradient-boosted trees fitted on the restrained
  dockings of training complexes only (:mod:`.learned`) over each kept solution's percentile
  ranks of score, DFIRE, ``dfire_soft``, MJ3h, restraint satisfaction (active; active and
  passive), cluster size and population. The default of a restrained docking under the
  sparkledock protocol since it beat ``restraints`` on the twenty evaluation complexes,
  evaluated once, frozen (benchmarks/notebook/performance.md, "fifth pass").
* ``learned_blind``: for a docking without restraints: gradient-boosted trees fitted on the
  blind dockings of training complexes only (:mod:`.learned`, ``benchmarks/
  blind_learned.py``) over each representative's percentile ranks of score, ``dfire_soft``,
  MJ3h, TOBI, PISA, vdW, SIPPER, cluster size and population, its interface sizes, its
  standing in its swarm and its atom contacts (clashes, contacts, buried atoms;
  :mod:`.features`). Outside its training domain (nucleic acids, membranes, ``--paratope``)
  it ranks by ``soft_consensus`` (``paratope`` with CDRs) instead, with a warning
  (:func:`.learned.in_domain`).

* ``learned_partial``: for a restrained docking with one side known, or one of several
  alternative patches: trees fitted on training dockings of LightDock's BM5 study's partial
  scenarios (:mod:`.learned`, ``benchmarks/partial_learned.py``) over the blind model's
  features, DFIRE and the satisfaction of the given restraints.

Methods measured and not chosen (population, pyDock, DFIRE+PISA, clash-tolerant DFIRE and
their consensus) live with the research (``benchmarks/lab_rankings.py``).

Poses are compared through a few ligand landmarks (C-alpha or C4' atoms spread over the
ligand by farthest-point sampling): their RMSD tracks the ligand RMSD of the whole backbone
closely, and a k-d tree over them counts neighbours among tens of thousands of glowworms in
well under a second.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Sequence

import numpy as np
from scipy.spatial import cKDTree

from ..errors import SparkledockError, SparkledockWarning
from ..io.lightdock import GSOOutput
from ..molecule.restraints import Restraints
from ..molecule.system import DockingSetup
from .features import CONTACTS, INTERFACE, SWARM, solution_features
from .filter import satisfaction
from .learned import METHOD_MODELS, diversity, in_domain, learned_key
from .models import complex_coordinates
from .rank import Ranked, rank_glowworms
from .ranks import ranks, tied_ranks

#: Landmark atoms per ligand.
LANDMARKS = 12
#: Ligand RMSD (Å, over the landmarks) within which a glowworm counts for a representative.
POPULATION_RADIUS_A = 4.0


def landmark_atoms(setup: DockingSetup, count: int = LANDMARKS) -> np.ndarray:
    """Indices (into the complex's atoms) of ``count`` ligand atoms spread over the ligand:
    farthest-point sampling of its C-alpha / C4' atoms (all atoms if it has none),
    starting from the one nearest the ligand's centre."""
    lig = setup.ligand.atoms
    names = lig.atom_name.astype(str)
    pool = np.flatnonzero((names == "CA") | (names == "C4'"))
    if len(pool) == 0:
        pool = np.arange(len(lig))
    xyz = lig.coords[pool]
    chosen = [int(np.argmin(((xyz - xyz.mean(axis=0)) ** 2).sum(axis=1)))]
    gap = ((xyz - xyz[chosen[0]]) ** 2).sum(axis=1)
    while len(chosen) < min(count, len(pool)):
        nxt = int(np.argmax(gap))
        chosen.append(nxt)
        gap = np.minimum(gap, ((xyz - xyz[nxt]) ** 2).sum(axis=1))
    return len(setup.receptor.atoms) + pool[np.array(chosen)]


def landmarks(setup: DockingSetup, poses: np.ndarray, atoms: np.ndarray) -> np.ndarray:
    """(P, K·3) landmark coordinates of poses (receptor frame), flattened for a k-d tree."""
    select = np.zeros(len(setup.receptor.atoms) + len(setup.ligand.atoms), dtype=bool)
    select[atoms] = True
    xyz = complex_coordinates(setup, poses, select=select)
    order = np.argsort(np.argsort(atoms))  # landmarks in the requested order
    n_rec = int(select[: len(setup.receptor.atoms)].sum())
    return xyz[:, n_rec:][:, order].reshape(len(poses), -1)


def population(
    representatives: np.ndarray, everyone: np.ndarray, radius: float = POPULATION_RADIUS_A
) -> np.ndarray:
    """Per representative (rows of flattened landmarks), how many of ``everyone`` lie within
    ``radius`` Å landmark RMSD of it (itself included when it is among them)."""
    k = representatives.shape[1] // 3
    tree = cKDTree(everyone)
    hits = tree.query_ball_point(representatives, r=radius * np.sqrt(k), return_length=True)
    return np.asarray(hits, dtype=np.int64)


#: What each method needs besides the score (a feature: an array over the representatives).
NEEDS = {
    "dfire": (),
    "soft_consensus": ("dfire_soft", "mj3h"),
    "paratope": ("paratope", "dfire_soft", "mj3h"),
    "restraints": ("satisfaction",),
    "learned": (
        "population",
        "dfire",
        "dfire_soft",
        "mj3h",
        "satisfaction",
        "satisfaction_active",
        "cluster_size",
    ),
    "learned_blind": (
        "population",
        "cluster_size",
        "dfire_soft",
        "mj3h",
        "tobi",
        "pisa",
        "vdw",
        "sipper",
        *INTERFACE,
        *SWARM,
        *CONTACTS,
    ),
}
NEEDS["learned_partial"] = (
    *NEEDS["learned_blind"], "dfire", "satisfaction", "satisfaction_active",
)  # fmt: skip

#: The ranking ``dock`` uses without restraints (when the search scores with DFIRE), and
#: with them (LightDock's protocol, or another scoring function: by score; a DFIRE search
#: under sparkledock's protocol: ``learned``): benchmarks/notebook/performance.md measures them.
#: The blind
#: default is the model learned on training complexes since its second evaluation on the
#: twenty (2 / 3 / 3 at top 1 / 5 / 10 against soft_consensus's 1 / 3 / 3); outside its
#: training domain it falls back to ``soft_consensus`` (:func:`.learned.in_domain`).
BLIND_DEFAULT = "learned_blind"
RESTRAINED_DEFAULT = "dfire"
RESTRAINED_DFIRE_DEFAULT = "learned"


PARATOPE_DEFAULT = "paratope"


#: The names a DFIRE search goes by (LightDock's ``fastdfire`` included): the blind defaults
#: (this ranking, and fast scoring in :func:`sparkledock.docking.default_scoring_mode`) were
#: measured on DFIRE searches only.
DFIRE_SEARCH = ("dfire", "fastdfire")


#: The levels of knowledge (:data:`sparkledock.molecule.restraints.LEVELS`) whose restrained
#: dockings rank by :data:`PARTIAL_DEFAULT`, the model fitted on the training scenarios'
#: dockings: with the ligand's side unknown it beat, held out by complex, the models fitted
#: on whole interfaces and on blind dockings (benchmarks/partial_learned.py;
#: benchmarks/notebook/performance.md, "Partial knowledge, second part"). An alternative
#: patch (``dock -r A -r B``) ranks by it too (:data:`ALTERNATIVE_LEVEL`).
PARTIAL_RANKED_LEVELS = ("one receptor residue", "receptor side", "alternative patch")
#: What :func:`default_method` is told for one alternative of several (its restraints' own
#: level aside): a patch that may or may not be the interface.
ALTERNATIVE_LEVEL = "alternative patch"
#: The levels ranked by the run's score (LightDock's ranking): one residue of each side,
#: where no fitted model beat the score held out on training scenarios (the same page).
SCORE_RANKED_LEVELS = ("one pair",)
PARTIAL_DEFAULT = "learned_partial"


def default_method(
    restrained: bool, scoring: str = "dfire", paratope: bool = False, level: str | None = None
) -> str:
    """The ranking a docking uses unless told (under sparkledock's protocol; LightDock's
    ranks by score): for a DFIRE search, :data:`BLIND_DEFAULT` without restraints (where
    ranking by DFIRE loses most near-native solutions), :data:`PARATOPE_DEFAULT` on an
    antibody's CDRs (``paratope``) and :data:`RESTRAINED_DFIRE_DEFAULT` with restraints
    (chosen on the training complexes), :data:`PARTIAL_DEFAULT` where they leave the
    ligand's side unknown or are one alternative of several (``level`` in
    :data:`PARTIAL_RANKED_LEVELS`), the score where they give one pair
    (:data:`SCORE_RANKED_LEVELS`); by the search's own score for another scoring function or
    a combination (the user's choice of ranking too)."""
    if scoring not in DFIRE_SEARCH:
        return RESTRAINED_DEFAULT
    if restrained and level not in (*PARTIAL_RANKED_LEVELS, *SCORE_RANKED_LEVELS):
        return RESTRAINED_DFIRE_DEFAULT
    if paratope:
        return PARATOPE_DEFAULT
    if not restrained:
        return BLIND_DEFAULT
    return PARTIAL_DEFAULT if level in PARTIAL_RANKED_LEVELS else "dfire"


#: Features :func:`rerank` computes itself; the others of :data:`NEEDS` are re-scores or
#: :func:`~.features.solution_features`'.
OWN_FEATURES = ("population", "cluster_size", "satisfaction", "satisfaction_active", "paratope")
#: Features that are re-scores by a scoring function of that name (``dfire``: without the
#: restraint terms of the run's score).
RESCORED = ("cpydock", "pisa", "dfire", "dfire_soft", "tobi", "mj3h", "vdw", "sipper")


def _soft_consensus(features: dict[str, np.ndarray]) -> np.ndarray:
    """The mean of the ranks by score, ``dfire_soft`` and MJ3h (equal weights), negated."""
    score = features["score"]
    return -(ranks(score) + ranks(features["dfire_soft"]) + ranks(features["mj3h"]))


#: Each method's primary sort key (larger first) from its features (:data:`NEEDS`). Research
#: methods no default uses live beside the benchmarks that measured them
#: (``benchmarks/lab_rankings.py`` adds them here and to :data:`NEEDS` when imported).
KEYS: dict[str, Callable[[dict[str, np.ndarray]], np.ndarray]] = {
    "dfire": lambda f: np.asarray(f["score"], dtype=np.float64),
    "soft_consensus": _soft_consensus,
    # the consensus and the CDR share's rank, equal weights
    "paratope": lambda f: _soft_consensus(f) - tied_ranks(f["paratope"]),
    # the score's and the satisfaction's ranks, equal weights
    "restraints": lambda f: -(ranks(f["score"]) + tied_ranks(f["satisfaction"])),
    # trees fitted on training complexes (.learned)
    **{m: functools.partial(lambda m, f: learned_key(f, METHOD_MODELS[m]), m)
       for m in METHOD_MODELS},
}  # fmt: skip


def _key(method: str, features: dict[str, np.ndarray]) -> np.ndarray:
    """The primary sort key of ``method`` (larger first)."""
    if method not in KEYS:
        raise ValueError(f"unknown ranking method {method!r} (known: {', '.join(NEEDS)})")
    return KEYS[method](features)


#: Atoms closer than this (Å) are in contact for the paratope share (restraint filtering's).
CONTACT_A = 5.0
#: Poses whose coordinates are built at once.
CHUNK = 64


def paratope_share(
    setup: DockingSetup, poses: np.ndarray, paratope: Sequence[str], cutoff: float = CONTACT_A
) -> np.ndarray:
    """Per pose, the share of the receptor's residues within ``cutoff`` of the ligand that
    are ``paratope`` residues (LightDock ids); 0 for a pose without contacts."""
    rec = setup.receptor.atoms
    n_rec = len(rec)
    starts, residue = rec.residue_starts(), rec.residue_index()
    wanted = np.isin(rec.residue_ids()[starts], list(paratope))
    out = np.zeros(len(poses))
    for first in range(0, len(poses), CHUNK):
        chunk = complex_coordinates(setup, poses[first : first + CHUNK])
        for p, xyz in enumerate(chunk, first):
            lig = xyz[n_rec:]
            centre = lig.mean(axis=0)
            reach = np.sqrt(((lig - centre) ** 2).sum(axis=1).max()) + cutoff
            near = np.flatnonzero(((xyz[:n_rec] - centre) ** 2).sum(axis=1) <= reach * reach)
            if len(near) == 0:
                continue
            dist, _ = cKDTree(lig).query(xyz[near], distance_upper_bound=cutoff + 1e-6)
            touched = np.unique(residue[near[dist <= cutoff]])
            if len(touched):
                out[p] = wanted[touched].mean()
    return out


#: Landmark RMSD (Å) under which two representatives are one solution for ``diverse``.
DIVERSITY_RADIUS_A = 5.0


def diverse(
    marks: np.ndarray, ranked: np.ndarray, radius: float = DIVERSITY_RADIUS_A
) -> np.ndarray:
    """``ranked`` with near-duplicates moved back: going down the order, a representative
    within ``radius`` Å landmark RMSD of one already kept is set aside (greedy leader
    clustering, as ClusPro keeps one model per cluster); the set-aside ones follow the kept
    ones, in their order. Swarms that converge on the same site then fill one place in the
    top N, not several."""
    first = leaders(marks, ranked, radius)
    rest = np.asarray(ranked, dtype=np.int64)[~np.isin(ranked, first)]
    return np.concatenate([first, rest])


def leaders(marks: np.ndarray, ranked: np.ndarray, radius: float, count: int = 0) -> np.ndarray:
    """The leaders of :func:`diverse`'s greedy clustering, in ``ranked``'s order: each is
    farther than ``radius`` Å landmark RMSD from every better one (the first ``count`` only,
    when given: the distinct sites at the top of an order)."""
    k = marks.shape[1] // 3
    limit = radius * radius * k
    chosen: list[int] = []
    kept = np.empty((len(ranked), marks.shape[1]))
    for i in ranked:
        n = len(chosen)
        if n and (((kept[:n] - marks[i]) ** 2).sum(axis=1) <= limit).any():
            continue
        kept[n] = marks[i]
        chosen.append(int(i))
        if len(chosen) == count:
            break
    return np.array(chosen, dtype=np.int64)


def model_diversity(marks: np.ndarray, index: np.ndarray, model: str) -> np.ndarray:
    """``index`` (a learned model's order) with the model's own diversity step applied to its
    head (:func:`.learned.diversity`; unchanged for a model without one)."""
    step = diversity(model)
    if step is None:
        return index
    radius, head = step
    return np.concatenate([diverse(marks, index[:head], radius), index[head:]])


def order(method: str, features: dict[str, np.ndarray]) -> np.ndarray:
    """Indices of the representatives, best first, by ``method`` (:data:`NEEDS`):
    ``features`` holds ``score`` and what the method needs, one value per representative.

    Ties fall to the score, then to the input order, so the result is deterministic.
    """
    if method not in NEEDS:
        raise ValueError(f"unknown ranking method {method!r} (known: {', '.join(NEEDS)})")
    missing = [f for f in ("score", *NEEDS[method]) if f not in features]
    if missing:
        raise ValueError(f"ranking {method!r} needs {', '.join(missing)}")
    score = np.asarray(features["score"], dtype=np.float64)
    key = _key(method, features)
    return np.lexsort((np.arange(len(score)), -score, -key))


def rerank_kept(
    setup: DockingSetup,
    chosen: dict[int, tuple[GSOOutput, Sequence[int] | None]],
    kept: Sequence[Ranked],
    method: str,
    diversify: bool = False,
    restraints: Restraints | None = None,
    cluster_sizes: dict[tuple[int, int], int] | None = None,
) -> list[Ranked]:
    """``kept`` (solutions of ``chosen``'s swarms: those a restraint filter kept) in
    ``method``'s order among themselves, the population counted over every final glowworm of
    ``chosen``: a restrained docking's last ranking, what ``dock`` and :func:`sparkledock.rank`
    with ``solutions`` share."""
    ids: dict[int, tuple[GSOOutput, list[int]]] = {}
    for r in kept:
        ids.setdefault(r.swarm, (chosen[r.swarm][0], []))[1].append(r.glowworm)
    everyone = np.concatenate([data.poses for data, _ in chosen.values()])
    return rerank(
        setup, ids, method, diversify, restraints, everyone=everyone, cluster_sizes=cluster_sizes
    )


def ranking_features(
    setup: DockingSetup,
    ranked: Sequence[Ranked],
    names: Sequence[str],
    restraints: Restraints | None = None,
    everyone: np.ndarray | None = None,
    cluster_sizes: dict[tuple[int, int], int] | None = None,
    chosen: dict[int, tuple[GSOOutput, Sequence[int] | None]] | None = None,
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The features ``names`` (of :data:`NEEDS`' vocabulary) of ``ranked`` solutions, with
    ``score``, and their flattened landmarks: what a ranking method orders by, the same
    arrays a learned model's training reads (``everyone``: the glowworms the population
    counts, default ``chosen``'s)."""
    poses = np.array([r.pose for r in ranked]).reshape(len(ranked), setup.layout.size)
    features = {"score": np.array([r.score for r in ranked])}
    atoms = landmark_atoms(setup)
    marks = landmarks(setup, poses, atoms)
    if "population" in names:
        if everyone is None:
            everyone = np.concatenate([data.poses for data, _ in (chosen or {}).values()])
        features["population"] = population(marks, landmarks(setup, everyone, atoms))
    if "cluster_size" in names:
        sizes = cluster_sizes or {}
        features["cluster_size"] = np.array([sizes.get((r.swarm, r.glowworm), 1) for r in ranked])
    if "satisfaction" in names or "satisfaction_active" in names:
        if restraints is None:
            raise SparkledockError("ranking by restraint satisfaction needs restraints")
        features["satisfaction"] = satisfaction(setup, poses, restraints, include_passive=True)
        features["satisfaction_active"] = satisfaction(setup, poses, restraints)
    rest = tuple(name for name in names if name not in (*features, *OWN_FEATURES))
    if rest:  # (re-scores and the features module's: only those asked for)
        swarms = np.array([r.swarm for r in ranked])
        features = solution_features(
            setup, poses, swarms, features["score"], known=features, names=rest
        )
    if "paratope" in names:
        cdrs = setup.paratope
        if not cdrs:
            raise SparkledockError(
                f"{setup.path}: ranking 'paratope' needs a docking set up with {{0}}",
                "paratope",
            )
        features["paratope"] = paratope_share(setup, poses, cdrs)
    return features, marks


def rerank(
    setup: DockingSetup,
    chosen: dict[int, tuple[GSOOutput, Sequence[int] | None]],
    method: str = "dfire",
    diversify: bool = False,
    restraints: Restraints | None = None,
    everyone: np.ndarray | None = None,
    cluster_sizes: dict[tuple[int, int], int] | None = None,
) -> list[Ranked]:
    """The representatives of all swarms (per swarm: its final glowworms and the ids to
    rank) in ``method``'s order, optionally with near-duplicates moved back
    (:func:`diverse`). ``dfire`` without ``diversify`` is LightDock's ranking. ``restraints``:
    what the docking was restrained with (the ``satisfaction`` feature needs them);
    ``everyone``: the final glowworms the population counts (default: those of ``chosen``'s
    swarms); ``cluster_sizes``: each representative's cluster size, by (swarm, glowworm)."""
    if method not in NEEDS:
        raise ValueError(f"unknown ranking method {method!r} (known: {', '.join(NEEDS)})")
    ranked = rank_glowworms(chosen)
    if (method == "dfire" and not diversify) or len(ranked) < 2:
        return ranked
    method, why = in_domain(method, setup)
    if why is not None:
        warnings.warn(
            f"{setup.path}: the learned ranking was trained on protein-protein dockings and "
            f"{why}: ranking by {method} instead",
            SparkledockWarning,
            stacklevel=2,
        )
    if restraints is None and "satisfaction" in NEEDS[method]:
        raise SparkledockError(f"ranking {method!r} needs a docking with restraints")
    features, marks = ranking_features(
        setup, ranked, NEEDS[method], restraints, everyone, cluster_sizes, chosen
    )
    index = order(method, features)
    if method in METHOD_MODELS:
        index = model_diversity(marks, index, METHOD_MODELS[method])
    if diversify:
        index = diverse(marks, index)
    return [ranked[i] for i in index]
