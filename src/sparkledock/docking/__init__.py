"""``sparkledock dock``: a whole docking, from two structures to ranked models and a report.

:mod:`.options` holds the options and what each protocol decides, :mod:`.checks` what a
docking is refused for before any work, :mod:`.pipeline` the folder, its record and the
stages in order, :mod:`.analyse` the analysis stages (:mod:`sparkledock.stages`) in order,
:mod:`.sites` a blind ranking's first sites docked again (``--redock-sites``),
:mod:`.screen` many pairs in one job (``sparkledock screen``)."""

from .analyse import analyse
from .checks import check_docking
from .options import (
    FILTER_FRACTION,
    PROTOCOLS,
    RESTRAINED_SPACING_A,
    RESTRAINED_STOP_TOLERANCE,
    DockOptions,
    check_options,
    default_scoring_mode,
    dock_setup_options,
    engine_name,
    protocol_spacing,
    with_defaults,
)
from .pipeline import (
    DOCK_RECORD,
    dock,
    dock_key,
    own_outputs,
    prepare_dock_setup,
    read_record,
    remove_paths,
    write_record,
)

__all__ = [
    "DOCK_RECORD",
    "FILTER_FRACTION",
    "PROTOCOLS",
    "RESTRAINED_SPACING_A",
    "RESTRAINED_STOP_TOLERANCE",
    "DockOptions",
    "analyse",
    "check_docking",
    "check_options",
    "default_scoring_mode",
    "dock",
    "dock_key",
    "dock_setup_options",
    "engine_name",
    "own_outputs",
    "prepare_dock_setup",
    "protocol_spacing",
    "read_record",
    "remove_paths",
    "with_defaults",
    "write_record",
]
