"""A docking's options and protocols: :class:`DockOptions`, the checks that refuse a
combination before any work, and what each protocol decides (swarm spacing, scoring mode,
ranking, early stopping)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from typing import Any

from ..analysis.ranking import DFIRE_SEARCH, NEEDS, default_method
from ..backend import Engine
from ..engine.driver import check_stop_tolerance
from ..engine.spec import SCORING_MODES
from ..errors import SparkledockError
from ..preparation.prepare import MAX_LENGTH_A
from ..seeds import DEFAULT_SEED, check_seed

FILTER_FRACTION = 0.4

#: The protocols ``dock`` runs: ``sparkledock`` (its own defaults, decided in
#: :func:`with_defaults`) and ``lightdock`` (LightDock 0.9.4's: its swarm rule, exact search,
#: ranking by score; what the LightDock-named commands always run).
PROTOCOLS = ("sparkledock", "lightdock")
#: The restraint-focused rule's spacing (Å) between swarm centres over the restraint patch
#: (:func:`sparkledock.preparation.swarms.covering_count`), chosen on the training complexes
#: (docs/performance.md, "Restrained protocol").
RESTRAINED_SPACING_A = 8.0
#: The sparkledock protocol's early stopping with restraints
#: (:func:`sparkledock.engine.spec.converged`), chosen on the training complexes.
RESTRAINED_STOP_TOLERANCE = 0.01


#: How an option enters a docking's resume key (:func:`~.pipeline.dock_key`): ``always``;
#: ``unless`` its "off" value (``off`` in the field's metadata; so that folders made before
#: the option existed keep their keys); absent: it changes no trajectory (what is kept,
#: shown, ranked or refined), so a folder resumes whatever its value.
KEY = "key"


def _key(rule: str | None = None, off: Any = None) -> dict[str, Any]:
    """A :class:`DockOptions` field's metadata: its part in the resume key."""
    return {KEY: rule, "off": off}


@dataclass(frozen=True)
class DockOptions:
    """What a docking run does (LightDock's protocol by default). Each field says how it
    enters the resume key (:data:`KEY`): adding an option is one field here."""

    steps: int = field(default=100, metadata=_key("always"))
    glowworms: int = field(default=200, metadata=_key("always"))
    swarms: int = field(default=0, metadata=_key("always"))
    #: normal modes (None: unless the scoring function is rigid-only, as MJ3h and TOBI are)
    anm: bool | None = field(default=None, metadata=_key("always"))
    top: int = field(default=10, metadata=_key())
    seed: int = field(default=DEFAULT_SEED, metadata=_key("always"))
    threads: int | None = field(default=None, metadata=_key())
    quiet: bool = field(default=False, metadata=_key())
    #: (in the key as backend and precision: the device changes no result)
    engine: Engine | None = field(default=None, metadata=_key("always"))
    #: read modified residues (MSE, SEP, ...) as their parent amino acids
    map_modified: bool = field(default=True, metadata=_key("always"))
    #: the scoring function of the search (a name in :data:`sparkledock.scoring.SCORING_FUNCTIONS`)
    scoring: str = field(default="dfire", metadata=_key("always"))
    #: ``exact``, ``fast`` (the search on the fast path, final glowworms re-scored exactly)
    #: or ``fast-flex`` (fast, receptor modes as a local shift); None:
    #: :func:`default_scoring_mode`, by the protocol
    scoring_mode: str | None = field(default=None, metadata=_key("unless", "exact"))
    #: how the representatives are ranked (:data:`sparkledock.analysis.ranking.NEEDS`;
    #: ``dfire``: by score, LightDock's; None: :func:`~sparkledock.analysis.ranking.
    #: default_method`, by the protocol and the presence of restraints), and whether
    #: near-duplicates move back
    rank_method: str | None = field(default=None, metadata=_key())
    diverse: bool = field(default=False, metadata=_key())
    #: swarms only above the receptor's membrane beads, or between its two layers
    membrane: bool = field(default=False, metadata=_key("unless", False))
    transmembrane: bool = field(default=False, metadata=_key("unless", False))
    #: an antibody receptor: swarms only on its CDRs (:mod:`sparkledock.preparation.paratope`)
    paratope: bool = field(default=False, metadata=_key("unless", False))
    #: refine the top models with OpenMM (restrained minimisation;
    #: :mod:`sparkledock.analysis.refine`)
    refine: bool = field(default=False, metadata=_key())
    #: :data:`PROTOCOLS`: the defaults of the options left None (placement, search, ranking);
    #: always in the key: a folder made before protocols existed never resumes under a new
    #: default
    protocol: str = field(default="sparkledock", metadata=_key("always"))
    #: with restraints, the spacing (Å) of the restraint-focused swarm rule (0: LightDock
    #: 0.9.4's 20 swarms per restraint residue; None: the protocol's)
    swarm_spacing: float | None = field(default=None, metadata=_key("always"))
    #: early stopping of converged swarms (:func:`sparkledock.engine.spec.converged`; 0:
    #: every swarm runs every step; None: the protocol's)
    stop_tolerance: float | None = field(default=None, metadata=_key("always"))


