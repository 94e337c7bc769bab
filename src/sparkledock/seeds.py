"""The one default seed: LightDock 0.9.4 seeds its GSO, its starting points and its normal
modes with 324324, and so does sparkledock unless told otherwise."""

from __future__ import annotations

DEFAULT_SEED = 324324
