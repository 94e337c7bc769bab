"""Rankings learned on training complexes: gradient-boosted trees (LightGBM's lambdarank),
shipped as arrays and evaluated here without LightGBM (:data:`MODELS`).

* ``restrained`` (ranking ``learned``): each solution the 40 % filter keeps is described by
  the percentile rank, within its docking, of eight features: the run's score, DFIRE without
  restraint terms, ``dfire_soft``, MJ3h, restraint satisfaction (active residues; active and
  passive), cluster size and population (:data:`RESTRAINED`); fitted on the restrained
  dockings of training complexes only (``benchmarks/restrained_learned.py --export``).
* ``partial`` (ranking ``learned_partial``): each solution a partial-knowledge docking's
  filter keeps (one side, one residue, a patch among alternatives) by the blind model's
  features, DFIRE and the satisfaction of what was given (:data:`PARTIAL`); fitted on the
  training scenarios' dockings only (``benchmarks/partial_learned.py --export``).
* ``blind`` (ranking ``learned_blind``): each representative of a docking without restraints
  by the ranks of its score and re-scores, cluster size and population, and the values of
  its interface sizes and standing in its swarm (:data:`BLIND`, :mod:`.features`); fitted on
  blind dockings of training complexes only (``benchmarks/blind_learned.py --export``).

The per-residue interface-propensity model (:mod:`.propensity`) is read by
:func:`read_trees` too.

Each file records its training complexes, parameters and seeds; several seeds' models are
summed. A split sends a value to its left child when it is at most the threshold, as
LightGBM's numerical splits do, so the scores equal LightGBM's predictions (checked against
the predictions stored at export: ``tests/test_learned_ranking.py``,
``tests/test_blind_learned.py``). :func:`model_hash` names a shipped model in run.json.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from ..molecule.residues import NUCLEOTIDES
from ..molecule.system import DockingSetup
from .ranks import average_ranks

#: Each model's features in its column order: (name as the ranking's feature dict holds it,
#: ``rank``: its percentile rank within the docking | ``raw``: the value itself).
RESTRAINED = tuple(
    (name, "rank")
    for name in (
        "score", "dfire", "dfire_soft", "mj3h", "satisfaction_active", "satisfaction",
        "cluster_size", "population",
    )
)  # fmt: skip
#: The blind model's energies and geometry: the run's score and the re-scores, the cluster's
#: size and population as ranks within the docking; the interface sizes, the standing in the
#: swarm and the atom-level contacts (clashes, contacts, buried atoms) as they are
#: (:mod:`.features`).
BLIND_BASE = (
    *((name, "rank") for name in ("score", "dfire_soft", "mj3h", "tobi", "pisa", "vdw", "sipper")),
    ("cluster_size", "rank"), ("population", "rank"),
    ("interface_receptor", "raw"), ("interface_ligand", "raw"), ("interface_pairs", "raw"),
    ("rank_in_swarm", "raw"), ("swarm_representatives", "rank"),
    ("clash_pairs", "raw"), ("contact_pairs", "raw"), ("buried_receptor_atoms", "raw"),
    ("buried_ligand_atoms", "raw"),
)  # fmt: skip
#: The shipped blind model's features, in its column order.
BLIND = BLIND_BASE
#: The partial-knowledge model's: the blind model's, DFIRE without restraint terms, and the
#: satisfaction of what was given (active residues; active and passive), as ranks.
PARTIAL = (
    *BLIND_BASE, ("dfire", "rank"), ("satisfaction_active", "rank"), ("satisfaction", "rank"),
)  # fmt: skip
#: The shipped models (``data/``) and their features.
MODELS = {
    "restrained": ("restrained_ranker.json", RESTRAINED),
    "blind": ("blind_ranker.json", BLIND),
    "partial": ("partial_ranker.json", PARTIAL),
}
#: The ranking methods that use a shipped model, and which.
METHOD_MODELS = {"learned": "restrained", "learned_blind": "blind", "learned_partial": "partial"}
#: What a learned method ranks by outside its model's training domain (:func:`outside`):
#: the blind and partial models learned on protein-protein dockings without membranes or CDRs.
FALLBACK = {
    "learned_blind": ("soft_consensus", "paratope"),
    "learned_partial": ("restraints", "paratope"),
}
#: The restrained model's features' names (kept for readers of the earlier spelling).
FEATURES = tuple(name for name, _ in RESTRAINED)
MODEL_FILE = MODELS["restrained"][0]


@dataclass(frozen=True)
class Trees:
    """Every tree's nodes in flat arrays: per node its feature (-1 for a leaf), threshold,
    left and right children and leaf value; ``roots`` are the trees' first nodes."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    roots: np.ndarray

    def predict(self, x: np.ndarray) -> np.ndarray:
        """The sum of every tree's leaf for each row of (N, F) ``x``."""
        x = np.asarray(x, dtype=np.float64)
        out = np.zeros(len(x))
        rows = np.arange(len(x))
        for root in self.roots.tolist():
            node = np.full(len(x), root)
            while True:
                inner = self.feature[node] >= 0
                if not inner.any():
                    break
                at = node[inner]
                go_left = x[rows[inner], self.feature[at]] <= self.threshold[at]
                node[inner] = np.where(go_left, self.left[at], self.right[at])
            out += self.value[node]
        return out


