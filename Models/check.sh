#!/usr/bin/env bash
# Model-checks Models/key-lifecycle.pml with Spin: every configuration that must hold is checked exhaustively
# (all properties P1a-P6 at once), and every mutant — a rule removed or weakened with a -D macro — must make
# Spin print a counterexample violating the property it names. Exits non-zero when a configuration fails or a
# mutant passes (or fails some other property). Models/README.md describes the model, the bounds, the findings.
#
#   Models/check.sh            everything (CI: scripts/ci-extra.sh)
#   Models/check.sh --keep     keep the work directory (trails: <dir>/<name>/key-lifecycle.pml.trail)
#
# Needs spin and a C compiler (scripts/bootstrap.sh installs both).
set -uo pipefail
cd "$(dirname "$0")"
command -v spin >/dev/null || { echo "check.sh: error: spin is not installed (scripts/bootstrap.sh installs it)" >&2; exit 2; }
command -v cc >/dev/null || { echo "check.sh: error: no C compiler (cc) for Spin's verifiers" >&2; exit 2; }

keep=0
[[ "${1:-}" == "--keep" ]] && keep=1
work=$(mktemp -d "${TMPDIR:-/tmp}/pushseal-models.XXXXXX")
(( keep )) || trap 'rm -rf "$work"' EXIT
failures=0

# run NAME EXPECT DEFINES...: EXPECT is "pass" or the property name (e.g. P3) the counterexample must violate.
run() {
    local name="$1" expect="$2"
    shift 2
    local dir="$work/$name"
    mkdir -p "$dir"
    cp key-lifecycle.pml "$dir/"
    local start=$(date +%s)
    if ! (cd "$dir" && spin "$@" -a key-lifecycle.pml >spin.log 2>&1 && cc -O2 -w -DSAFETY -o pan pan.c >cc.log 2>&1); then
        echo "FAIL  $name: the model does not build ($*)"; cat "$dir/spin.log" "$dir/cc.log" 2>/dev/null | head -20
        failures=$((failures + 1)); return
    fi
    (cd "$dir" && ./pan -m200000 >pan.log 2>&1)
    local elapsed=$(( $(date +%s) - start ))
    local errors states violated=""
    errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$dir/pan.log" | head -1)
    states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$dir/pan.log" | head -1)
    if [[ -z "$errors" ]] || grep -q "max search depth too small" "$dir/pan.log"; then
        echo "FAIL  $name: the search did not complete ($*)"; tail -20 "$dir/pan.log"
        failures=$((failures + 1)); return
    fi
    if [[ -f "$dir/key-lifecycle.pml.trail" ]]; then
        violated=$(cd "$dir" && spin -t "$@" key-lifecycle.pml 2>/dev/null | sed -n 's/.*VIOLATION \([A-Za-z0-9]*\).*/\1/p' | head -1)
    fi
    if [[ "$expect" == "pass" ]]; then
        if [[ "$errors" == 0 ]]; then
            echo "PASS  $name: no violation, $states states (${elapsed}s) [$*]"
        else
            echo "FAIL  $name: $violated violated [$*]"
            (cd "$dir" && spin -t "$@" key-lifecycle.pml 2>/dev/null | grep -v '^ *$' | tail -40)
            failures=$((failures + 1))
        fi
    else
        if [[ "$errors" != 0 && "$violated" == "$expect" ]]; then
            echo "PASS  $name: counterexample violates $expect after $states states (${elapsed}s) [$*]"
        elif [[ "$errors" == 0 ]]; then
            echo "FAIL  $name: no counterexample ($states states), expected one violating $expect [$*]"
            failures=$((failures + 1))
        else
            echo "FAIL  $name: the counterexample violates ${violated:-an unnamed assertion}, expected $expect [$*]"
            failures=$((failures + 1))
        fi
    fi
}

start=$(date +%s)
# Bounds: 3 epochs, 1 registration per device, clock 0..4 (README "Bounds"); the wipe with 2 registrations
# and 2 epochs; skew 1 (the lagging device) and 0.
base=(-DE=3 -DNG=1 -DMAXT=4)
echo "== the design's rules (bundle format 2, per-device keys): every property holds"
run per-device-skew1 pass "${base[@]}" -DSKEW=1
run per-device-skew0 pass "${base[@]}" -DSKEW=0
run logout-wipe pass -DE=2 -DNG=2 -DMAXT=4 -DSKEW=1
run root-key-holder pass "${base[@]}" -DATTACKER_HOLDS_K
echo "== mutants: each must give a counterexample"
run no-high-water P4 "${base[@]}" -DNO_HIGH_WATER
run no-tombstone P3 "${base[@]}" -DNO_TOMBSTONE
run no-retire-on-install P2b "${base[@]}" -DNO_RETIRE_ON_INSTALL
run no-retire-earlier P2b "${base[@]}" -DNO_RETIRE_EARLIER
run no-step-cap P4b "${base[@]}" -DNO_STEP_CAP
run shared-key P1b "${base[@]}" -DSHARED_KEY
run install-time-retire-by P2 "${base[@]}" -DATTACKER_HOLDS_K -DINSTALL_TIME_RETIRE_BY
run high-water-since P2 "${base[@]}" -DATTACKER_HOLDS_K -DHIGH_WATER_SINCE
echo "== $(( $(date +%s) - start ))s"
if (( failures )); then
    echo "check.sh: $failures check(s) failed" >&2
    exit 1
fi
echo "check.sh: all checks passed"
