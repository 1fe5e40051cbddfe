#!/usr/bin/env bash
# The hardening checks CI runs after the test suite (.ci/run): every fuzz target for a short
# bounded time, the Swift tests under AddressSanitizer, the documentation build, the key-lifecycle
# model (Spin: every property, every mutant; Models/README.md), and the file-reading tests from a
# copy of the repository with nothing above it (scripts/clean-copy-check.sh).
# Each section runs even when an earlier one failed; the exit status is non-zero if any failed.
#
#   scripts/ci-extra.sh
#
# Environment:
#   CI_FUZZ_SECONDS   seconds per fuzz target (default 30)
#
# Build directories are separate so nothing here clobbers the normal .build:
# .build-fuzz (fuzzer + ASan), .build-asan (tests under ASan), .build-docs (symbol graphs).
set -uo pipefail
cd "$(dirname "$0")/.."

fuzz_seconds="${CI_FUZZ_SECONDS:-30}"
results=()
failures=0
script_start=$(date +%s)

section() {
    local name="$1"
    shift
    echo
    echo "======== $name"
    local start=$(date +%s)
    "$@"
    local status=$?
    local elapsed=$(( $(date +%s) - start ))
    if (( status == 0 )); then
        results+=("PASS  $name (${elapsed}s)")
    else
        results+=("FAIL  $name (${elapsed}s, exit $status)")
        failures=$(( failures + 1 ))
    fi
    echo "======== $name: $( (( status == 0 )) && echo passed || echo FAILED) in ${elapsed}s"
}

fuzz() {
    scripts/fuzz.sh all "$fuzz_seconds"
}

asan_tests() {
    local log=.build-asan/swift-test.log
    mkdir -p .build-asan
    # --disable-xctest: XCTest's own allocations trip LeakSanitizer; the suites use Swift Testing.
    # LeakSanitizer stays on: scripts/lsan-suppressions.txt lists only allocations that are
    # immortal by design (test fixtures in globals) or Foundation's own (tests only).
    # The streaming batch's peak-RSS bound is skipped here only: ASan's shadow memory and
    # quarantine make any process's RSS meaningless; the plain run (scripts/test.sh) checks it.
    # scripts/asan-suppressions.txt: one overflow inside Foundation's Process (tests only).
    # Under scripts/with-postgres.sh: the PostgreSQL key directory tests (library and CLI) need its cluster.
    LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt:print_suppressions=1${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
    ASAN_OPTIONS="suppressions=$PWD/scripts/asan-suppressions.txt${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
        scripts/with-postgres.sh scripts/with-push-emulator.sh swift test --scratch-path .build-asan --sanitize=address --disable-xctest \
        --skip aBatchOfAnySizeStreamsInConstantMemory > "$log" 2>&1
    local status=$?
    grep -E '^✘|^↳|^(✔|✘) Test run|ERROR: AddressSanitizer|ERROR: LeakSanitizer|SUMMARY: |Fatal error' "$log" || true
    if (( status != 0 )) || ! grep -qE '^✔ Test run with [0-9]+ tests? .*passed' "$log"; then
        echo "ci-extra: error: the tests failed under AddressSanitizer (exit $status; log: $log)" >&2
        return 1
    fi
}

docs() {
    scripts/docs-check.sh
}

clean_copy() {
    scripts/clean-copy-check.sh
}

models() {
    Models/check.sh
}

section "fuzz: each target for ${fuzz_seconds}s (libFuzzer + AddressSanitizer)" fuzz
section "swift test under AddressSanitizer" asan_tests
section "documentation: docc convert --warnings-as-errors" docs
section "the repository alone: file-reading tests in a copy of the tracked files" clean_copy
section "key-lifecycle model: spin, every property and mutant (Models/check.sh)" models

echo
echo "======== ci-extra summary ($(( $(date +%s) - script_start ))s)"
for line in "${results[@]}"; do echo "  $line"; done
if (( failures )); then
    echo "  $failures section(s) failed"
    exit 1
fi
echo "  all sections passed"
