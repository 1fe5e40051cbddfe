#!/usr/bin/env bash
# Every test: the Swift suites (the delivery tests against the local APNs/FCM emulator, which
# scripts/with-push-emulator.sh starts and stops; the PostgreSQL key directory's against a
# throwaway cluster, which scripts/with-postgres.sh starts and stops), the vector files, the three packages (Python,
# Node, Java) from the source tree and installed fresh, round trips with the `pushseal` tool, and
# the version check.
# Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh --ports

echo "== swift test"
swift build --build-tests
set +e
scripts/with-postgres.sh scripts/with-push-emulator.sh swift test --skip-build > .build/swift-test.log 2>&1
status=$?
set -e
# Show failures and the summary, not the per-test chatter (the full log stays in .build/).
grep -E '^✘|^↳|^(✔|✘) Test run|Fatal error|Precondition failed' .build/swift-test.log || true
if [[ $status -ne 0 ]] || ! grep -qE '^✔ Test run with [0-9]+ tests? .*passed' .build/swift-test.log; then
    echo "swift test failed (exit $status); full log: .build/swift-test.log" >&2
    exit 1
fi

echo "== ports against the receiver, provider, key-store and bundle vectors and RFC 9180 A.2 (HPKE)"
Vectors/ports/run-all.sh

echo "== round trips: pushseal seal/open <-> the three ports"
python3 Vectors/ports/roundtrip.py --require .build/debug/pushseal

echo "== packages installed fresh: pip, npm, jar (Docs/PORTING.md §5)"
Vectors/ports/install-test.sh .build/debug/pushseal

echo "== one version: VERSION, pushseal --version, the packages, CHANGELOG.md"
python3 scripts/check_version.py .build/debug/pushseal

echo "== pushseal send: 10,000 lines through the emulator, every line delivered, peak RSS <= 64 MiB"
scripts/send-bench.py --pushseal .build/debug/pushseal --lines 10000 --reference-lines 1000 --check

echo "== all tests passed"
