"""Session state: the session file, its failure history, and what an action is (its
identity, and the digests that name actions and calls without keeping their text)."""
