#!/usr/bin/env bash
# The main job: build PushSeal and run the end-to-end walk-through (`pushseal demo`).
# Extra arguments go to `pushseal demo` (e.g. --json, --dir DIR).
#
#   scripts/demo.sh --postgres [URI]
# runs the provider side on a PostgreSQL key directory instead (`pushseal demo --postgres URI`, which
# pushseal-full runs in process): two backend nodes share it (node A creates the provider key,
# registers the device and rotates; node B seals with the key from its LISTEN/NOTIFY-invalidated
# cache, and seals the device's key bundles with the provider key and the registration from
# PostgreSQL alone), then the device installs each bundle and opens node B's payloads through its
# store. Without URI, a throwaway local cluster is started and removed afterwards
# (scripts/with-postgres.sh); with one, tables pushseal_* are created in that database if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
if [[ "${1:-}" != "--postgres" ]]; then
    swift build -c release --static-swift-stdlib --product pushseal >&2   # fully static on Linux (Package.swift)
    exec .build/release/pushseal demo "$@"
fi

uri="${2:-}"
if [[ -z "$uri" ]]; then
    exec scripts/with-postgres.sh sh -c 'exec scripts/demo.sh --postgres "$PUSHSEAL_TEST_POSTGRES_URI"'
fi
# pushseal runs its companion pushseal-full (libpq) for a connection URI.
# (One product per `swift build`: with several --product options it builds only the last.)
swift build -c release --product pushseal >&2
swift build -c release --product pushseal-full >&2
exec .build/release/pushseal demo --postgres "$uri" "${@:3}"
