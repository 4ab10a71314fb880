"""Command patterns of commits by the type their message opens with, or by a sign-off
they lack.

A rule on Conventional Commits is broken by one kind of commit only: "Use Conventional
Commits" by a ``git commit -m 'Add retry'``, "Do not use conventional commits" by a
``git commit -m 'fix: retry'``. "Always use `git commit -s`" is broken by a commit with no
``-s`` or ``--signoff``. Import gives such a rule the pattern of the commits that break it
(``importers.rule_triggers.commit_pattern``), and validate counts them among the git
actions an instruction file's rules meet at.
"""

from __future__ import annotations

# The message given on the command line (``-m``, ``-am``, ``--message=``), up to where it
# opens; a quoted message is never searched for the option.
_MESSAGE = r"^git commit[^'\"]* (?:-[A-Za-z]*m ?|--message[ =])['\"]?"
# A commit whose message opens with no type ("Add retry", "x"). A typed one ("feat: ...",
# "fix(cli)!: ...") and a message from a heredoc or a file match neither pattern.
UNTYPED_COMMIT = _MESSAGE + "[A-Za-z]+(?:[^A-Za-z:(!]|$)"
# A commit whose message opens with a type.
TYPED_COMMIT = _MESSAGE + r"[a-z]+(?:\([^)]*\))?!?: "
# A commit with no sign-off: every word after ``git commit`` is a quoted string, a word
# that is no option, a long option other than ``--signoff``, or a cluster of short
# options without ``s``, whose first option taking a value (``-m``, ``-S``, ``-F``, ``-c``,
# ``-C``, ``-t``, ``-u``) takes the rest of the word ("-am'x'", "-Skey").
_NOT_SIGNING = (
    r"'[^']*'|\"[^\"]*\"|[^-\s]\S*|--?|--(?:[^s\s]|s[^i\s]|si[^g\s])\S*"
    r"|-[abdeg-lnopqrv-zABDEGHIJKLMNOPQRTUVWXYZ]*(?:[mSFcCtu]\S*)?"
)
UNSIGNED_COMMIT = rf"^git commit(?: +(?:{_NOT_SIGNING}))* *$"
