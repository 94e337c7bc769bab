"""A ranking of restrained solutions learned on training complexes: gradient-boosted trees
(LightGBM's lambdarank), shipped as arrays and evaluated here without LightGBM.

Each solution the 40 % filter keeps is described by the percentile rank, within its docking,
of eight features: the run's score, DFIRE without restraint terms, ``dfire_soft``, MJ3h,
restraint satisfaction (active residues; active and passive), cluster size and population
(:data:`FEATURES`). The trees were fitted on the restrained dockings of training complexes
only (``benchmarks/restrained_learned.py --export``; the file records which, the parameters
and the seeds); several seeds' models are summed. A split sends a value to its left child
when it is at most the threshold, as LightGBM's numerical splits do, so the scores equal
LightGBM's predictions (checked against the predictions stored at export:
``tests/test_learned_ranking.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from .ranks import average_ranks

#: The features, in the model's column order (names as the ranking's feature dict holds them).
FEATURES = (
    "score", "dfire", "dfire_soft", "mj3h", "satisfaction_active", "satisfaction",
    "cluster_size", "population",
)  # fmt: skip
#: The shipped model (``data/``).
MODEL_FILE = "restrained_ranker.json"


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


@cache
def shipped_model() -> tuple[Trees, dict[str, Any]]:
    """The shipped trees and the record of how they were made (read once)."""
    text = resources.files("sparkledock").joinpath(f"data/{MODEL_FILE}").read_text()
    data = json.loads(text)
    arrays = data["trees"]
    trees = Trees(
        feature=np.asarray(arrays["feature"], dtype=np.int64),
        threshold=np.asarray(arrays["threshold"], dtype=np.float64),
        left=np.asarray(arrays["left"], dtype=np.int64),
        right=np.asarray(arrays["right"], dtype=np.int64),
        value=np.asarray(arrays["value"], dtype=np.float64),
        roots=np.asarray(arrays["roots"], dtype=np.int64),
    )
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"{MODEL_FILE}: features {data['features']} are not {FEATURES}")
    return trees, {k: v for k, v in data.items() if k != "trees"}


def percentiles(values: np.ndarray) -> np.ndarray:
    """Each value's rank within the docking over the count (ties share their mean rank)."""
    values = np.asarray(values, dtype=np.float64)
    return average_ranks(values) / max(len(values), 1)


def feature_matrix(features: dict[str, np.ndarray]) -> np.ndarray:
    """(N, 8) percentile ranks of :data:`FEATURES` (larger is better for each)."""
    return np.column_stack([percentiles(features[name]) for name in FEATURES])


def learned_key(features: dict[str, np.ndarray]) -> np.ndarray:
    """The shipped model's score of each solution (larger first)."""
    trees, _ = shipped_model()
    return trees.predict(feature_matrix(features))
