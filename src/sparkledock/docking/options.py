"""A docking's options and protocols: :class:`DockOptions`, the checks that refuse a
combination before any work, and what each protocol decides (swarm spacing, scoring mode,
ranking, early stopping)."""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass, fields
from typing import Any

from ..analysis.ranking import DFIRE_SEARCH, NEEDS, default_method
from ..analysis.ranking import RESCORED as RANKING_FUNCTIONS
from ..analysis.ranking_options import RANK_HELP, RankOptions
from ..backend import Engine
from ..engine.options import check_stop_tolerance
from ..engine.spec import SCORING_MODE_HELP, SCORING_MODES, STOP_TOLERANCE_HELP
from ..errors import OptionError, SparkledockError
from ..preparation.prepare import MAX_LENGTH_A, SetupOptions
from ..schema import DEFAULT_FILTER_FRACTION, KEY, OFF, Flag, flag_of, option
from ..scoring import check_installed, get_scoring
from ..seeds import DEFAULT_SEED, check_seed

FILTER_FRACTION = DEFAULT_FILTER_FRACTION  # (what a restrained dock keeps; schema's default)
#: With one receptor and one ligand residue (TI-SINGLE), the sparkledock protocol's filter
#: keeps the solutions with the two within this distance (Å) of each other, where any is
#: (chosen on training: benchmarks/notebook/performance.md, "one pair in contact").
PAIR_WITHIN_A = 8.0

#: The protocols ``dock`` runs: ``sparkledock`` (its own defaults, decided in
#: :func:`with_defaults`) and ``lightdock`` (LightDock 0.9.4's: its swarm rule, exact search,
#: ranking by score; what the LightDock-named commands always run).
PROTOCOLS = ("sparkledock", "lightdock")
#: The restraint-focused rule's spacing (Å) between swarm centres over the restraint patch
#: (:func:`sparkledock.preparation.swarms.covering_count`), chosen on the training complexes
#: (benchmarks/notebook/performance.md, "Restrained protocol").
RESTRAINED_SPACING_A = 8.0
#: The sparkledock protocol's early stopping with restraints
#: (:func:`sparkledock.engine.spec.converged`), chosen on the training complexes.
RESTRAINED_STOP_TOLERANCE = 0.01
#: With the ligand's side unknown (these levels of knowledge), the sparkledock protocol
#: turns the starting ligands' likeliest face toward the receptor's restraints: this
#: fraction of the ligand's residues, by the interface-propensity model
#: (:func:`sparkledock.analysis.propensity.likely_residues`), per level of knowledge; chosen
#: on training scenarios (benchmarks/scenarios.py; benchmarks/notebook/performance.md,
#: "Partial knowledge").
LIGAND_FACE_FRACTION = {"one receptor residue": 0.2, "receptor side": 0.1}
#: The sites a blind protein-protein docking docks again unless told (``--redock-sites``;
#: :mod:`sparkledock.docking.sites`): on the twenty 2 / 4 / 4 in the top 1 / 5 / 10 against
#: 2 / 3 / 3 without, on 12 unseen training complexes 2 / 7 / 9 against 1 / 2 / 5; the stage
#: takes about three times the blind search's time (the twenty: medians 452 s and 155 s;
#: benchmarks/notebook/performance.md, "tenth" and "eleventh part").
SITE_DEFAULT = 10


def _setup_flag(name: str) -> Flag | None:
    """The command-line spelling of a setup option that ``dock`` shares."""
    return flag_of(SetupOptions, name)


