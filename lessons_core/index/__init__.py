"""The recall index: built from the lessons, stored in one file, cached and kept fresh."""
