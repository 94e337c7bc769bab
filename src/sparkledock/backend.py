"""Where the work runs: the one place that turns ``--backend/--device/--precision`` into an
:class:`Engine`.

* ``numba`` (CPU, float64): LightDock's scores bit for bit; the only engine of exact mode.
* ``numpy``: the plain all-pairs oracle (slow; for tests).
* ``torch`` (CPU or CUDA, float64 or float32): batched tile-pair kernels and the whole GSO
  step on the device. float64 agrees with LightDock to 1e-9 relative (only the summation order
  differs); float32 to 1e-4.
* ``auto``: torch on a CUDA device when PyTorch and a GPU are there, numba otherwise.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

from .errors import EngineError

BACKENDS = ("auto", "numba", "numpy", "torch")
PRECISIONS = ("fp64", "fp32")


@dataclass(frozen=True)
class Engine:
    """A resolved backend: ``backend`` is never ``auto`` here."""

    backend: str = "numba"
    device: str = "cpu"
    precision: str = "fp64"

    @property
    def on_torch(self) -> bool:
        return self.backend == "torch"

    def describe(self) -> str:
        if self.on_torch:
            return f"torch on {self.device} ({self.precision})"
        return f"{self.backend} on cpu (fp64)"


def torch_available() -> bool:
    """Whether PyTorch can be imported (without importing it)."""
    return find_spec("torch") is not None


#: What an NVIDIA driver leaves on Linux (WSL: /dev/dxg); without any of them there is no
#: CUDA device, and ``auto`` need not import PyTorch to learn it (1.5–4 s of every command).
NVIDIA_DRIVER_PATHS = ("/proc/driver/nvidia", "/dev/nvidiactl", "/dev/nvidia0", "/dev/dxg")


def no_cuda_driver() -> bool:
    """True where no CUDA device can be, known without importing PyTorch: Linux without the
    NVIDIA driver's files, or macOS (PyTorch has no CUDA there)."""
    if sys.platform == "darwin":
        return True
    return sys.platform.startswith("linux") and not any(
        Path(p).exists() for p in NVIDIA_DRIVER_PATHS
    )


def _cuda_count() -> int:
    if not torch_available() or no_cuda_driver():
        return 0
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def resolve_engine(
    backend: str = "auto",
    device: str | None = None,
    precision: str = "fp64",
    *,
    exact: bool = False,
) -> Engine:
    """Check a backend/device/precision request and fill in ``auto`` choices.

    Raises:
        ValueError: an unknown name, or a combination that cannot run here (one line).
    """
    if backend not in BACKENDS:
        raise EngineError(f"unknown backend {backend!r} (choose from {', '.join(BACKENDS)})")
    if precision not in PRECISIONS:
        raise EngineError(f"unknown precision {precision!r} (choose from {', '.join(PRECISIONS)})")
    if device is not None and not (device == "cpu" or device.split(":")[0] == "cuda"):
        raise EngineError(f"unknown device {device!r} (cpu, cuda or cuda:N)")
    wants_cuda = device is not None and device.startswith("cuda")
    if backend == "auto":
        if exact:
            backend = "numba"
        elif wants_cuda or precision == "fp32" or (device is None and _cuda_count() > 0):
            backend = "torch"
        else:
            backend = "numba"
    if backend != "torch":
        if wants_cuda:
            raise EngineError(
                f"the {backend} backend runs on the CPU only; use {{0}} torch", "backend"
            )
        if precision != "fp64":
            raise EngineError(
                f"the {backend} backend computes in fp64 only; use {{0}} torch", "backend"
            )
        return Engine(backend, "cpu", "fp64")
    if exact:
        raise EngineError(
            "exact mode (LightDock's trajectories) needs bit-identical scores: use the numba "
            "backend"
        )
    if not torch_available():
        raise EngineError("the torch backend needs PyTorch: pip install 'sparkledock[torch]'")
    if device is None:
        device = "cuda:0" if _cuda_count() > 0 else "cpu"
    if device == "cuda":
        device = "cuda:0"
    if device.startswith("cuda"):
        index = int(device.split(":")[1]) if ":" in device else 0
        count = _cuda_count()
        if index >= count:
            raise EngineError(f"device {device} is not available ({count} CUDA devices found)")
    return Engine("torch", device, precision)


#: Scoring workspace (bytes) when nothing else decides it: CPU caches favour small chunks
#: (measured with 8 MiB per chunking level: 1.6 s, 128 MiB: 1.8 s, 2 MiB: 2.9 s for 256 2VXT
#: poses on two cores, eager); GPUs want many tile pairs in flight.
CPU_WORKSPACE = 32 * 2**20
GPU_WORKSPACE = 1024 * 2**20

#: Default memory budget (bytes) of a fast-scoring field when the run gives none.
DEFAULT_FIELD_BUDGET = 2 * 2**30


def default_workspace(engine: Engine) -> int:
    """Scoring workspace for an engine when nothing else decides it."""
    return CPU_WORKSPACE if engine.device == "cpu" else GPU_WORKSPACE


#: Fraction of the available memory one allocation may take (the rest is for the
#: allocator, the interpreter and other work).
USABLE_FRACTION = 0.8


def host_available_bytes() -> int:
    """The host's available memory (``MemAvailable``: free pages plus reclaimable cache)."""
    import os

    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def human_size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} PiB"


def require_memory(need: float, what: str) -> None:
    """A one-line EngineError, before allocating, when ``need`` bytes (for ``what``) exceed
    :data:`USABLE_FRACTION` of this host's available memory."""
    have = host_available_bytes()
    if need > USABLE_FRACTION * have:
        raise EngineError(
            f"{what} would need {human_size(need)}, more than this machine can give "
            f"({human_size(have)} available); use fewer"
        )
