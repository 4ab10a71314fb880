"""Every limit that capture and ``lessons validate`` judge lessons by, in one place.

Capture refuses outright, so its limits are the clear-cut cases; validate reports to a
person who can weigh the case, so it speaks up earlier (a glob over half the repo is worth
a look, one over nine tenths is refused at capture).
"""

from __future__ import annotations

# A rationale longer than this belongs in the evidence it links to.
MAX_RATIONALE_CHARS = 2000

# What a lesson file may hold at all: over these, the loader skips the lesson (reported by
# validate as L005), so a hand-edited or merged file cannot make every index build
# tokenise megabytes. Imports carry rules longer than the 300 characters ``lessons add``
# allows (the agentsmesh corpus's longest is 947), hence the margins.
MAX_STORED_RULE_CHARS = 2000
MAX_STORED_RATIONALE_CHARS = 8000

# A trigger longer than this is text pasted by mistake, not a glob, a command or a phrase:
# refused, so that no trigger costs every index build or validate run much. A glob this
# long could only match a path longer than any file system accepts
# (lessons_core.matching.glob_match.MAX_PATH_CHARS), which the hook ignores.
MAX_TRIGGER_CHARS = 4096

# Globs: below this many files in the repo, shares say nothing.
BROAD_GLOB_MIN_FILES = 10
# Capture refuses a glob matching more than this share of the repo's files.
REFUSED_GLOB_SHARE = 0.9
# Validate warns about a glob matching more than this share.
BROAD_GLOB_SHARE = 0.5

# A command pattern firing on more than this share of the probe commands gates most calls
# (both capture and validate).
BROAD_COMMAND_SHARE = 0.5

# A command pattern firing on more than this share of the project's own everyday commands
# (``lessons_core.project_commands``) is about the project's routine, not one command;
# judged once the project runs at least ``PROJECT_COMMANDS_MIN`` distinct commands.
BROAD_PROJECT_SHARE = 1 / 3
PROJECT_COMMANDS_MIN = 6

# Jaccard similarity of meaningful words from which two active rules say the same thing.
NEAR_DUPLICATE_SIMILARITY = 0.75

# This many active lessons with one identical trigger set tie on every recall and crowd
# each other out of the budget.
CROWDED_TRIGGER_SET = 3

# Telemetry: a lesson never delivered across this many logged recalls (since it was
# created) is reported, as a notice: quiet is not wrong.
NEVER_RECALLED_MIN_RECALLS = 100
# A lesson delivered before the same failure on the same file or command this many times
# is not working.
REPEATED_FAILURE_MIN = 3
# A lesson delivered for an action this many times, the action failing again after each
# delivery in its session, never held (telemetry.effect).
NEVER_HELD_MIN_SHOWN = 3

# How many example paths review and report show for a glob.
GLOB_EXAMPLES = 3

# Recall demotes broad triggers (docs/recall.md, "Broad triggers"): their rules speak only
# when nothing more specific matches a call, and a few per session. A command pattern is
# broad when it fires on at least this many probe commands (it is about a family of
# commands, not one)...
BROAD_RECALL_PROBES = 2
# ...and any trigger but an exact path is broad when this many active lessons carry it:
# twice what one recall shows by default, so the trigger says nothing about which of them
# applies (an imported group's triggers copied onto each of its rules look like this).
CROWDED_TRIGGER_LESSONS = 6

# The L360 scan of the tracked files a forbid pattern covers: a file over this size is
# skipped (generated or vendored, not code a rule is about), the scan stops after this
# many bytes in all, and a finding names this many places.
FORBID_SCAN_MAX_FILE_BYTES = 1 << 20
FORBID_SCAN_MAX_BYTES = 64 << 20
FORBID_PLACES_SHOWN = 5
