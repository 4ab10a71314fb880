"""Capture candidates found in past session transcripts (``lessons harvest``)."""
