#!/usr/bin/env bash
# The repository stands alone: copies the tracked files (`git ls-files`, what a clone has) into a
# fresh temporary directory with nothing else above it and runs, there, every test that reads a
# file of the repository: the Swift suites that read vector files, docs or goldens (a fresh debug
# build of the tests), the three ports against every vector file (Vectors/ports/run-all.sh, which
# also builds and tests the Java jar) and the Python and Node packages' own tests. A test that
# reaches outside the repository (e.g. ../shared) fails here. The full test command is not run a
# second time (it takes ~7 minutes and needs PostgreSQL and the push emulator); the suites that
# read no file run in the checkout only.
#
#   scripts/clean-copy-check.sh [--keep]
#
# --keep leaves the copy in place and prints its path. Exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
keep=0
case "${1:-}" in --keep) keep=1 ;; "") ;; *) echo "clean-copy-check.sh: error: unknown option $1" >&2; exit 64 ;; esac

outer="$(mktemp -d)"
copy="$outer/pushseal"
[ "$keep" = 1 ] || trap 'rm -rf "$outer"' EXIT
mkdir "$copy"
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$copy" || { echo "clean-copy-check.sh: error: could not copy the tracked files" >&2; exit 1; }
chmod -R u+w "$copy"
echo "== clean copy: $(git ls-files | wc -l) tracked files in $copy (nothing else in $outer)"
cd "$copy"

status=0
# Swift suites that read files of the repository (vector files, external vectors, docs snippets,
# goldens, the CLI's help text against Docs/CLI.md).
suites='PushSealCoreTests|PushSealVectorsTests|VectorsCommandTests|HelpTests|IntegrationExampleTests|GoldenTests|SealingFormatTests'
if swift build --build-tests >.build-clean-copy.log 2>&1; then
    swift test --skip-build --filter "$suites" >>.build-clean-copy.log 2>&1
    rc=$?
    grep -E '^✘|^↳|^(✔|✘) Test run' .build-clean-copy.log || true
    if [ $rc -ne 0 ] || ! grep -qE '^✔ Test run with [0-9]+ tests? .*passed' .build-clean-copy.log; then
        echo "clean-copy-check.sh: error: swift test failed in the copy (exit $rc)" >&2; tail -n 40 .build-clean-copy.log >&2; status=1
    fi
else
    echo "clean-copy-check.sh: error: swift build failed in the copy" >&2; tail -n 40 .build-clean-copy.log >&2; status=1
fi
echo "== ports in the copy"
Vectors/ports/run-all.sh || status=1
echo "== python tests in the copy"
( cd Vectors/ports/python && python3 -m pytest -q -p no:cacheprovider tests ) || status=1
echo "== node tests in the copy"
( cd Vectors/ports/node && node --test test/ ) || status=1
[ "$keep" = 1 ] && echo "clean copy kept: $copy"
[ $status -eq 0 ] && echo "clean-copy-check: passed" || echo "clean-copy-check: FAILED"
exit $status
