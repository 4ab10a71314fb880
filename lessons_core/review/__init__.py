"""``lessons review``: lesson changes since a base commit."""
