"""One module per command (or per small family of commands)."""
