#!/usr/bin/env bash
# Runs a command with the local APNs/FCM emulator (Tests/Emulator/push-emulator.py) listening on
# loopback: it makes a test CA, a server certificate, APNs keys and an FCM service account in a
# fresh directory, which the command finds in PUSHSEAL_EMULATOR_DIR. The emulator is stopped
# when the command ends, whatever its outcome. Exits with the command's status, or 1 when the
# emulator cannot start (the delivery tests then must not run: they fail, never skip).
#
#   scripts/with-push-emulator.sh swift test --skip-build
#
# Environment: PUSH_EMULATOR_ARGS  extra emulator arguments (e.g. --quiet)
set -uo pipefail
cd "$(dirname "$0")/.."

dir=$(mktemp -d "${TMPDIR:-/tmp}/pushseal-emulator.XXXXXX")
# shellcheck disable=SC2086
python3 Tests/Emulator/push-emulator.py --dir "$dir" ${PUSH_EMULATOR_ARGS:-} 2> "$dir/emulator.log" &
pid=$!
stop() {
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    rm -rf "$dir"
}
trap stop EXIT
for _ in $(seq 1 150); do
    [[ -f "$dir/ready" ]] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
if [[ ! -f "$dir/ready" ]]; then
    echo "with-push-emulator: error: the APNs/FCM emulator did not start" >&2
    cat "$dir/emulator.log" >&2
    echo "hint: it needs Python 3 with the 'h2' and 'cryptography' packages (scripts/bootstrap.sh --ports installs them)" >&2
    exit 1
fi
PUSHSEAL_EMULATOR_DIR="$dir" "$@"
