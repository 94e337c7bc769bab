"""Preparing a docking: swarm centres, initial poses, restraints (``sparkledock setup``).

The package is also callable: ``sparkledock.setup(receptor, ligand, out, ...)`` is
:func:`sparkledock.workflow.setup`, so that the top-level API's ``setup`` and this package
share one name without one hiding the other.
"""

import sys
import types
from typing import Any


class _CallableModule(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from ..workflow import setup

        return setup(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
