"""Who may do what: API keys (made, hashed, checked) and the grants that give a key access to spaces."""
