#!/usr/bin/env bash
# Builds the libFuzzer targets (Sources/Fuzz/*) with the fuzzer and AddressSanitizer and runs
# each for a bounded time. See Docs/FUZZING.md.
#
#   scripts/fuzz.sh [TARGET|all] [SECONDS] [-- EXTRA_LIBFUZZER_ARGS...]
#
#   TARGET   FuzzEnvelope, FuzzContent, FuzzOpen, FuzzProviderSizing, FuzzBundle, FuzzDeliveryLog, or all (default)
#   SECONDS  time per target (default 60)
#
# Environment:
#   FUZZ_RUNS=N           stop each target after N executions instead of after SECONDS
#   FUZZ_CONFIGURATION    debug (default) or release
#   FUZZ_NO_ASAN=1        build with the fuzzer only (faster, finds fewer memory errors)
#
# Crashes, leaks, timeouts and OOM inputs go to fuzz-artifacts/crashes/<TARGET>/ (git-ignored);
# the working corpus grows in fuzz-artifacts/corpus/<TARGET>/, seeded from Fuzz/Corpus/<TARGET>/
# (which is never written to). Logs: fuzz-artifacts/logs/<TARGET>.log.
# Exits non-zero if any target crashes, violates a property, or cannot be built.
set -euo pipefail
cd "$(dirname "$0")/.."

# Target name and the largest input libFuzzer generates for it.
declare -A MAX_LEN=(
    [FuzzEnvelope]=8192        # the longest wire string is 5462 characters; 8192 covers "too long"
    [FuzzContent]=4200         # contents are at most 4000 bytes; a little more exercises the limit
    [FuzzOpen]=8192            # APNs bodies are at most 4096 bytes, FCM messages somewhat more
    [FuzzProviderSizing]=4608  # a scenario: content fields and options, enough to overflow 4096
    [FuzzBundle]=1100          # a device decodes at most 1024 characters (every bundle is 538); a little more exercises the limit
    [FuzzDeliveryLog]=33024    # a whole new log (128 + 256 slots of 128 bytes) and a little more
)
ORDER=(FuzzEnvelope FuzzContent FuzzOpen FuzzProviderSizing FuzzBundle FuzzDeliveryLog)

