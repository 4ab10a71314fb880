"""Measuring recall: ``lessons eval`` and ``lessons replay``."""
