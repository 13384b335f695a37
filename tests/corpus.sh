#!/bin/sh
# The real infcalc binary over every file of the broken corpus, each given
# both as --hw and as --model (with a good counterpart): exit status exactly
# 2 (not a crash, not 0), nothing on stdout, and stderr opening with
# "FILE:LINE:COLUMN: error: " and a message. test_cli checks each case's exact
# position and text in-process; this checks the process (main, its exit
# status, the sanitizers' verdict in an ASan build) over every file and
# loader pairing. Every error carries a hint: a last line after the message
# (and after the offending line and its caret, when shown) that is not the
# caret.
# usage: corpus.sh INFCALC FOLDER
set -u
bin=$1
dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=0
bad=0
for f in "$dir"/*; do
    for as in hw model; do
        if [ "$as" = hw ]; then
            "$bin" --model llama3-8b --hw "$f" >"$tmp/out" 2>"$tmp/err"
        else
            "$bin" --model "$f" --hw h100 >"$tmp/out" 2>"$tmp/err"
        fi
        rc=$?
        runs=$((runs + 1))
        first=$(head -n 1 "$tmp/err")
        why=""
        if [ "$rc" -ne 2 ]; then
            why="exit status $rc"
        elif [ -s "$tmp/out" ]; then
            why="output on stdout"
        else
            rest=${first#"$f:"}
            if [ "$rest" = "$first" ] ||
                ! printf '%s\n' "$rest" | grep -Eq '^[1-9][0-9]*:[1-9][0-9]*: error: .'; then
                why="stderr does not open with $f:LINE:COL: error: MESSAGE"
            fi
        fi
        if [ -z "$why" ]; then
            last=$(tail -n 1 "$tmp/err")
            if [ "$(wc -l <"$tmp/err")" -lt 2 ] || printf '%s\n' "$last" | grep -Eq '^[ \t]*\^$'
            then
                why="no hint line after the error"
            fi
        fi
        if [ -n "$why" ]; then
            echo "FAIL: --$as $f: $why"
            sed 's/^/    /' "$tmp/err"
            bad=$((bad + 1))
        fi
    done
done
echo "$runs runs over $dir, $bad failed"
[ "$runs" -ge 120 ] && [ "$bad" -eq 0 ]
