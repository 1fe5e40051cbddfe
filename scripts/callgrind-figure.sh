#!/bin/sh
# Instructions per operation of one bench figure, from callgrind (repeatable, unlike timings):
# runs `pushseal bench --profile --only FIGURE` with N and 2N iterations and prints
# (Ir(2N) - Ir(N)) / N, which cancels start-up and fixture costs.
#   scripts/callgrind-figure.sh seal.apns.512 [N]
# Keeps the 2N profile in /tmp/callgrind.FIGURE for callgrind_annotate.
set -eu
figure=$1
n=${2:-2000}
exe=${PUSHSEAL:-.build/release/pushseal}
run() {
    valgrind --tool=callgrind --callgrind-out-file="$2" "$exe" bench --profile --only "$figure" --iterations "$1" ${BENCH_ARGS:-} \
        >/dev/null 2>"$2.log"
    sed -n 's/.*Collected : //p' "$2.log"
}
one=$(run "$n" "/tmp/callgrind.$figure.n")
two=$(run $((n * 2)) "/tmp/callgrind.$figure")
echo "$figure: $(( (two - one) / n )) instructions per operation (N=$n)"
