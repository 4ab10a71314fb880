"""Opt-in local telemetry and ``lessons stats``."""
