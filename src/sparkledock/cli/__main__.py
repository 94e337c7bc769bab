"""``python -m sparkledock.cli``: the command line (as the ``sparkledock`` script)."""

import sys

from . import main

sys.exit(main())
