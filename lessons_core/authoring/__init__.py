"""Authoring: capturing a lesson, and the guards it must pass."""