def key_options(options: DockOptions) -> dict[str, Any]:
    """The options a docking's results depend on, as its resume key holds them."""
    chosen: dict[str, Any] = {}
    for f in fields(options):
        value, rule = getattr(options, f.name), f.metadata[KEY]
        if rule == "unless" and value == f.metadata["off"]:
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
    for name, least in (("steps", 1), ("glowworms", 1), ("swarms", 0), ("top", 1)):
        value = getattr(options, name)
        if value < least:
            raise SparkledockError(f"--{name} must be at least {least}, got {value}")
    if options.refine:
        from ..analysis.refine import require_openmm

        require_openmm()
    if options.threads is not None and options.threads < 1:
        raise SparkledockError(f"--threads must be at least 1, got {options.threads}")
    check_seed(options.seed)
    if sum((options.membrane, options.transmembrane, options.paratope)) > 1:
        raise SparkledockError("--membrane, --transmembrane and --paratope: give one of them")
    protocol_spacing(options.protocol, True)  # (refuses an unknown protocol)
    spacing = options.swarm_spacing
    if spacing is not None and not 0 <= spacing <= MAX_LENGTH_A:
        raise SparkledockError(
            f"--swarm-spacing must be 0 or a positive number up to {MAX_LENGTH_A:g}, got {spacing}"
        )
    if options.stop_tolerance is not None:
        check_stop_tolerance(options.stop_tolerance)
    if options.scoring_mode is not None and options.scoring_mode not in SCORING_MODES:
        known = ", ".join(SCORING_MODES)
        raise SparkledockError(
            f"--scoring-mode {options.scoring_mode!r}: no such scoring mode (known: {known})"
        )
    if options.rank_method is not None and options.rank_method not in NEEDS:
        raise SparkledockError(
            f"--rank-method {options.rank_method!r}: no such ranking (known: {', '.join(NEEDS)})"
        )


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
    protocol was chosen and measured with it (docs/performance.md, "Restrained protocol");
    ``exact`` otherwise (LightDock's protocol; membrane dockings and the other scoring
    functions were not measured in fast mode)."""
    if options.protocol == "lightdock":
        return "exact"
    membrane = options.membrane or options.transmembrane
    return "fast" if not membrane and options.scoring in DFIRE_SEARCH else "exact"


def protocol_spacing(protocol: str, restrained: bool, paratope: bool = False) -> float:
    """The swarm spacing (Å) of a protocol's setup: :data:`RESTRAINED_SPACING_A` for
    sparkledock's with receptor restraints, 0 (LightDock 0.9.4's rule) otherwise."""
    if protocol not in PROTOCOLS:
        known = ", ".join(PROTOCOLS)
        raise SparkledockError(f"--protocol {protocol!r}: no such protocol (known: {known})")
    focused = protocol == "sparkledock" and restrained and not paratope
    return RESTRAINED_SPACING_A if focused else 0.0


def setup_spacing(chosen: dict[str, Any], protocol: str, restrained: bool) -> float:
    """The swarm spacing of setup options ``chosen`` (by field name): the one asked for, else
    the protocol's (:func:`protocol_spacing`); what ``sparkledock setup`` and
    :func:`sparkledock.setup` both place swarms by."""
    spacing = chosen.get("swarm_spacing")
    paratope = bool(chosen.get("paratope", False))
    return spacing if spacing is not None else protocol_spacing(protocol, restrained, paratope)


def _rigid_only(scoring: str) -> bool:
    """Whether a scoring spec has no normal-mode support (False for one that cannot be read:
    the checks name what is wrong with it)."""
    from ..scoring import get_scoring

    try:
        return bool(getattr(get_scoring(scoring), "rigid_only", False))
    except SparkledockError:
        return False


def with_defaults(options: DockOptions, restrained: bool) -> DockOptions:
    """``options`` with what follows the protocol and the presence of restraints decided: the
    ranking method (the one asked for, else :func:`~sparkledock.analysis.ranking.
    default_method`), the scoring mode (the one asked for, else :func:`default_scoring_mode`)
    and the swarm spacing. The ``lightdock`` protocol is LightDock 0.9.4's: its swarm rule,
    exact search, ranking by score; ``sparkledock`` with restraints places swarms by the
    restraint-focused rule (:data:`RESTRAINED_SPACING_A`)."""
    if options.anm is None:
        options = dataclasses.replace(options, anm=not _rigid_only(options.scoring))
    if options.swarm_spacing is None:
        spacing = protocol_spacing(options.protocol, restrained, options.paratope)
        options = dataclasses.replace(options, swarm_spacing=spacing)
    if options.stop_tolerance is None:
        focused = options.swarm_spacing > 0  # (the restraint-focused protocol)
        tolerance = RESTRAINED_STOP_TOLERANCE if focused else 0.0
        options = dataclasses.replace(options, stop_tolerance=tolerance)
    if options.protocol == "lightdock":
        chosen = {"rank_method": "dfire", "scoring_mode": "exact"}
        chosen = {k: v for k, v in chosen.items() if getattr(options, k) is None}
        return dataclasses.replace(options, **chosen)
    if options.rank_method is None:
        method = default_method(restrained, options.scoring, paratope=options.paratope)
        options = dataclasses.replace(options, rank_method=method)
    if options.scoring_mode is None:
        mode = default_scoring_mode(options, restrained)
        options = dataclasses.replace(options, scoring_mode=mode)
    return options
