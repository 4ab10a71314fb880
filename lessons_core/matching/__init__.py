"""Matching one trigger against a path, a command or text, and judging triggers."""
