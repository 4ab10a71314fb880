"""Feedback: what a session teaches, read from its failures and the corrections typed in it."""
