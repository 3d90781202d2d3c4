# bash tests/tools/complete.bash COMPLETION-FILE WORD...: what the bash
# completion in COMPLETION-FILE offers for the command line WORD... (the
# last word is the one being completed, '' for a new one), one a line, as
# bash would call it on TAB: the function `complete -p` names for the
# first word, COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT set.
# For t0030.
. "$1" || exit 2
shift
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
spec=$(complete -p "${1##*/}" 2>/dev/null) || { echo "no completion for ${1##*/}" >&2; exit 2; }
fn=${spec#*-F }
fn=${fn%% *}
# compopt works only inside a completion bash started itself: here it
# says so on stderr, and changes nothing of what is offered
"$fn" "${1##*/}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
printf '%s\n' "${COMPREPLY[@]}"
