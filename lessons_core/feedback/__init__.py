"""Feedback: what a session teaches: what failed in it, the corrections typed in it, and
whether what was shown changed what came after."""
