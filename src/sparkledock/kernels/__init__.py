"""Hot loops, one module per backend; :func:`get_kernel` is the one place a backend is chosen.

Every backend of a scoring function has the signature ``kernel(model, poses, *, threads)``
(torch also takes ``engine``, for its device and precision) and returns the same numbers:
numba and numpy bit for bit, torch to 1e-9 (fp64) or 1e-4 (fp32) relative.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

import numpy as np

#: (scoring function, backend) → "module:function", imported on first use.
_KERNELS: dict[tuple[str, str], str] = {
    ("dfire", "numba"): "sparkledock.kernels.dfire_numba:score_poses",
    ("dfire", "numpy"): "sparkledock.kernels.dfire_numpy:score_poses",
    ("dfire", "torch"): "sparkledock.kernels.dfire_torch:score_poses",
}

BACKENDS = ("numba", "numpy", "torch")


def get_kernel(scoring: str, backend: str) -> Callable[..., np.ndarray]:
    """Return the scoring kernel of ``scoring`` for ``backend``.

    Raises:
        ValueError: no such combination.
    """
    try:
        target = _KERNELS[(scoring, backend)]
    except KeyError:
        known = ", ".join(sorted({b for s, b in _KERNELS if s == scoring})) or "none"
        raise ValueError(
            f"no {backend!r} backend for scoring {scoring!r} (available: {known})"
        ) from None
    module, func = target.split(":")
    return getattr(import_module(module), func)