def trees_from_lightgbm(dumps: list[dict[str, Any]]) -> dict[str, list]:
    """Flat node lists from LightGBM ``dump_model()`` outputs (several models: summed)."""
    nodes: dict[str, list] = {k: [] for k in ("feature", "threshold", "left", "right", "value")}
    roots = []

    def add(tree: dict[str, Any]) -> int:
        k = len(nodes["feature"])
        for key in nodes:
            nodes[key].append(-1 if key in ("feature", "left", "right") else 0.0)
        if "leaf_value" in tree:
            nodes["value"][k] = float(tree["leaf_value"])
            return k
        if tree.get("decision_type", "<=") != "<=":
            raise ValueError(f"unsupported split {tree['decision_type']!r}")
        nodes["feature"][k] = int(tree["split_feature"])
        nodes["threshold"][k] = float(tree["threshold"])
        nodes["left"][k] = add(tree["left_child"])
        nodes["right"][k] = add(tree["right_child"])
        return k

    for dump in dumps:
        for info in dump["tree_info"]:
            roots.append(add(info["tree_structure"]))
    return {**nodes, "roots": roots}


def model_bytes(model: str = "restrained") -> bytes:
    """The shipped file of ``model`` (:data:`MODELS`)."""
    return resources.files("sparkledock").joinpath(f"data/{MODELS[model][0]}").read_bytes()


def model_hash(model: str = "restrained") -> str:
    """The identity of a shipped model: the first 16 hex digits of its file's SHA-256 (in
    run.json beside the ranking that used it)."""
    return hashlib.sha256(model_bytes(model)).hexdigest()[:16]


@cache
def read_trees(name: str, features: tuple) -> tuple[Trees, dict[str, Any]]:
    """The trees of the shipped file ``data/<name>`` and the record of how they were made
    (read once); refused unless the file's columns are ``features`` (names, or (name, how)
    pairs as :data:`MODELS` gives them; a file written with names only is checked by name)."""
    data = json.loads(resources.files("sparkledock").joinpath(f"data/{name}").read_bytes())
    arrays = data["trees"]
    trees = Trees(
        feature=np.asarray(arrays["feature"], dtype=np.int64),
        threshold=np.asarray(arrays["threshold"], dtype=np.float64),
        left=np.asarray(arrays["left"], dtype=np.int64),
        right=np.asarray(arrays["right"], dtype=np.int64),
        value=np.asarray(arrays["value"], dtype=np.float64),
        roots=np.asarray(arrays["roots"], dtype=np.int64),
    )
    written = [f if isinstance(f, str) else tuple(f) for f in data["features"]]
    by_name = isinstance(written[0], str)
    expected = [f[0] if by_name and not isinstance(f, str) else f for f in features]
    if written != expected:
        raise ValueError(f"{name}: features {data['features']} are not {expected}")
    return trees, {k: v for k, v in data.items() if k != "trees"}


def shipped_model(model: str = "restrained") -> tuple[Trees, dict[str, Any]]:
    """The shipped trees of ``model`` and the record of how they were made (read once)."""
    name, spec = MODELS[model]
    return read_trees(name, spec)


def percentiles(values: np.ndarray) -> np.ndarray:
    """Each value's rank within the docking over the count (ties share their mean rank)."""
    values = np.asarray(values, dtype=np.float64)
    return average_ranks(values) / max(len(values), 1)


def feature_matrix(
    features: dict[str, np.ndarray], spec: tuple[tuple[str, str], ...] = RESTRAINED
) -> np.ndarray:
    """(N, F) model input: per feature of ``spec``, its percentile rank within the docking
    (``rank``) or its value (``raw``)."""
    columns = []
    for name, how in spec:
        values = np.asarray(features[name], dtype=np.float64)
        columns.append(percentiles(values) if how == "rank" else values)
    return np.column_stack(columns)


def learned_key(features: dict[str, np.ndarray], model: str = "restrained") -> np.ndarray:
    """The shipped ``model``'s score of each solution (larger first)."""
    trees, _ = shipped_model(model)
    return trees.predict(feature_matrix(features, MODELS[model][1]))


def diversity(model: str = "blind") -> tuple[float, int] | None:
    """The shipped ``model``'s diversity step, or None: (radius in Å of landmark RMSD, head):
    within the first ``head`` of its order, a solution that close to a better one is moved
    behind the others (:func:`.ranking.diverse`), so swarms converged on one site fill one
    place near the top. Chosen with the model by cross-validation on training complexes and
    recorded in its file (``"diversity"``), so the model's hash covers it."""
    step = shipped_model(model)[1].get("diversity")
    if not step:
        return None
    return float(step["radius_a"]), int(step["head"])


def outside(setup: DockingSetup) -> str | None:
    """Why ``setup`` lies outside the training domain of the blind model (protein-protein
    dockings, no membrane, no ``--paratope``), or None."""
    for partner in ("receptor", "ligand"):
        names = getattr(setup, partner).atoms.res_name.astype(str)
        if np.isin(names, list(NUCLEOTIDES)).any():
            return f"the {partner} holds nucleic acids"
    if setup.config.get("membrane") or setup.config.get("transmembrane"):
        return "a membrane docking"
    if setup.paratope:
        return "an antibody docked on its CDRs (paratope)"
    return None


def in_domain(method: str, setup: DockingSetup) -> tuple[str, str | None]:
    """The method a docking is ranked by when ``method`` is asked for: a learned one outside
    its training domain falls back (:data:`FALLBACK`: to ``paratope`` for a ``--paratope``
    docking, else ``soft_consensus``, or ``restraints`` for the partial model), with the
    reason."""
    if method not in FALLBACK:
        return method, None
    why = outside(setup)
    if why is None:
        return method, None
    blind, cdrs = FALLBACK[method]
    return (cdrs if setup.paratope else blind), why
