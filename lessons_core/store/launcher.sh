#!/bin/sh
# The lessons launcher, written by `lessons init`: commit it. One file serves every clone,
# because it runs whichever lessons is installed on the machine it runs on, so the hook
# commands in the harness settings name no interpreter path.
#
#   sh .lessons/run hook claude-code                      what a harness runs on its events
#   sh .lessons/run add "Rule." --trigger-file 'src/**'   any lessons command
#
# Where it looks, in order: $LESSONS_PYTHON (an interpreter lessons is installed in), the
# repo's .venv/bin/lessons, `lessons` on PATH, ~/.local/bin/lessons (pipx, uv tool, pip
# --user). It asks the install found (`lessons --launch-info`) for its interpreter and
# entry file, remembers them in .lessons/local/launch (per clone, not committed) and
# checks them on every call. Python runs isolated (-I), so code in the repo is never run
# in place of lessons, and without site's setup (-S), which the entry file runs itself
# only if a module is not found without it. A hook on a machine without lessons exits 0
# without output (at session start it says how to install lessons), so it never gets in
# the agent's way.

case $0 in
*/*) store=${0%/*} ;;
*) store=. ;;
esac
case $store in
*/*) root=${store%/*} ;;
.) root=.. ;;
*) root=. ;;
esac
cache=$store/local/launch
venv_script=$root/.venv/bin/lessons
py=
main=
source=
if [ -f "$cache" ] && ! [ -L "$cache" ]; then
    { IFS= read -r py && IFS= read -r main && IFS= read -r source; } <"$cache"
fi
# The cached answer holds while what it came from still decides: the same LESSONS_PYTHON
# (or none, for an answer found by the search), and no repo .venv that appeared since.
if [ -n "${LESSONS_PYTHON-}" ]; then
    [ "$source" = "env:$LESSONS_PYTHON" ] || source=
else
    case $source in
    env:*) source= ;;
    "$venv_script") ;;
    *) [ -f "$venv_script" ] && source= ;;
    esac
fi
if [ -n "$source" ] && [ -f "$main" ] && [ -x "$py" ]; then
    exec "$py" -I -S "$main" "$@"
fi

# Ask an install where it lives: its interpreter and its lessons_cli/__main__.py, one a
# line. Run from / so that no repo folder can answer in its place.
ask() {
    info=$(cd / && "$@" --launch-info 2>/dev/null) || return 1
    py=${info%%"
"*}
    main=${info#*"
"}
    [ -x "$py" ] && [ -f "$main" ]
}

found=
if [ -n "${LESSONS_PYTHON-}" ] && ask "$LESSONS_PYTHON" -E -m lessons_cli; then
    found=env:$LESSONS_PYTHON
else
    for script in "$venv_script" "$(command -v lessons 2>/dev/null)" \
        "${HOME:-/nonexistent}/.local/bin/lessons"; do
        if [ -f "$script" ] && [ -x "$script" ] && ask "$script"; then
            found=$script
            break
        fi
    done
fi
# Whether folder $1 is, once every link is followed, below the repo root's real folder.
inside() {
    top=$(cd -P "$root" 2>/dev/null && pwd -P) && here=$(cd -P "$1" 2>/dev/null && pwd -P) ||
        return 1
    case $here in
    "$top"/*) return 0 ;;
    esac
    return 1
}

if [ -n "$found" ]; then
    # Remembered per clone, only inside the repo: a repo may commit .lessons or local/ as
    # a link out of it (or launch as a link to a folder, which mv would move the file into).
    if inside "$store" && mkdir -p "$store/local" 2>/dev/null && inside "$store/local" &&
        ! [ -d "$cache" ] &&
        printf '%s\n%s\n%s\n' "$py" "$main" "$found" >"$cache.$$" 2>/dev/null; then
        mv -f "$cache.$$" "$cache" 2>/dev/null || rm -f "$cache.$$"
    fi
    exec "$py" -I -S "$main" "$@"
fi

# Where the search looked goes into the message: a harness may start its hooks with a
# shorter PATH than the user's shell, and lessons installed on that other PATH is not
# "not installed". Quotes, backslashes and control characters are dropped so the text
# stays a JSON string.
shown() { printf '%s' "$1" | tr -d '"\\\000-\037'; }
env_python=unset
[ -n "${LESSONS_PYTHON-}" ] && env_python=$(shown "$LESSONS_PYTHON")
looked="LESSONS_PYTHON ($env_python), \
.venv/bin/lessons in the repository, 'lessons' on this PATH: $(shown "${PATH-}"), and \
$(shown "${HOME:-~}")/.local/bin/lessons"
hint="lessons is set up in this repository (.lessons/) but the launcher .lessons/run found \
no lessons to run, so no lesson is shown. It looked at $looked. If lessons is installed \
elsewhere (a harness may start hooks with a shorter PATH than your shell), point \
LESSONS_PYTHON at its interpreter or put its lessons command on that PATH. If it is not \
installed, install it once: in the root of a clone of the lessons repository, run 'pipx \
install .' (or 'uv tool install .', or '.venv/bin/pip install PATH-TO-CLONE' for this \
repo's .venv); then start a new session."
if [ "${1-}" = hook ]; then
    payload=$(cat)
    case $payload in
    *'"SessionStart"'*)
        case ${2-} in
        claude-code) printf '{"systemMessage":"%s","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"%s"}}\n' "$hint" "$hint" ;;
        *) printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"%s"}}\n' "$hint" ;;
        esac
        ;;
    esac
    # Cursor's session start takes additional_context.
    case ${2-}:$payload in
    cursor:*'"sessionStart"'*) printf '{"additional_context":"%s"}\n' "$hint" ;;
    esac
    # Pi's extension (.pi/extensions/lessons.ts) gives a session start's context to the model.
    case ${2-}:$payload in
    pi:*'"session_start"'*) printf '{"context":"%s"}\n' "$hint" ;;
    esac
    # Copilot CLI names no event: its session start is the payload with a source and no tool.
    if [ "${2-}" = copilot ]; then
        case $payload in
        *'"toolName":'*) ;;
        *'"source":'*) printf '{"additionalContext":"%s"}\n' "$hint" ;;
        esac
    fi
    exit 0
fi
printf 'lessons: %s\n' "$hint" >&2
exit 127
