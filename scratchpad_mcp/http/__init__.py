"""Streamable HTTP: the app, API keys, bodies, metrics, direct answers; uses server, settings, adapters, core."""
