"""(Research) Ranking methods measured on the blind benchmark and not chosen by any default:
importing this module adds them to the package's rankings
(:data:`sparkledock.analysis.ranking.NEEDS` and ``KEYS``), so ``blind_accuracy.py`` and
other research scripts can rank by them; the package itself ships only the methods a default
or a fallback uses. benchmarks/notebook/performance.md ("Blind docking", "Ranking") has what
each gave.

* ``population``: by how many of *all* final glowworms, over every swarm, sit within
  :data:`POPULATION_RADIUS_A` ligand RMSD of the representative (ClusPro's observation that
  near-native solutions form the most populated low-energy clusters: Kozakov et al., Proteins
  65:392, 2006), ties by score.
* ``pydock``: by pyDock's energy (LightDock's ``cpydock``: electrostatics, desolvation and
  0.1 × van der Waals; Cheng et al., Proteins 68:503, 2007), the scoring that pyDock and
  LightDock's authors use to rank rigid-body poses.
* ``consensus``: the sum of the standard scores of DFIRE and pyDock (equal weights, nothing
  fitted).
* ``population_consensus``: the sum of the standard scores of DFIRE and of the logarithm of
  the population (equal weights, nothing fitted).
* ``dfire_pisa``: the mean of each representative's rank by DFIRE and by PISA (LightDock's
  ``pisa``, an atomic contact potential of another origin: a consensus of two statistical
  potentials, equal weights, nothing fitted).
* ``soft``: by DFIRE with side-chain clashes forgiven (``dfire_soft``: the table's clash caps
  set to 0 except between two backbone atoms). Rigid-body poses of *unbound* structures
  that are near the native one carry tens to hundreds of interpenetrating side-chain atom
  pairs (the bound rotamers are not there); DFIRE charges each +10 energy units and ranks
  those poses low. Tolerating surface overlap is how rigid-body docking of unbound structures
  has always coped with it (the penetrable surface layer of FFT docking, Katchalski-Katzir et
  al., PNAS 89:2195, 1992); here only the ranking forgives, the search keeps DFIRE.
* ``soft_tobi``: the mean of each representative's rank by ``dfire_soft`` and by TOBI
  (Tobi's residue-level potential, LightDock's ``tobi``: side-chain centroids, so tolerant of
  side-chain clashes in another way): a consensus of an atom-level and a residue-level
  potential, equal weights, nothing fitted.
"""

from __future__ import annotations

import numpy as np

from sparkledock.analysis import ranking
from sparkledock.analysis.ranks import ranks


def zscore(values: np.ndarray) -> np.ndarray:
    """Standard scores over the representatives (0 where all are equal)."""
    values = np.asarray(values, dtype=np.float64)
    spread = values.std()
    return (values - values.mean()) / spread if spread > 0 else np.zeros_like(values)


#: Each research method: what it needs besides the score, and its key (larger first).
METHODS = {
    "population": (("population",), lambda f: np.asarray(f["population"], dtype=np.float64)),
    "pydock": (("cpydock",), lambda f: np.asarray(f["cpydock"], dtype=np.float64)),
    "consensus": (("cpydock",), lambda f: zscore(f["score"]) + zscore(f["cpydock"])),
    "population_consensus": (
        ("population",), lambda f: zscore(f["score"]) + zscore(np.log1p(f["population"])),
    ),
    "dfire_pisa": (("pisa",), lambda f: -(ranks(f["score"]) + ranks(f["pisa"]))),
    "soft": (("dfire_soft",), lambda f: np.asarray(f["dfire_soft"], dtype=np.float64)),
    "soft_tobi": (
        ("dfire_soft", "tobi"), lambda f: -(ranks(f["dfire_soft"]) + ranks(f["tobi"])),
    ),
}  # fmt: skip

for _name, (_needs, _key) in METHODS.items():
    ranking.NEEDS.setdefault(_name, _needs)
    ranking.KEYS.setdefault(_name, _key)
