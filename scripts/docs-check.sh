#!/usr/bin/env bash
# Checks the docs' consistency (scripts/docs_consistency.py), then builds the DocC documentation
# of every library product with warnings as errors: dumps the
# public symbol graphs (swift package dump-symbol-graph) and runs `docc convert` on each module
# with its catalog (Sources/<Module>/<Module>.docc) when there is one. Unresolved symbol links,
# bad parameter docs and malformed catalog pages fail the check.
#
#   scripts/docs-check.sh            output in .build-docs/docc/<Module>/
set -euo pipefail
cd "$(dirname "$0")/.."

# First the docs against each other and the code: one store path, the current file format,
# section numbers, README snippets that compile, the vector file counts.
python3 scripts/docs_consistency.py

scratch=.build-docs
docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
[[ -x "$docc" ]] || docc="$(command -v docc || true)"
[[ -x "$docc" ]] || { echo "docs-check: error: docc not found beside swift or on PATH" >&2; exit 1; }

# Library products and their targets, from the manifest.
modules=$(swift package --scratch-path "$scratch" dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
seen = []
for product in package["products"]:
    if "library" in product["type"]:
        for target in product["targets"]:
            if target not in seen:
                seen.append(target)
print(" ".join(seen))')
[[ -n "$modules" ]] || { echo "docs-check: error: no library products in Package.swift" >&2; exit 1; }

echo "docs-check: dumping public symbol graphs"
dump_log="$scratch/dump-symbol-graph.log"
mkdir -p "$scratch"
rm -rf "$scratch"/*/symbolgraph   # never convert a stale graph
set +e
swift package --scratch-path "$scratch" dump-symbol-graph --minimum-access-level public --skip-inherited-docs > "$dump_log" 2>&1
status=$?
set -e
# SwiftPM 6.3 also tries the synthesized test-runner modules (<Package>PackageTests,
# <Package>PackageDiscoveredTests), fails to load them and exits 1 after writing every real
# module's graph. Those two errors are expected; any other error fails the check.
unexpected=$(grep -E '^error: ' "$dump_log" | grep -vE "^error: Failed to emit symbol graph for '[A-Za-z0-9_]+Package(Discovered)?Tests': " || true)
graphs=$(sed -n 's/^Files written to //p' "$dump_log" | tail -1)
if [[ -n "$unexpected" || -z "$graphs" || ! -d "$graphs" ]]; then
    tail -30 "$dump_log" >&2
    echo "docs-check: error: dump-symbol-graph failed (exit $status; log: $dump_log)" >&2
    exit 1
fi

failed=()
for module in $modules; do
    input="$scratch/docc-input/$module"
    output="$scratch/docc/$module"
    rm -rf "$input" "$output"
    mkdir -p "$input" "$scratch/docc"
    [[ -f "$graphs/$module.symbols.json" ]] || {
        echo "docs-check: error: no symbol graph for $module (log: $dump_log)" >&2
        failed+=("$module")
        continue
    }
    cp "$graphs/$module.symbols.json" "$input/"
    compgen -G "$graphs/$module@*.symbols.json" > /dev/null && cp "$graphs/$module"@*.symbols.json "$input/"
    catalog=()
    if [[ -d "Sources/$module/$module.docc" ]]; then
        catalog=("Sources/$module/$module.docc")
    else
        echo "docs-check: note: $module has no Sources/$module/$module.docc catalog (no landing page)"
    fi
    log="$scratch/docc-$module.log"
    if "$docc" convert "${catalog[@]}" --additional-symbol-graph-dir "$input" --output-path "$output" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.pushseal.$module" \
        --warnings-as-errors > "$log" 2>&1; then
        echo "docs-check: $module ok"
    else
        cat "$log" >&2
        echo "docs-check: error: $module documentation has warnings or errors" >&2
        failed+=("$module")
    fi
done

if (( ${#failed[@]} )); then
    echo "docs-check: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "docs-check: all documentation builds without warnings ($modules)"