@dataclass(frozen=True)
class DockOptions:
    """What a docking run does: one field per option (:func:`sparkledock.schema.option`), which
    says how ``dock`` and ``screen`` spell it, how the Python API checks it and how it enters
    the resume key (``key``: ``always``; ``unless`` its ``off`` value, so that folders made
    before the option existed keep their keys; none: it changes no trajectory, so a folder
    resumes whatever its value). Adding an option is one field here."""

    steps: int = option(100, "--steps", help="GSO steps", type=int, key="always")
    glowworms: int = option(
        200, "-g", "--glowworms", help="glowworms per swarm", type=int, key="always"
    )
    swarms: int = option(
        0, "-s", "--swarms", help="number of swarms (0: LightDock's rule, from the receptor's "
        "surface or its restraints)", type=int, key="always",
    )  # fmt: skip
    #: normal modes (None: unless the scoring function is rigid-only, as MJ3h and TOBI are)
    anm: bool | None = option(
        None, "--anm", help="10 + 10 normal modes in the search (--no-anm: rigid)",
        default_text="on unless the scoring function is rigid-only, as MJ3h and TOBI",
        action=argparse.BooleanOptionalAction, key="always",
    )  # fmt: skip
    top: int = option(10, "--top", help="models to write (per pair for screen)", type=int)
    seed: int = option(
        DEFAULT_SEED, "--seed", help="seed of the setup's poses and modes and of the search",
        type=int, key="always",
    )  # fmt: skip
    threads: int | None = option(
        None, "--threads", help="CPU threads", default_text="all", type=int
    )
    #: (``--quiet``, with the logging options)
    quiet: bool = option(False)
    #: (``--backend``, ``--device``, ``--precision``; in the key as backend and precision: the
    #: device changes no result)
    engine: Engine | None = option(None, key="always")
    #: read modified residues (MSE, SEP, ...) as their parent amino acids
    map_modified: bool = option(True, like=_setup_flag("map_modified"), key="always")
    #: the scoring function of the search (a name in :data:`sparkledock.scoring.SCORING_FUNCTIONS`)
    scoring: str = option(
        "dfire", "--scoring", help="scoring function of the search: a name (see `sparkledock "
        "scoring list`), a weighted combination such as dfire:1,vdw:0.5, or a LightDock "
        "scoring file", key="always",
    )  # fmt: skip
    #: ``exact``, ``fast`` (the search on the fast path, final glowworms re-scored exactly)
    #: or ``fast-flex`` (fast, receptor modes as a local shift); None:
    #: :func:`default_scoring_mode`, by the protocol
    scoring_mode: str | None = option(
        None, "--scoring-mode", help=SCORING_MODE_HELP,
        default_text="fast for a DFIRE docking without a membrane under the sparkledock "
        "protocol, exact otherwise", choices=SCORING_MODES, key="unless", off="exact",
    )  # fmt: skip
    #: how the representatives are ranked (:data:`sparkledock.analysis.ranking.NEEDS`;
    #: ``dfire``: by score, LightDock's; None: :func:`~sparkledock.analysis.ranking.
    #: default_method`, by the protocol and the presence of restraints), and whether
    #: near-duplicates move back
    rank_method: str | None = option(
        None, "--rank-method", help=RANK_HELP,
        default_text="learned_blind without restraints (soft_consensus for nucleic acids and "
        "membranes, paratope with --paratope); with them, learned (trees fitted on "
        "training complexes over score, restraint satisfaction, re-scores and cluster "
        "population) under the sparkledock protocol (learned_partial with one side known "
        "or for an alternative patch, dfire for one pair), dfire (by score) under lightdock's",
    )  # fmt: skip
    diverse: bool = option(False, like=flag_of(RankOptions, "diverse"))
    #: blind docking: the first N distinct sites of the ranking docked again under their
    #: interface's restraints, their best models ranked first (:mod:`.sites`); not in the
    #: key (the run is the same): a finished docking asked with another N is analysed again
    #: (None: the protocol's, :func:`default_sites`, decided for a nucleic acid by the setup)
    redock_sites: int | None = option(
        None, "--redock-sites", help="blind docking: dock again, under restraints on their "
        "interface residues, the first N distinct sites of the ranking (leaders 15 Å "
        "apart) and rank their best models first, in the sites' order (about a "
        "restrained docking's time each; 0: none)", type=int, metavar="N",
        default_text=f"{SITE_DEFAULT} for a blind protein-protein docking under the "
        "sparkledock protocol (DFIRE search, no membrane, no --paratope), 0 otherwise",
    )  # fmt: skip
    #: swarms only above the receptor's membrane beads, or between its two layers
    membrane: bool = option(False, like=_setup_flag("membrane"), key="unless", off=False)
    transmembrane: bool = option(False, like=_setup_flag("transmembrane"), key="unless", off=False)
    #: an antibody receptor: swarms only on its CDRs (:mod:`sparkledock.preparation.paratope`)
    paratope: bool = option(False, like=_setup_flag("paratope"), key="unless", off=False)
    #: refine the top models with OpenMM (restrained minimisation;
    #: :mod:`sparkledock.analysis.refine`)
    refine: bool = option(
        False, "--refine", help="also minimise the top models with OpenMM (restrained, "
        "implicit solvent) into refined/, reporting clashes before and after (needs "
        "sparkledock[refine])", action="store_true",
    )  # fmt: skip
    #: keep every swarm's files as the run wrote them (LightDock's tools read each saved
    #: step); otherwise a finished docking packs them into one archive and drops the earlier
    #: snapshots (:mod:`sparkledock.io.pack`); not in the key (the results are the same)
    keep_trajectories: bool = option(
        False, "--keep-trajectories", help="keep every swarm's gso file of every saved step "
        "(what LightDock's tools read; kept anyway under --protocol lightdock); otherwise a "
        "finished docking packs its swarm files into setup/swarms.tar.gz and keeps only each "
        "swarm's last step", action="store_true",
    )  # fmt: skip
    #: :data:`PROTOCOLS`: the defaults of the options left None (placement, search, ranking);
    #: always in the key: a folder made before protocols existed never resumes under a new
    #: default
    protocol: str = option(
        "sparkledock", "--protocol", help="sparkledock: with restraints, swarms cover the "
        f"restraint patch {RESTRAINED_SPACING_A:g} Å apart, fast search, learned ranking; "
        "lightdock: LightDock 0.9.4's protocol (20 swarms per restraint residue, exact "
        "search, ranking by score)", choices=PROTOCOLS, key="always",
    )  # fmt: skip
    #: with restraints, the spacing (Å) of the restraint-focused swarm rule (0: LightDock
    #: 0.9.4's 20 swarms per restraint residue; None: the protocol's)
    swarm_spacing: float | None = option(
        None, "--swarm-spacing", help="with receptor restraints: swarm centres cover the "
        "restraint patch this far apart (0: LightDock 0.9.4's 20 per restraint residue)",
        default_text="the protocol's", type=float, metavar="Å", key="always",
    )  # fmt: skip
    #: early stopping of converged swarms (:func:`sparkledock.engine.spec.converged`; 0:
    #: every swarm runs every step; None: the protocol's)
    stop_tolerance: float | None = option(
        None, "--stop-tolerance", help=STOP_TOLERANCE_HELP, default_text="the protocol's",
        type=float, metavar="T", key="always",
    )  # fmt: skip


