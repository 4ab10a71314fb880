"""Recall: which lessons apply, in which order, and the block the agent is shown."""
