#!/usr/bin/env bash
# The PostgreSQL key directory's reliability figures: 4 provider processes rotate one
# conversation as fast as they can, in 6 rounds; every round ends with kill -9 of all four, and
# every second round restarts the server (pg_ctl restart -m fast) while they run. Then checks
# that the epochs are exactly 1...N (no gap, no duplicate), exactly one is current, and every
# epoch a process reported committed is there. Exit 1 when any check fails.
#
#   scripts/postgres-reliability.sh          (starts its own throwaway cluster)
set -uo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${PUSHSEAL_TEST_POSTGRES_URI:-}" ]]; then
    swift build -c release --product pushseal-keydir-worker >&2 || exit 1
    exec scripts/with-postgres.sh "$0"
fi
worker=.build/release/pushseal-keydir-worker
uri=$PUSHSEAL_TEST_POSTGRES_URI
key=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
out=$(mktemp -d "${TMPDIR:-/tmp}/pushseal-reliability.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$worker" rotate --uri "$uri" --key-hex "$key" --conversation rel --count 1 > "$out/w0.out" || exit 1
processes=0 kills=0 restarts=0
for round in 1 2 3 4 5 6; do
    pids=()
    for _ in 1 2 3 4; do
        processes=$((processes + 1))
        "$worker" rotate-loop --uri "$uri" --key-hex "$key" --conversation rel > "$out/w$processes.out" 2> "$out/w$processes.err" &
        pids+=($!)
    done
    sleep 1
    if (( round % 2 == 0 )); then
        "$PUSHSEAL_TEST_POSTGRES_CTL" restart -m fast -w > /dev/null 2>&1 && restarts=$((restarts + 1))
        sleep 1
    fi
    kill -9 "${pids[@]}" 2> /dev/null
    kills=$((kills + ${#pids[@]}))
    wait 2> /dev/null
done
cat "$out"/*.out | awk '/^rot /{print $3}' | sort -n > "$out/reported"
psql "$uri" -Atc "SELECT epoch FROM pushseal_keys WHERE conversation = 'rel' ORDER BY epoch" > "$out/stored"
read -r rows highest current <<< "$(psql "$uri" -Atc "SELECT count(*), max(epoch), count(*) FILTER (WHERE not_after IS NULL) FROM pushseal_keys WHERE conversation = 'rel'" | tr '|' ' ')"
reported=$(wc -l < "$out/reported")
duplicates=$(uniq -d "$out/reported" | wc -l)
lost=$(comm -23 "$out/reported" "$out/stored" | wc -l)
echo "processes $processes, kills $kills, restarts $restarts, rotations $rows (reported committed $reported), highest epoch $highest, current $current, duplicates $duplicates, lost $lost"
cat "$out"/*.err | sort | uniq -c
[[ "$rows" == "$highest" && "$current" == 1 && "$duplicates" == 0 && "$lost" == 0 && "$restarts" == 3 ]]
