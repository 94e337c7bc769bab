"""``python -m sparkledock``: the command line (as the ``sparkledock`` script)."""

import sys

from .cli import main

sys.exit(main())
