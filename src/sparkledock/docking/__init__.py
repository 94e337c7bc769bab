"""``sparkledock dock``: a whole docking, from two structures to ranked models and a report.

:mod:`.options` holds the options and what each protocol decides, :mod:`.pipeline` the
folder, its record and the stages in order, :mod:`.analyse` the analysis stages."""

from .analyse import analyse, term_columns
from .options import (
    FILTER_FRACTION,
    PROTOCOLS,
    RESTRAINED_SPACING_A,
    RESTRAINED_STOP_TOLERANCE,
    DockOptions,
    check_options,
    default_scoring_mode,
    engine_name,
    protocol_spacing,
    with_defaults,
)
from .pipeline import DOCK_RECORD, dock, dock_key, prepare_dock_setup

__all__ = [
    "DOCK_RECORD",
    "FILTER_FRACTION",
    "PROTOCOLS",
    "RESTRAINED_SPACING_A",
    "RESTRAINED_STOP_TOLERANCE",
    "DockOptions",
    "analyse",
    "check_options",
    "default_scoring_mode",
    "dock",
    "dock_key",
    "engine_name",
    "prepare_dock_setup",
    "protocol_spacing",
    "term_columns",
    "with_defaults",
]
