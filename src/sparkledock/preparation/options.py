"""The setup stage's options (:class:`SetupOptions`, LightDock's, one field each with its
command-line spelling) and the checks that refuse impossible values before any work."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from ..backend import require_memory
from ..errors import SparkledockError
from ..schema import at_least, option
from ..seeds import DEFAULT_SEED, check_seed
from .poses import DEFAULT_SWARM_RADIUS_A
from .surface import SURFACE_DENSITY_A2

SWARMS_PER_RESTRAINT = 20


@dataclass(frozen=True)
class SetupOptions:
    """LightDock's setup options (defaults as LightDock 0.9.4's): one field per option
    (:func:`sparkledock.schema.option`), from which ``sparkledock setup``'s parser is built
    and the Python API's values are checked."""

    glowworms: int = option(200, "-g", "--glowworms", help="glowworms per swarm", type=int)
    swarms: int = option(
        0, "-s", "--swarms", help="number of swarms (0: from the receptor's surface area)",
        type=int,
    )  # fmt: skip
    anm: bool = option(
        False, "--anm", "-anm", help="use normal modes (off unless given, as in LightDock; dock "
        "uses 10 + 10)", action="store_true",
    )  # fmt: skip
    anm_rec: int = option(
        10, "--anm-rec", "-anm_rec", help="the receptor's normal modes with --anm",
        type=at_least(0),
    )  # fmt: skip
    anm_lig: int = option(
        10, "--anm-lig", "-anm_lig", help="the ligand's normal modes with --anm",
        type=at_least(0),
    )  # fmt: skip
    anm_rmsd: float = option(
        0.5, "--anm-rmsd", help="mean RMSD (Å) of conformers with unit mode extents; the "
        "receptor's only when --anm-lig-rmsd is given", type=float,
    )  # fmt: skip
    #: the ligand's mode amplitude (None: ``anm_rmsd``, LightDock's ``--anm_lig_rmsd``)
    anm_lig_rmsd: float | None = option(
        None, "--anm-lig-rmsd", "-anm_lig_rmsd", help="the ligand's mode amplitude",
        default_text="--anm-rmsd", type=float,
    )  # fmt: skip
    #: seed of the modes' amplitude draw and of the starting mode extents (None: ``seed``)
    anm_seed: int | None = option(
        None, "--anm-seed", "-seed_anm", help="seed of the modes' amplitudes and starting mode "
        "extents", default_text="--seed", type=int,
    )  # fmt: skip
    noxt: bool = option(False, "--noxt", "-noxt", help="drop OXT atoms", action="store_true")
    noh: bool = option(False, "--noh", "-noh", help="drop hydrogens", action="store_true")
    now: bool = option(False, "--now", "-now", help="drop waters", action="store_true")
    seed: int = option(DEFAULT_SEED, "--seed", help="seed for modes and poses", type=int)
    swarm_radius: float = option(
        DEFAULT_SWARM_RADIUS_A, "--swarm-radius", "-sr", help="radius (Å) of the ball of "
        "starting translations around a swarm centre", type=float,
    )  # fmt: skip
    skip_unknown: bool = option(
        False, "--skip-unknown", help="drop atoms the scoring function has no type for "
        "instead of failing", action="store_true",
    )  # fmt: skip
    #: read common modified residues (MSE, SEP, ...) as their parent amino acids
    map_modified: bool = option(
        True, "--no-map-modified", help="drop modified residues (MSE, SEP, TPO, PTR, ...) as "
        "hetero groups instead of reading them as their parent amino acids",
        action="store_const", const=False,
    )  # fmt: skip
    #: the scoring function the setup is for: only atoms it can type are kept (None: every
    #: atom is kept, as LightDock's setup does; the run's function then types them)
    scoring: str | None = option(
        "dfire", "--scoring", help="the function the setup is for (only atoms it can type are "
        "kept): a name (see `sparkledock scoring list`), a weighted combination such as "
        "dfire:1,vdw:0.5, or a LightDock scoring file",
    )  # fmt: skip
    #: Å² of receptor surface per swarm when the count comes from the surface (``-sd``)
    surface_density: float = option(
        SURFACE_DENSITY_A2, "--surface-density", "-sd", help="Å² of receptor surface per "
        "swarm when the count comes from the surface", type=float,
    )  # fmt: skip
    #: swarm centres this far (Å) from the surface atoms (0: LightDock's rule; ``-fd``)
    fixed_distance: float = option(
        0.0, "--fixed-distance", "-fd", help="swarm centres this far (Å) from the surface (0: "
        "a quarter of the ligand's size)", type=float,
    )  # fmt: skip
    #: swarms per restraint residue of the receptor (``-spr``)
    swarms_per_restraint: int = option(
        SWARMS_PER_RESTRAINT, "--swarms-per-restraint", "-spr", help="swarms per receptor "
        "restraint residue (with --swarm-spacing, at most)", type=at_least(1),
    )  # fmt: skip
    #: with receptor restraints, > 0: as many swarms as cover the restraint patch at this
    #: spacing (Å), at most ``swarms_per_restraint`` per residue (sparkledock's
    #: restraint-focused rule, :func:`.swarms.covering_count`); 0: LightDock 0.9.4's count.
    #: (On the command line: ``--swarm-spacing`` and ``--protocol``, dock's options.)
    swarm_spacing: float = option(0.0)
    #: every filtered surface point a swarm, no final clustering (``--ds``)
    dense_sampling: bool = option(
        False, "--dense-sampling", "--ds", help="every surface point left after the filters "
        "is a swarm (no final clustering)", action="store_true",
    )  # fmt: skip
    #: turn half of the restraint-oriented starting ligands by 180° (``--flip``)
    flip: bool = option(
        False, "--flip", "-flip", help="with restraints on both partners, turn half the "
        "starting ligands by 180°", action="store_true",
    )  # fmt: skip
    #: swarms only above the receptor's membrane beads (``-membrane``)
    membrane: bool = option(
        False, "--membrane", "-membrane", help="swarms only above the receptor's membrane "
        "beads (MMB residues)", action="store_true", group="placement",
    )  # fmt: skip
    #: swarms only between the two membrane layers (``-transmembrane``)
    transmembrane: bool = option(
        False, "--transmembrane", "-transmembrane", help="swarms only between the receptor's "
        "two membrane layers", action="store_true", group="placement",
    )  # fmt: skip
    #: draw starting poses as LightDock does (one generator for all swarms, in order), so the
    #: setup's files equal LightDock's; False: one generator per swarm (sparkledock's own)
    lightdock_poses: bool = option(
        False, "--lightdock-poses", help="draw starting poses as LightDock does (one generator "
        "over all swarms), so the setup's files equal LightDock 0.9.4's; default: one "
        "generator per swarm", action="store_true",
    )  # fmt: skip
    #: count the swarms from freesasa's area of the receptor file, as LightDock does (LightDock's
    #: protocol and commands; needs freesasa, else the own area with a warning); False:
    #: sparkledock's own Shrake–Rupley area, the same whether or not freesasa is installed.
    #: (Chosen by ``--protocol``, see :func:`sparkledock.docking.options.protocol_setup`.)
    lightdock_area: bool = option(False)
    #: swarms only on an antibody receptor's CDRs (:mod:`sparkledock.preparation.paratope`), as
    #: passive restraints on them would place them, without restraints in the score
    paratope: bool = option(
        False, "--paratope", help="antibody receptor: swarms only on its CDRs (found from its "
        "sequence), the ranking favouring poses whose antibody contacts are CDR residues",
        action="store_true", group="placement",
    )  # fmt: skip
    #: also write each swarm's starting translations (PDB) and orientations (BILD) in init/
    #: (LightDock's ``-sp``)
    write_starting_positions: bool = option(
        False, "--starting-positions", "-sp", help="also write each swarm's starting poses as "
        "PDB and BILD files in init/", action="store_true",
    )  # fmt: skip

    @property
    def lig_rmsd(self) -> float:
        return self.anm_rmsd if self.anm_lig_rmsd is None else self.anm_lig_rmsd

    @property
    def modes_seed(self) -> int:
        return self.seed if self.anm_seed is None else self.anm_seed


