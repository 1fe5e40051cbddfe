#!/usr/bin/env bash
# The main job: build PushSeal and run the end-to-end walk-through (`pushseal demo`).
# Extra arguments go to `pushseal demo` (e.g. --json, --dir DIR).
#
#   scripts/demo.sh --postgres [URI]
# runs the provider side on a PostgreSQL key directory instead: two backend nodes share it (node A
# creates the provider key, registers the device and rotates; node B seals with the key from its
# LISTEN/NOTIFY-invalidated cache, and seals the device's key bundles with the provider key and
# the registration from PostgreSQL alone), then the device installs each bundle
# (`pushseal bundle install`) and `pushseal open --store` decrypts node B's payloads. Without URI, a throwaway local cluster is
# started and removed afterwards (scripts/with-postgres.sh); with one, tables pushseal_* are
# created in that database if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
swift build -c release --static-swift-stdlib --product pushseal >&2   # fully static on Linux (Package.swift)
if [[ "${1:-}" != "--postgres" ]]; then
    exec .build/release/pushseal demo "$@"
fi

uri="${2:-}"
if [[ -z "$uri" ]]; then
    exec scripts/with-postgres.sh sh -c 'exec scripts/demo.sh --postgres "$PUSHSEAL_TEST_POSTGRES_URI"'
fi
swift build -c release --product pushseal-keydir-worker >&2
out=$(mktemp -d "${TMPDIR:-/tmp}/pushseal-demo-postgres.XXXXXX")
trap 'rm -rf "$out"' EXIT
.build/release/pushseal-keydir-worker demo --uri "$uri" --out "$out"
for epoch in 1 2; do
    echo "device     pushseal bundle install bundle-$epoch.txt:"
    .build/release/pushseal bundle install --dir "$out/device" "$out/bundle-$epoch.txt"
    echo "device     pushseal open --store payload-$epoch.json:"
    .build/release/pushseal open --store "$out/device" "$out/payload-$epoch.json"
done