def key_options(options: DockOptions) -> dict[str, Any]:
    """The options a docking's results depend on, as its resume key holds them."""
    chosen: dict[str, Any] = {}
    for f in fields(options):
        value, rule = getattr(options, f.name), f.metadata[KEY]
        if rule == "unless" and value == f.metadata[OFF]:
            continue
        if rule is None:
            continue
        if isinstance(value, Engine):
            value = [value.backend, value.precision]
        if f.name == "anm" and value is None:  # (as with_defaults decides it)
            value = not _rigid_only(options.scoring)
        chosen[f.name] = value
    return chosen


def check_options(options: DockOptions) -> None:
    """Refuse impossible protocol options before any work (one line each)."""
    for name, least in (
        ("steps", 1),
        ("glowworms", 1),
        ("swarms", 0),
        ("top", 1),
        ("redock_sites", 0),
    ):
        value = getattr(options, name)
        if value is not None and value < least:
            raise OptionError(name, f"{{0}} must be at least {least}, got {value}")
    if options.refine:
        from ..analysis.refine import require_openmm

        require_openmm()
    if options.threads is not None and options.threads < 1:
        raise OptionError("threads", f"{{0}} must be at least 1, got {options.threads}")
    check_seed(options.seed)
    if sum((options.membrane, options.transmembrane, options.paratope)) > 1:
        names = ("membrane", "transmembrane", "paratope")
        raise OptionError(names, "{0}, {1} and {2}: give one of them")
    protocol_spacing(options.protocol, True)  # (refuses an unknown protocol)
    spacing = options.swarm_spacing
    if spacing is not None and not 0 <= spacing <= MAX_LENGTH_A:
        raise OptionError(
            "swarm_spacing",
            f"{{0}} must be 0 or a positive number up to {MAX_LENGTH_A:g}, got {spacing}",
        )
    if options.stop_tolerance is not None:
        check_stop_tolerance(options.stop_tolerance)
    if options.scoring_mode is not None and options.scoring_mode not in SCORING_MODES:
        known = ", ".join(SCORING_MODES)
        raise OptionError(
            "scoring_mode", f"{{0}} {options.scoring_mode!r}: no such scoring mode (known: {known})"
        )
    if options.rank_method is not None and options.rank_method not in NEEDS:
        known = ", ".join(NEEDS)
        raise OptionError(
            "rank_method", f"{{0}} {options.rank_method!r}: no such ranking (known: {known})"
        )


