"""Harness adapters behind ``lessons hook HARNESS``: one small module per harness.

This package never imports click: a hook runs on every tool call, and the command line
dispatches here before loading the click application (see ``lessons_cli.main``).
"""
