"""Feedback: what a session teaches and whether what was shown changed it, read from its
failures and the corrections typed in it."""
