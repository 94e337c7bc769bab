"""LightDock's names of the scoring functions against sparkledock's, in one leaf module
that the registry and the scoring-file reader both use."""

#: LightDock 0.9.4's names (``lightdock3.py -s``, its scoring files) that are not
#: sparkledock's: its C ``fastdfire`` is sparkledock's ``dfire``, its Python ``dfire`` is
#: ``pydfire``; every other name is the same in both.
FROM_LIGHTDOCK = {"fastdfire": "dfire", "dfire": "pydfire"}


def from_lightdock(name: str) -> str:
    """sparkledock's name of LightDock's scoring function ``name``."""
    return FROM_LIGHTDOCK.get(name.lower(), name.lower())


def to_lightdock(name: str) -> str:
    """LightDock's module name (``lightdock.scoring.<name>``) of sparkledock's ``name``."""
    return {v: k for k, v in FROM_LIGHTDOCK.items()}.get(name, name)
