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
# --user). What it found is remembered in .lessons/local/launch (per clone, not committed)
# and checked on every call. Python runs isolated (-I), so code in the repo is never run
# in place of lessons. A hook on a machine without lessons exits 0 without output (at
# session start it says how to install lessons), so it never gets in the agent's way.

case $0 in
*/*) store=${0%/*} ;;
*) store=. ;;
esac
cache=$store/local/launch
py=
main=
if [ -f "$cache" ]; then
    { IFS= read -r py && IFS= read -r main; } <"$cache"
fi
if [ -n "${LESSONS_PYTHON-}" ] && [ "$py" != "$LESSONS_PYTHON" ]; then
    py=$LESSONS_PYTHON
    main=
fi
if [ -n "$main" ] && [ -f "$main" ] && [ -x "$py" ]; then
    exec "$py" -I "$main" "$@"
fi

# The interpreter of a console script, from its first line (or, for the long paths pip
# writes as a /bin/sh trampoline, its second): sets py.
interpreter_of() {
    [ -f "$1" ] || return 1
    { IFS= read -r first && IFS= read -r second; } <"$1" || return 1
    case $first in
    '#!'*) py=${first#??} ;;
    *) return 1 ;;
    esac
    py=${py# }
    case $py in
    */sh | */bash)
        second=${second#*"exec' \""}
        py=${second%%\"*}
        ;;
    '/usr/bin/env '*)
        py=$(command -v "${py#/usr/bin/env }") || return 1
        ;;
    esac
    [ -x "$py" ]
}

# Where the interpreter $py imports lessons from, asked from / with PYTHON* variables
# ignored so that neither the repo nor the environment can answer: sets main.
locate() {
    main=$(cd / && "$py" -E -c 'import os, lessons_cli
print(os.path.join(os.path.dirname(lessons_cli.__file__), "__main__.py"))' 2>/dev/null) &&
        [ -f "$main" ]
}

found=
if [ -n "${LESSONS_PYTHON-}" ]; then
    locate && found=1
else
    root=$(cd "$store/.." 2>/dev/null && pwd)
    for script in "$root/.venv/bin/lessons" "$(command -v lessons 2>/dev/null)" \
        "${HOME:-/nonexistent}/.local/bin/lessons"; do
        if interpreter_of "$script" && locate; then
            found=1
            break
        fi
    done
fi
if [ -n "$found" ]; then
    if mkdir -p "$store/local" 2>/dev/null &&
        printf '%s\n%s\n' "$py" "$main" >"$cache.$$" 2>/dev/null; then
        mv -f "$cache.$$" "$cache" 2>/dev/null || rm -f "$cache.$$"
    fi
    exec "$py" -I "$main" "$@"
fi

hint="lessons is set up in this repository (.lessons/) but not installed on this machine, \
so no lesson is shown. Install it (pipx install, uv tool install, or pip install into the \
repo's .venv) or point LESSONS_PYTHON at an interpreter that has it."
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
