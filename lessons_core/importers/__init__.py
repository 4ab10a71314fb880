"""Importing rules people already keep elsewhere, and reporting what could not be carried."""
