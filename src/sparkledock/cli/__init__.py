"""The ``sparkledock`` command: a thin shell over the stage API (:mod:`sparkledock.workflow`).

Errors on bad input print one line (``sparkledock: error: ...``) and exit 1; warnings print
one line each on standard error.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence

from ..errors import SparkledockError
from .options import error_text, example_dir, flag_for, show_warning
from .parser import build_parser

__all__ = ["build_parser", "example_dir", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``sparkledock`` console script."""
    args = build_parser().parse_args(argv)
    warnings.showwarning = show_warning
    try:
        from ..runlog import configure_logging

        configure_logging(
            getattr(args, "quiet", False),
            getattr(args, "verbose", False),
            args_log_file(args),
            spell=flag_for,
        )
        return int(args.func(args))
    except SparkledockError as exc:
        if not getattr(exc, "echo", False):  # under MPI, errors all ranks share print once
            print(f"sparkledock: error: {error_text(exc)}", file=sys.stderr)
        if not getattr(exc, "shared", False):
            _abort_other_ranks()
        return 1
    except BrokenPipeError:
        return 0


def args_log_file(args: argparse.Namespace) -> str | None:
    """The --log-file, checked to be writable before any work."""
    path = getattr(args, "log_file", None)
    if path is None:
        return None
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise SparkledockError(f"{path}: cannot write the log file ({exc.strerror})") from None
    return path


def _abort_other_ranks() -> None:
    """Under MPI, one rank's error ends the job (the others would wait for it forever)."""
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is not None and mpi.Is_initialized() and mpi.COMM_WORLD.Get_size() > 1:
        sys.stderr.flush()
        mpi.COMM_WORLD.Abort(1)
