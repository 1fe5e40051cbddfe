#!/usr/bin/env bash
# The main job: build PushSeal and run the end-to-end walk-through (`pushseal demo`).
# Extra arguments go to `pushseal demo` (e.g. --json, --dir DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
swift build -c release --static-swift-stdlib --product pushseal >&2   # fully static on Linux (Package.swift)
exec .build/release/pushseal demo "$@"
