"""The ``lessons`` command line: click commands and harness adapters over lessons_core."""
