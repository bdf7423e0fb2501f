"""scratchpad's domain: versioned files and append-only logs per agent, bounded by quotas. Standard library only."""

from .errors import ScratchpadError
from .limits import Limits
from .service import Scratchpad

__all__ = ["Limits", "Scratchpad", "ScratchpadError"]
