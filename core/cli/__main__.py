"""``python -m core.cli ...``: the ``podium`` command (pyproject's ``core.cli:main``)."""

import sys

from core.cli.dispatch import main

sys.exit(main())
