"""python -m scratchpad_mcp: the same as the scratchpad-mcp command."""

from .launch import entry_point

if __name__ == "__main__":
    entry_point()
