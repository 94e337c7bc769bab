"""The score stage's options: :class:`ScoreOptions`, one field per option of ``sparkledock
score`` and :func:`sparkledock.score_poses` (the parser is built from the fields, the Python
call is checked against them), and :func:`check_score_options`."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import OptionError
from ..schema import at_least, check_fields, option


@dataclass(frozen=True)
class ScoreOptions:
    """How poses of a setup are scored (the engine, ``--backend``/``--device``/
    ``--precision``, is the command's engine options)."""

    scoring: str = option(
        "dfire", "--scoring", help="scoring function: a name (see `sparkledock scoring list`), "
        "a weighted combination such as dfire:1,vdw:0.5, or a LightDock scoring file",
    )  # fmt: skip
    #: a CSV with a header: the score, then each function's weighted score
    terms: bool = option(
        False, "--terms", action="store_true",
        help="CSV with a header: the score, then each function's weighted score",
    )  # fmt: skip
    threads: int | None = option(
        None, "--threads", help="CPU threads", default_text="all", type=at_least(1)
    )
    #: LightDock's DFIRE quirks (its 3.9 Å interface cutoff and 15 Å last bin as it has them)
    lightdock_compat: bool = option(
        True, "--no-lightdock-compat", action="store_false",
        help="use a true 3.9 Å interface cutoff and the last bin at 15 Å instead of "
        "LightDock's quirks",
    )  # fmt: skip
    skip_unknown: bool = option(
        False, "--skip-unknown", action="store_true",
        help="drop atoms DFIRE has no type for (with a warning) instead of failing",
    )  # fmt: skip


def check_score_options(options: ScoreOptions) -> None:
    """Refuse, before any file is read and in one line naming the option, a value of the
    wrong type, an empty scoring name or fewer than one thread."""
    check_fields(options, "score")
    if not options.scoring.strip():
        raise OptionError("scoring", "{0} must name a scoring function, got an empty name")
    if options.threads is not None and options.threads < 1:
        raise OptionError("threads", f"{{0}} must be at least 1, got {options.threads}")
