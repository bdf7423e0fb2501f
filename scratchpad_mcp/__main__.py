"""python -m scratchpad_mcp: the same as the scratchpad-mcp command."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