def check_ranking(options: DockOptions, restrained: bool) -> tuple[str, ...]:
    """The ranking method can run on this docking; returns the functions it re-scores with."""
    method = options.rank_method or "dfire"
    needs = NEEDS.get(method, ())
    if "paratope" in needs and not options.paratope:
        raise OptionError(("rank_method", "paratope"), f"{{0}} {method} needs a docking with {{1}}")
    if "satisfaction" in needs and not restrained:
        raise OptionError("rank_method", f"{{0}} {method} needs restraints")
    functions = tuple(f for f in needs if f in RANKING_FUNCTIONS)
    for function in functions:
        check_installed(get_scoring(function), "rank_method", method)
    return functions


def pair_within(options: DockOptions) -> float | None:
    """The distance within which a file of one pair's two residues keep a solution
    (:data:`PAIR_WITHIN_A`; None under LightDock's protocol, whose filter is the fraction's)."""
    return PAIR_WITHIN_A if options.protocol == "sparkledock" else None


def engine_name(options: DockOptions) -> str:
    engine = options.engine
    if engine is None:
        return "numba (CPU)"
    return f"{engine.backend} {engine.device} {engine.precision}"


def default_scoring_mode(options: DockOptions, restrained: bool) -> str:
    """The search's scoring mode unless told: ``fast`` for a DFIRE docking without a
    membrane under the sparkledock protocol: blind (or on an antibody's CDRs), where fast and
    exact searches give pools of the same quality in a seventh of the time (docs/
    performance.md, "Blind docking, fifth pass"), and restrained, where the restraint-focused
    protocol was chosen and measured with it (benchmarks/notebook/performance.md, "Restrained
    protocol");
    ``exact`` otherwise (LightDock's protocol; membrane dockings and the other scoring
    functions were not measured in fast mode)."""
    if options.protocol == "lightdock":
        return "exact"
    membrane = options.membrane or options.transmembrane
    return "fast" if not membrane and options.scoring in DFIRE_SEARCH else "exact"


def default_sites(options: DockOptions, restrained: bool) -> bool:
    """Whether the protocol docks a docking's sites again unless told (:data:`SITE_DEFAULT`
    of them): a blind DFIRE docking under the sparkledock protocol, without a membrane or
    ``--paratope``, where it was measured; whether its partners are proteins is the setup's
    to say (:func:`sparkledock.docking.sites.site_count`)."""
    membrane = options.membrane or options.transmembrane or options.paratope
    blind_dfire = not restrained and options.scoring in DFIRE_SEARCH
    return options.protocol == "sparkledock" and blind_dfire and not membrane


def protocol_spacing(protocol: str, restrained: bool, paratope: bool = False) -> float:
    """The swarm spacing (Å) of a protocol's setup: :data:`RESTRAINED_SPACING_A` for
    sparkledock's with receptor restraints, 0 (LightDock 0.9.4's rule) otherwise."""
    if protocol not in PROTOCOLS:
        known = ", ".join(PROTOCOLS)
        raise OptionError("protocol", f"{{0}} {protocol!r}: no such protocol (known: {known})")
    focused = protocol == "sparkledock" and restrained and not paratope
    return RESTRAINED_SPACING_A if focused else 0.0