#: The longest distance (Å) a setup option may give: beyond it coordinates leave PDB's columns.
MAX_LENGTH_A = 1000.0


def check_setup_options(options: SetupOptions) -> None:
    """Refuse impossible option values before any work (one line each): seeds the
    generators take, every number finite, counts and lengths in range."""
    check_seed(options.seed)
    if options.anm_seed is not None:
        check_seed(options.anm_seed, "anm_seed")
    for f in fields(options):
        value = getattr(options, f.name)
        if isinstance(value, float) and not math.isfinite(value):
            raise SparkledockError(
                f"{f.name.replace('_', ' ')} must be a finite number, got {value}"
            )
    if options.glowworms < 1:
        raise SparkledockError(f"glowworms must be at least 1, got {options.glowworms}")
    if options.swarms < 0:
        raise SparkledockError(f"swarms must be 0 (LightDock's rule) or more, got {options.swarms}")
    if options.anm and (options.anm_rec < 0 or options.anm_lig < 0):
        raise SparkledockError("normal-mode counts must not be negative")
    if options.anm and not min(options.anm_rmsd, options.lig_rmsd) > 0:
        raise SparkledockError(
            f"normal-mode RMSD must be positive, got {options.anm_rmsd} / {options.lig_rmsd}"
        )
    if not options.surface_density > 0:
        raise SparkledockError(f"surface density must be positive, got {options.surface_density}")
    if not 0 <= options.fixed_distance <= MAX_LENGTH_A:
        raise SparkledockError(
            f"fixed distance must be from 0 to {MAX_LENGTH_A:g} Å, got {options.fixed_distance}"
        )
    for name in ("anm_rmsd", "lig_rmsd", "swarm_radius", "swarm_spacing"):
        if getattr(options, name) > MAX_LENGTH_A:
            raise SparkledockError(
                f"{name.replace('_', ' ')} must be at most {MAX_LENGTH_A:g} Å (coordinates "
                f"beyond it leave PDB's columns), got {getattr(options, name)}"
            )
    if options.swarms_per_restraint < 1:
        raise SparkledockError(
            f"swarms per restraint must be at least 1, got {options.swarms_per_restraint}"
        )
    if not options.swarm_radius > 0:
        raise SparkledockError(f"swarm radius must be positive, got {options.swarm_radius}")
    if not options.swarm_spacing >= 0 or options.swarm_spacing == float("inf"):
        raise SparkledockError(
            f"swarm spacing must be 0 (LightDock's rule) or a positive number of Å, got "
            f"{options.swarm_spacing}"
        )
    require_memory(options.glowworms * pose_size(options) * 8, f"{options.glowworms} glowworms")


def pose_size(options: SetupOptions) -> int:
    """Numbers per pose of a setup made with ``options`` (at most: atoms may have fewer
    modes)."""
    return 7 + (options.anm_rec + options.anm_lig if options.anm else 0)
