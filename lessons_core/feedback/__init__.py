"""Feedback: what failed in a session, and whether what was shown changed it."""
