"""Delivery: what a hook says, in which mode, once per session."""
