#!/bin/sh
# The real infcalc binary over every command line of a corpus of bad ones
# (tests/fixtures/bad-cli.txt): each must exit 2 (a usage or input error:
# not 0, not 1, not a crash), write nothing on stdout, open stderr with
# "infcalc: error: " (or "FILE[:LINE:COL]: error: " for a file named on the
# line) and end it with a hint: a last line, after the message, indented
# two spaces, that is not the caret under an offending line. The general
# fallback hint of ic_cli_usage counts as missing: every error in the
# corpus has one of its own (issue 16 §4).
# usage: bad_cli.sh INFCALC CORPUS
set -u
bin=$1
corpus=$2
case $corpus in /*) ;; *) corpus=$(pwd)/$corpus ;; esac
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# in a folder of its own: a line that wrote a file would leave it there
cd "$tmp" || exit 1
runs=0
bad=0
general="'infcalc --help' lists the commands, 'infcalc COMMAND --help' their options"
while IFS= read -r line; do
    case $line in '' | '#'*) continue ;; esac
    eval "set -- $line"
    "$bin" "$@" >out 2>err </dev/null
    rc=$?
    runs=$((runs + 1))
    # the first and the last line of stderr and their count, with the
    # shell's own read (a process per check would triple the run time)
    first="" last="" n=0
    while IFS= read -r l || [ -n "$l" ]; do
        [ $n -eq 0 ] && first=$l
        last=$l
        n=$((n + 1))
    done <err
    why=""
    if [ "$rc" -ne 2 ]; then
        why="exit status $rc, not 2"
    elif [ -s out ]; then
        why="output on stdout"
    else
        head=${first%%: error: *}
        if [ "$head" = "$first" ] || [ -z "$head" ] || [ -z "${first#"$head: error: "}" ]
        then
            why="stderr does not open with 'infcalc: error: ' or 'FILE:LINE:COL: error: '"
        fi
    fi
    if [ -z "$why" ]; then
        case $last in
        '  '[!' ']*) ;;
        *) why="no hint line after the error" ;;
        esac
        # a caret line: blanks, then '^' alone
        rest=${last#"${last%%[! 	]*}"}
        caret=false
        [ "$rest" = "^" ] && caret=true
        if [ $n -lt 2 ] || $caret; then
            why="no hint line after the error"
        elif [ "$last" = "  $general" ]; then
            why="only the general hint"
        fi
    fi
    if [ -n "$why" ]; then
        echo "FAIL: infcalc $line: $why"
        sed 's/^/    /' err
        bad=$((bad + 1))
    fi
done <"$corpus"
echo "$runs bad command lines, $bad failed"
[ "$runs" -ge 100 ] && [ "$bad" -eq 0 ]
