"""LightDock's GSO configuration file (``glowworm.conf``, ``lightdock3.py -f``).

An INI file with one ``[GSO]`` section and seven keys (``rho``, ``gamma``, ``beta``,
``initialLuciferin``, ``initialVisionRange``, ``maximumVisionRange``, ``maximumNeighbors``),
all required, as LightDock's ``GSOParameters`` reads it; the translation, rotation and
normal-mode steps are command-line options (``-t``, ``-r``, ``-ns``), not keys.
"""

from __future__ import annotations

import configparser
import math
import os
import warnings
from dataclasses import replace

from ..engine.gso import GSOParameters
from ..errors import InputFileError, OptionError, SparkledockWarning

#: What each constant may be (a finite number always): the luciferin decay is a fraction,
#: the other rates are not negative, vision ranges are lengths, neighbours a count.
RANGES: dict[str, tuple[float, float, str]] = {
    "rho": (0.0, 1.0, "from 0 to 1"),
    "gamma": (0.0, math.inf, "0 or more"),
    "beta": (0.0, math.inf, "0 or more"),
    "initial_luciferin": (-math.inf, math.inf, "a finite number"),
    "initial_vision_range": (0.0, math.inf, "positive"),
    "max_vision_range": (0.0, math.inf, "positive"),
    "max_neighbors": (1, math.inf, "at least 1"),
}

#: key in the file -> GSOParameters field, and its type
KEYS: dict[str, tuple[str, type]] = {
    "rho": ("rho", float),
    "gamma": ("gamma", float),
    "beta": ("beta", float),
    "initialLuciferin": ("initial_luciferin", float),
    "initialVisionRange": ("initial_vision_range", float),
    "maximumVisionRange": ("max_vision_range", float),
    "maximumNeighbors": ("max_neighbors", int),
}


def read_gso_config(
    path: str | os.PathLike[str], base: GSOParameters | None = None
) -> GSOParameters:
    """``base`` with the seven GSO constants of a LightDock configuration file.

    Raises:
        InputFileError: unreadable file, no ``[GSO]`` section, a missing key, a value that
            is not a number or out of :data:`RANGES` (NaN and infinities included; one
            line, naming the file and the key).
    """
    parser = configparser.ConfigParser()
    parser.optionxform = str  # LightDock's keys are camelCase
    try:
        with open(path, encoding="utf-8") as handle:
            parser.read_file(handle)
    except (OSError, UnicodeDecodeError, configparser.Error) as error:
        reason = str(error).splitlines()[0]
        raise InputFileError(f"{path}: not a GSO configuration file ({reason})") from None
    if not parser.has_section("GSO"):
        raise InputFileError(f"{path}: no [GSO] section")
    unknown = [k for k in parser.options("GSO") if k not in KEYS]
    if unknown:
        warnings.warn(
            f"{path}: [GSO] {unknown[0]} is not a GSO constant ({', '.join(KEYS)}); ignored",
            SparkledockWarning,
            stacklevel=2,
        )
    values = {}
    for key, (name, kind) in KEYS.items():
        if not parser.has_option("GSO", key):
            raise InputFileError(f"{path}: [GSO] has no {key}")
        text = parser.get("GSO", key)
        try:
            values[name] = kind(text)
        except ValueError:
            raise InputFileError(f"{path}: [GSO] {key} = {text!r} is not a number") from None
        low, high, allowed = RANGES[name]
        value = values[name]
        strict = name in ("initial_vision_range", "max_vision_range")
        inside = (low < value if strict else low <= value) and value <= high
        if not math.isfinite(value) or not inside:
            raise InputFileError(f"{path}: [GSO] {key} = {text!r} must be {allowed}")
    return replace(base or GSOParameters(), **values)


#: The largest translation (Å) or normal-mode step a run takes (the rotation step is a
#: fraction of the way to the neighbour's orientation: at most 1).
MAX_STEP = 100.0


def gso_parameters(
    config: str | os.PathLike[str] | None = None,
    *,
    translation_step: float = 0.5,
    rotation_step: float = 0.5,
    nmodes_step: float = 0.5,
    local_minimization: bool = False,
) -> GSOParameters:
    """The GSO constants of a run (LightDock's, or a configuration file's) with its step
    sizes and ``-min``; a step size that is not positive and finite (or a rotation step above
    1) is refused."""
    params = read_gso_config(config) if config else GSOParameters()
    steps = {
        "translation_step": translation_step,
        "rotation_step": rotation_step,
        "nmodes_step": nmodes_step,
    }
    for name, value in steps.items():
        most = 1.0 if name == "rotation_step" else MAX_STEP
        if not 0 < value <= most:
            raise OptionError(name, f"{{0}} must be positive and at most {most:g}, got {value}")
    return replace(params, **steps, local_minimization=local_minimization)
