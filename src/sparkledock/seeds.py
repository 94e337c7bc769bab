"""The one default seed: LightDock 0.9.4 seeds its GSO, its starting points and its normal
modes with 324324, and so does sparkledock unless told otherwise. Every seed a user gives is
checked here, before any work: NumPy's (and LightDock's) generators take 0 to 2³² − 1."""

from __future__ import annotations

from .errors import OptionError

DEFAULT_SEED = 324324
#: Seeds are below this (NumPy's legacy seeding, which LightDock's draws use).
SEED_LIMIT = 2**32


def check_seed(value: int, name: str = "seed") -> None:
    """Refuse a seed the generators cannot take (one line naming the option field ``name``)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < SEED_LIMIT:
        raise OptionError(name, f"{{0}} must be an integer from 0 to 2**32 - 1, got {value!r}")
