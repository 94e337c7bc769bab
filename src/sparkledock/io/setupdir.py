"""Every path of a LightDock setup folder, spelled once.

A setup folder holds LightDock's files (``setup.json``, ``lightdock_<name>.pdb``, masks, normal
modes, ``init/initial_positions_<swarm>.dat``, ``swarm_<id>/gso_<step>.out``, ``cluster.repr``,
rankings) and sparkledock's (checkpoint, measured costs, done markers). :class:`SetupDir` names
them; nothing else in the package builds these names.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SETUP_FILE = "setup.json"
REC_MODES_FILE = "lightdock_rec.nm.npy"
LIG_MODES_FILE = "lightdock_lig.nm.npy"
RESTRAINTS_FILE = "restraints.list"
RANKING_FILE = "rank_by_scoring.list"
#: What a restraint filter kept (LightDock's name, beside the ranking it filtered).
FILTERED_FILE = "rank_filtered.list"
CLUSTER_FILE = "cluster.repr"
#: A run's checkpoint and its measured per-swarm costs, in the setup folder.
CHECKPOINT_FILE = "sparkledock_run.npz"
COSTS_FILE = "sparkledock_costs.json"
#: Written in a swarm's folder when its last output is; holds the run's settings.
DONE_MARKER = "sparkledock_done.json"
#: What runs leave in a setup folder besides the swarm folders.
RUN_FILES = (CHECKPOINT_FILE, COSTS_FILE)


def lightdock_name(name: str) -> str:
    """LightDock's parsed-structure file of a setup's structure ``name``."""
    return f"lightdock_{Path(name).name}"


def mask_name(name: str) -> str:
    """LightDock's normal-mode mask file of a setup's structure ``name``."""
    return f"lightdock_{Path(Path(name).name).stem}_mask.npy"


def model_name(glowworm: int) -> str:
    """LightDock's model file of a glowworm in its swarm's folder."""
    return f"lightdock_{glowworm}.pdb"


@dataclass(frozen=True)
class SetupDir:
    """The paths of one setup folder."""

    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root))

    @property
    def setup_json(self) -> Path:
        return self.root / SETUP_FILE

    @property
    def init(self) -> Path:
        return self.root / "init"

    @property
    def swarm_centres(self) -> Path:
        return self.init / "swarm_centers.pdb"

    @property
    def restraints(self) -> Path:
        return self.root / RESTRAINTS_FILE

    @property
    def ranking(self) -> Path:
        return self.root / RANKING_FILE

    @property
    def costs(self) -> Path:
        return self.root / COSTS_FILE

    def checkpoint(self, name: str = CHECKPOINT_FILE) -> Path:
        return self.root / name

    def structure(self, name: str) -> Path:
        """``lightdock_<name>`` of a setup's structure ``name``."""
        return self.root / lightdock_name(name)

    def mask(self, name: str) -> Path:
        return self.root / mask_name(name)

    def start(self, swarm: int) -> Path:
        """sparkledock's starting file of a swarm: ``init/initial_positions_<swarm>.dat``."""
        return self.init / f"initial_positions_{swarm}.dat"

    def lightdock_starts(self, n_swarms: int) -> list[Path]:
        """LightDock 0.9.4's starting file of every swarm.

        LightDock lists ``init/initial_positions_*.dat`` sorted by name and gives swarm N the
        N-th (so its ``swarm_10`` starts from ``initial_positions_18.dat`` when there are 100
        swarms). A setup's listing is ``initial_positions_0.dat`` ... ``_<n_swarms - 1>.dat``,
        so the pairing follows from the names alone and a run of some swarms needs only their
        files (LightDock insists on all of them).
        """
        return sorted((self.start(i) for i in range(n_swarms)), key=lambda p: p.name)

    def swarm(self, swarm: int) -> Path:
        return self.root / f"swarm_{swarm}"

    def swarms(self) -> list[Path]:
        """The swarm folders present."""
        return sorted(self.root.glob("swarm_*"))

    def gso(self, swarm: int, step: int) -> Path:
        return self.swarm(swarm) / f"gso_{step}.out"

    def cluster(self, swarm: int) -> Path:
        return self.swarm(swarm) / CLUSTER_FILE

    def done_marker(self, swarm: int) -> Path:
        return self.swarm(swarm) / DONE_MARKER

    def model(self, swarm: int, glowworm: int) -> Path:
        return self.swarm(swarm) / model_name(glowworm)

    def run_outputs(self, swarm: int) -> list[Path]:
        """What a run leaves in a swarm's folder: gso files, done marker, clusters, models."""
        folder = self.swarm(swarm)
        patterns = ("gso_*.out", DONE_MARKER, CLUSTER_FILE, "lightdock_*.pdb")
        return [path for pattern in patterns for path in folder.glob(pattern)]
