"""The rank stage's options: :class:`RankOptions`, one field per option of ``sparkledock
rank``, ``lgd_rank.py`` (in its own spellings) and :func:`sparkledock.rank`
(:func:`sparkledock.schema.option`: the parser is built from the fields, the Python API
checks values against them), and :func:`check_rank_options`, which refuses a value before
any file is read. (Apart from :mod:`.options`: the methods' names come from
:mod:`.ranking`, which reads the filter's options.)"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import OptionError
from ..schema import check_fields, option
from .ranking import NEEDS

RANK_HELP = (
    f"how to rank the representatives: {', '.join(NEEDS)} (rank_by_scoring.list is always by score)"
)
#: What a swarm without ``cluster.repr`` gives the rank stage: its representatives clustered
#: now (``cluster``, the Python API's), every glowworm (``all``, ``lgd_rank.py``'s) or a
#: one-line refusal (``refuse``, ``sparkledock rank``'s).
UNCLUSTERED = ("cluster", "all", "refuse")


@dataclass(frozen=True)
class RankOptions:
    """How the rank stage orders a run's solutions: by ``method``
    (:data:`~sparkledock.analysis.ranking.NEEDS`; ``dfire``: by score, LightDock's), with
    near-duplicates moved back (``diverse``), among each swarm's cluster representatives
    (``clusters``; False: every glowworm), a swarm without ``cluster.repr`` treated as
    ``unclustered`` says (:data:`UNCLUSTERED`)."""

    method: str = option("dfire", "--method", help=RANK_HELP)
    diverse: bool = option(
        False, "--diverse", help="move representatives within 5 Å ligand RMSD of a "
        "better-ranked one back", action="store_true",
    )  # fmt: skip
    clusters: bool = option(
        True, "--ignore-clusters", help="rank every glowworm, not each swarm's cluster "
        "representatives", action="store_false",
    )  # fmt: skip
    unclustered: str = option("cluster")


def check_rank_options(options: RankOptions) -> None:
    """Refuse, before any file is read and in one line naming the option, a value of the
    wrong type, an unknown ranking method or an unknown way with unclustered swarms."""
    check_fields(options, "rank")
    if options.method not in NEEDS:
        known = ", ".join(NEEDS)
        raise OptionError("method", f"{{0}} {options.method!r}: no such ranking (known: {known})")
    if options.unclustered not in UNCLUSTERED:
        known = ", ".join(UNCLUSTERED)
        got = options.unclustered
        raise OptionError("unclustered", f"{{0}} must be one of {known}, got {got!r}")