def protocol_setup(chosen: dict[str, Any], protocol: str, restrained: bool) -> dict[str, Any]:
    """Setup options ``chosen`` (by field name) with what the protocol decides where the
    caller did not: the swarm spacing (:func:`protocol_spacing`) and whose surface area counts
    the swarms (freesasa's, LightDock's, only under ``lightdock``); what ``sparkledock setup``,
    :func:`sparkledock.setup` and ``dock`` (:func:`dock_setup_options`) all place swarms by."""
    paratope = bool(chosen.get("paratope", False))
    spacing = chosen.get("swarm_spacing")
    if spacing is None:
        spacing = protocol_spacing(protocol, restrained, paratope)
    return {
        **chosen,
        "swarm_spacing": spacing,
        "lightdock_area": chosen.get("lightdock_area", protocol == "lightdock"),
    }


def _rigid_only(scoring: str) -> bool:
    """Whether a scoring spec has no normal-mode support (False for one that cannot be read:
    the checks name what is wrong with it)."""
    from ..scoring import get_scoring

    try:
        return bool(getattr(get_scoring(scoring), "rigid_only", False))
    except SparkledockError:
        return False


def with_defaults(options: DockOptions, restrained: bool, level: str | None = None) -> DockOptions:
    """``options`` with what follows the protocol and the presence of restraints decided: the
    ranking method (the one asked for, else :func:`~sparkledock.analysis.ranking.
    default_method`), the scoring mode (the one asked for, else :func:`default_scoring_mode`)
    and the swarm spacing; ``redock_sites`` 0 unless asked for where the protocol docks no
    sites again (:func:`default_sites`; where it does, it stays None until the setup says
    whether the partners are proteins). The ``lightdock`` protocol is LightDock 0.9.4's: its
    swarm rule, exact search, ranking by score; ``sparkledock`` with restraints places swarms
    by the restraint-focused rule (:data:`RESTRAINED_SPACING_A`) and ranks by what the
    restraints' ``level`` of knowledge leaves unknown
    (:func:`~sparkledock.analysis.ranking.default_method`)."""
    if options.anm is None:
        options = dataclasses.replace(options, anm=not _rigid_only(options.scoring))
    if options.swarm_spacing is None:
        spacing = protocol_spacing(options.protocol, restrained, options.paratope)
        options = dataclasses.replace(options, swarm_spacing=spacing)
    if options.stop_tolerance is None:
        focused = options.swarm_spacing > 0  # (the restraint-focused protocol)
        tolerance = RESTRAINED_STOP_TOLERANCE if focused else 0.0
        options = dataclasses.replace(options, stop_tolerance=tolerance)
    if options.redock_sites is None and not default_sites(options, restrained):
        options = dataclasses.replace(options, redock_sites=0)
    if options.protocol == "lightdock":
        chosen = {"rank_method": "dfire", "scoring_mode": "exact"}
        chosen = {k: v for k, v in chosen.items() if getattr(options, k) is None}
        return dataclasses.replace(options, **chosen)
    if options.rank_method is None:
        method = default_method(restrained, options.scoring, options.paratope, level)
        options = dataclasses.replace(options, rank_method=method)
    if options.scoring_mode is None:
        mode = default_scoring_mode(options, restrained)
        options = dataclasses.replace(options, scoring_mode=mode)
    return options


#: The setup a docking makes drops OXT atoms, hydrogens and waters (LightDock's -noxt -noh -now).
DOCK_SETUP_FIXED = {"noxt": True, "noh": True, "now": True}


def dock_setup_options(options: DockOptions) -> SetupOptions:
    """The setup a docking makes (``options`` with the protocol's defaults decided): every
    option the two stages share, by field name, and :data:`DOCK_SETUP_FIXED`."""
    shared = {f.name for f in fields(SetupOptions)} & {f.name for f in fields(DockOptions)}
    chosen = {name: getattr(options, name) for name in shared}
    chosen.update(anm=bool(options.anm), swarm_spacing=options.swarm_spacing or 0.0)
    chosen = protocol_setup(chosen, options.protocol, restrained=False)  # (spacing given)
    return SetupOptions(**chosen, **DOCK_SETUP_FIXED)