target="${1:-all}"
seconds="${2:-60}"
shift $(( $# > 2 ? 2 : $# ))
[[ "${1:-}" == "--" ]] && shift
extra=("$@")

targets=()
if [[ "$target" == "all" ]]; then
    for name in "${ORDER[@]}"; do
        # Only targets whose sources exist (FuzzOpen and FuzzProviderSizing need the receiver
        # and provider modules).
        [[ -d "Sources/Fuzz/$name" ]] && targets+=("$name")
    done
else
    [[ -n "${MAX_LEN[$target]:-}" && -d "Sources/Fuzz/$target" ]] || {
        echo "fuzz.sh: error: unknown target '$target'" >&2
        echo "hint: one of: $(cd Sources/Fuzz && ls -d Fuzz* | grep -v FuzzSupport | tr '\n' ' ')all" >&2
        exit 64
    }
    targets=("$target")
fi
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: error: SECONDS must be a whole number, got '$seconds'" >&2; exit 64; }

configuration="${FUZZ_CONFIGURATION:-debug}"
# Not `--sanitize=fuzzer --sanitize=address`: SwiftPM passes them to swiftc as two separate
# -sanitize= flags in an order that changes from run to run, and swiftc keeps only the last one,
# so a build gets either coverage without ASan or ASan without coverage (then libFuzzer runs
# blind: "no interesting inputs were found ... instrumented?"). One comma-joined -Xswiftc flag,
# which comes after SwiftPM's own, gives every compile and the link both.
sanitizers=(--sanitize=fuzzer)
if [[ "${FUZZ_NO_ASAN:-0}" != 1 ]]; then
    sanitizers+=(-Xswiftc -sanitize=fuzzer,address)
fi
# -DFUZZING drops each target's replay @main, so libFuzzer's main is the program's entry point.
build_flags=(--scratch-path .build-fuzz -c "$configuration" "${sanitizers[@]}" -Xswiftc -DFUZZING)

artifacts=fuzz-artifacts
mkdir -p "$artifacts/logs"
failed=()
summary=()

for name in "${targets[@]}"; do
    echo "== fuzz: $name (${FUZZ_RUNS:+${FUZZ_RUNS} runs, }${seconds}s max, -max_len=${MAX_LEN[$name]}, $configuration, $([[ "${FUZZ_NO_ASAN:-0}" == 1 ]] && echo fuzzer || echo fuzzer+address))"
    log="$artifacts/logs/$name.log"
    if ! swift build "${build_flags[@]}" --product "$name" > "$artifacts/logs/$name.build.log" 2>&1; then
        tail -30 "$artifacts/logs/$name.build.log" >&2
        echo "fuzz.sh: error: building $name with the fuzzer failed (log: $artifacts/logs/$name.build.log)" >&2
        failed+=("$name (build)")
        continue
    fi
    binary=".build-fuzz/$configuration/$name"
    corpus="$artifacts/corpus/$name"
    crashes="$artifacts/crashes/$name"
    mkdir -p "$corpus" "$crashes"
    before=$(ls "$crashes" | wc -l)

    dict=()
    case "$name" in
        FuzzEnvelope|FuzzBundle) dict=(-dict=Fuzz/Dictionaries/base64url.dict) ;;
        *) dict=(-dict=Fuzz/Dictionaries/json.dict) ;;
    esac
    limit=(-max_total_time="$seconds")
    [[ -n "${FUZZ_RUNS:-}" ]] && limit=(-runs="$FUZZ_RUNS")

    set +e
    # SWIFT_BACKTRACE=enable=no: on a trap, libFuzzer's own handler reports the crash and saves
    # the input; the Swift runtime's backtracer would add a spurious ASan report of its own.
    SWIFT_BACKTRACE=enable=no "$binary" "$corpus" "Fuzz/Corpus/$name" \
        "${limit[@]}" -max_len="${MAX_LEN[$name]}" "${dict[@]}" \
        -artifact_prefix="$crashes/" -timeout=20 -rss_limit_mb=2560 -print_final_stats=1 \
        "${extra[@]}" > "$log" 2>&1
    status=$?
    set -e

    # A build that is not instrumented fuzzes nothing: refuse to report it as a pass.
    if ! grep -qE '^INFO: Loaded [0-9]+ modules +\([1-9][0-9]* inline 8-bit counters\)' "$log"; then
        echo "fuzz.sh: error: $name has no coverage counters: the build is not instrumented (log: $log)" >&2
        failed+=("$name (not instrumented)")
        continue
    fi
    after=$(ls "$crashes" | wc -l)
    runs=$(grep -oE '^stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
    speed=$(grep -oE '^stat::average_exec_per_sec: *[0-9]+' "$log" | grep -oE '[0-9]+$' || echo "?")
    last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    cov=$(grep -oE 'cov: [0-9]+' <<<"$last" | grep -oE '[0-9]+' || echo "?")
    ft=$(grep -oE 'ft: [0-9]+' <<<"$last" | grep -oE '[0-9]+' || echo "?")
    corp=$(grep -oE 'corp: [0-9]+/[0-9]+[bKM]?b?' <<<"$last" | sed 's/corp: //' || echo "?")
    line="$name: $runs runs, $speed exec/s, cov $cov, ft $ft, corpus $corp, new crash files $(( after - before ))"
    summary+=("$line")
    if (( status != 0 || after > before )); then
        grep -E 'ERROR: |fuzz property violated|Fatal error|SUMMARY: |Test unit written' "$log" | head -20 >&2 || true
        echo "fuzz.sh: error: $name failed (exit $status); reproducers in $crashes/, log $log" >&2
        echo "hint: replay one with: swift build --product $name && .build/debug/$name $crashes/<file>" >&2
        failed+=("$name")
    else
        echo "$line"
    fi
done

echo "== fuzz summary"
for line in "${summary[@]}"; do echo "  $line"; done
if (( ${#failed[@]} )); then
    echo "  FAILED: ${failed[*]}"
    exit 1
fi
echo "  all ${#targets[@]} target(s) passed"
