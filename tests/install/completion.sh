#!/bin/bash
# The generated bash completion in a real bash: commands, a command's
# options, model and hardware names (built in, and from --db), choices, list
# elements, --opt=value.
#   completion.sh SCRIPT
set -u
. "$1"
fail=0
comp() { # expected-word words...
    local want=$1
    shift
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _infcalc
    local w
    for w in "${COMPREPLY[@]}"; do
        [[ $w == "$want" ]] && return 0
    done
    echo "FAIL: '${COMP_WORDS[*]}' offers [${COMPREPLY[*]}], not $want"
    fail=1
}
nocomp() { # unexpected-word words...
    local bad=$1
    shift
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _infcalc
    local w
    for w in "${COMPREPLY[@]}"; do
        [[ $w == "$bad" ]] && { echo "FAIL: '${COMP_WORDS[*]}' offers $bad"; fail=1; }
    done
}
probe=$(mktemp -d)
: > "$probe/ic-compl-probe.yaml"
comp prefill infcalc pre
comp check-published infcalc check
comp --sweep infcalc --sw
comp --chunk infcalc prefill --ch
nocomp --chunk infcalc decode --ch
nocomp --sweep infcalc prefill --
comp tpu-v5e infcalc --hw tpu
comp v5e infcalc --hw v5
comp llama3-70b infcalc --model llama3-7
comp h100-sxm,tpu-v5e infcalc --hw h100-sxm,tpu-v
comp serial infcalc --comm s
comp int8 infcalc --weights in
comp batch,context infcalc --sweep batch,con
comp json infcalc --format = j
comp hw infcalc list ''
comp model infcalc show mo
comp mixtral-8x7b infcalc show model mixtral-8x
comp optimize infcalc help opt
# files where the word is a path, not otherwise
cd "$probe"
comp ./ic-compl-probe.yaml infcalc --model ./ic-compl-probe
nocomp ic-compl-probe.yaml infcalc --model ''
# names from the --db on the line
db=$(mktemp -d)
trap 'rm -rf "$db" "$probe"' EXIT
mkdir -p "$db/hwdb" "$db/modeldb"
: > "$db/hwdb/my-chip.yaml"
comp my-chip infcalc --db "$db" --hw my
nocomp tpu-v5e infcalc --db "$db" --hw tpu
[ $fail = 0 ] && echo "ok: completion"
exit $fail
