#!/usr/bin/env bash
# "Done means" for the three packages, as a new user would do it:
#
#   Vectors/ports/install-test.sh PUSHSEAL_BINARY
#
# For Python (a fresh virtual environment, `pip install Vectors/ports/python`), Node (a fresh
# directory, `npm pack` + `npm install` of the tarball, offline) and Java (the jar from
# build.sh on the classpath; Kotlin too when kotlinc is installed) it runs the program of
# Docs/PORTING.md §5 from a temporary directory (and compiles the Kotlin snippet of §3): it must open a payload sealed by `pushseal seal`
# and print its title and body, and `pushseal open` must accept the reply it seals; the key bundle
# programs of §6.4 must install a bundle and open that payload with it. Then it runs
# each package's own tests and vector runner against the installed copy. Ends with
# "N passed, N failed"; exit status 1 on any failure.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="${1:?usage: install-test.sh PUSHSEAL_BINARY}"
case "$bin" in /*) ;; *) bin="$PWD/$bin" ;; esac
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
check() {  # label, then a command whose success is the check
    local label="$1"; shift
    if "$@" >"$tmp/check.out" 2>&1; then
        passed=$((passed + 1)); echo "ok   $label"
    else
        failed=$((failed + 1)); echo "FAIL $label"; sed 's/^/     /' "$tmp/check.out" | tail -n 20
    fi
}

key="AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
now="$(date +%s)"
hpke="$root/Vectors/external/rfc9180/rfc9180-x25519-sha256-chacha20poly1305.json"
vectors=("$root/Vectors/pushseal-v1.json" "$root/Vectors/pushseal-v1-provider.json" "$root/Vectors/pushseal-v1-store.json" "$root/Vectors/pushseal-v1-bundles.json" "$root/Vectors/pushseal-v1-devices.json" "$hpke")
wycheproof="$root/Vectors/external/wycheproof"
printf '{"cid":"conv-install","mid":"m-1","ts":%s,"title":"Ana","body":"Hello 👋🏽 from Swift"}\n' "$now" \
    | "$bin" seal --key "$key" > "$tmp/swift-payload.json" || { echo "install-test: pushseal seal failed" >&2; exit 1; }

# The example programs, verbatim from Docs/PORTING.md (the fenced block after `<!-- test: NAME -->`).
python3 - "$root/Docs/PORTING.md" "$tmp/examples" <<'PY' || exit 1
import re, sys, pathlib
text = pathlib.Path(sys.argv[1]).read_text()
out = pathlib.Path(sys.argv[2]); out.mkdir()
found = re.findall(r"<!-- test: (\S+) -->\n```\w+\n(.*?)```", text, re.S)
assert len(found) == 9, f"expected 9 test examples in PORTING.md, found {len(found)}"
for name, code in found:
    (out / name).write_text(code)
PY

# Runs an example: opens the Swift payload, seals a reply; checks both directions.
round_trip() {  # name, command...
    local name="$1"; shift
    ( cd "$tmp/run-$name" && "$@" "$key" "$now" < "$tmp/swift-payload.json" > reply.json 2> stderr.txt ) || { cat "$tmp/run-$name/stderr.txt"; return 1; }
    grep -qx 'Ana Hello 👋🏽 from Swift' "$tmp/run-$name/stderr.txt" || { echo "did not print the decrypted title and body:"; cat "$tmp/run-$name/stderr.txt"; return 1; }
    "$bin" open --key "$key" --conversation conv-install < "$tmp/run-$name/reply.json" > "$tmp/run-$name/opened.json" || { cat "$tmp/run-$name/opened.json"; return 1; }
    grep -q '"outcome":"decrypted"' "$tmp/run-$name/opened.json" && grep -q '"body":"Hi back 👍🏽"' "$tmp/run-$name/opened.json" \
        || { cat "$tmp/run-$name/opened.json"; return 1; }
}

# Runs a key bundle example (PORTING.md §6.4): it seals the device key K_d of K to a new device key,
# installs the bundle, falls back on the Swift payload sealed under K itself (the device never holds
# K: unknown_key) and opens the notification sealed for this device under K_d.
bundle_example() {  # name, command...
    local name="$1"; shift
    ( cd "$tmp/run-$name" && "$@" "$key" "$now" < "$tmp/swift-payload.json" > bundle-stdout.txt 2> bundle-stderr.txt ) \
        || { cat "$tmp/run-$name/bundle-stderr.txt"; return 1; }
    [ "$(cat "$tmp/run-$name/bundle-stderr.txt")" = "$(printf 'installed\nfallback: unknown_key\nAna Hello 👋🏽 per device')" ] \
        || { echo "did not install the bundle, fall back on K's payload and print the per-device title and body:"; cat "$tmp/run-$name/bundle-stderr.txt"; return 1; }
}

echo "== python: a fresh virtual environment"
mkdir -p "$tmp/run-python"
python3 -m venv "$tmp/venv"
check "python: pip install Vectors/ports/python" "$tmp/venv/bin/pip" install --quiet --disable-pip-version-check "$here/python" pytest mypy
cp "$tmp/examples/example.py" "$tmp/run-python/"
check "python: example opens pushseal's payload, pushseal opens its reply" round_trip python "$tmp/venv/bin/python" example.py
cp "$tmp/examples/bundle_example.py" "$tmp/run-python/"
check "python: bundle example installs a key bundle and opens pushseal's payload with it" bundle_example python "$tmp/venv/bin/python" bundle_example.py
check "python: mypy checks the examples against the installed, typed package (py.typed)" bash -c "cd '$tmp/run-python' && '$tmp/venv/bin/mypy' --no-incremental --strict example.py bundle_example.py"
check "python: mypy --strict on the package itself" bash -c "cd '$tmp/run-python' && '$tmp/venv/bin/mypy' --no-incremental --strict '$here/python/pushseal'"
check "python: the wheel builds without setuptools deprecation warnings (SPDX license metadata)" bash -c "out=\$('$tmp/venv/bin/pip' wheel --no-deps --disable-pip-version-check -v -w '$tmp/wheel' '$here/python' 2>&1) && ! grep -i 'SetuptoolsDeprecationWarning' <<<\"\$out\""
check "python: the installed package is the one imported" bash -c "cd '$tmp' && '$tmp/venv/bin/python' -c 'import pushseal, sys; assert \"site-packages\" in pushseal.__file__, pushseal.__file__'"
check "python: pytest against the installed package" bash -c "cd '$tmp' && PUSHSEAL_VECTORS='$root/Vectors' '$tmp/venv/bin/python' -m pytest -q -p no:cacheprovider '$here/python/tests'"
check "python: pushseal-vectors-python (console script)" "$tmp/venv/bin/pushseal-vectors-python" "${vectors[@]}"

echo "== node: a fresh directory, npm pack + npm install (offline)"
mkdir -p "$tmp/run-node"
printf '{"name":"install-test","private":true,"type":"module"}\n' > "$tmp/run-node/package.json"
check "node: npm pack && npm install the tarball" bash -c "cd '$tmp' && npm pack --silent --pack-destination '$tmp' '$here/node' >/dev/null && cd run-node && npm install --offline --no-audit --no-fund --silent '$tmp'/pushseal-*.tgz"
cp "$tmp/examples/example.mjs" "$tmp/run-node/"
check "node: example opens pushseal's payload, pushseal opens its reply" round_trip node node example.mjs
cp "$tmp/examples/bundle_example.mjs" "$tmp/run-node/"
check "node: bundle example installs a key bundle and opens pushseal's payload with it" bundle_example node node bundle_example.mjs
check "node: node --test against the installed package" bash -c "cd '$tmp/run-node/node_modules/pushseal' && cp -r '$here/node/test' . && PUSHSEAL_VECTORS='$root/Vectors' node --test test/"
check "node: pushseal-vectors-node (bin)" "$tmp/run-node/node_modules/.bin/pushseal-vectors-node" "${vectors[@]}"

echo "== java: the jar on the classpath"
mkdir -p "$tmp/run-java"
check "java: build.sh (javac --release 11, jar, sources and javadoc jars, POM and Gradle module metadata, tests)" "$here/java/build.sh" "$tmp/java"
check "java: the classes are Java 11 (class file 55) and the module metadata names each jar with its size and SHA-256" python3 - "$tmp/java" <<'PY'
import hashlib, json, pathlib, subprocess, sys
out = pathlib.Path(sys.argv[1])
module = json.loads(next(out.glob("pushseal-*.module")).read_text())
names = set()
for variant in module["variants"]:
    for f in variant["files"]:
        data = (out / f["name"]).read_bytes()
        assert f["size"] == len(data) and f["sha256"] == hashlib.sha256(data).hexdigest(), f["name"]
        names.add(f["name"])
assert {n.rsplit("-", 1)[-1] for n in names} >= {"sources.jar", "javadoc.jar"}, names
jar = next(p for p in out.glob("pushseal-*.jar") if not p.name.endswith(("-sources.jar", "-javadoc.jar")))
major = subprocess.run(["javap", "-v", "-cp", str(jar), "dev.pushseal.Receiver"], capture_output=True, text=True, check=True).stdout
assert "major version: 55" in major, "not Java 11 class files"
PY
jar="$tmp/java/pushseal-$(cat "$root/VERSION").jar"
cp "$tmp/examples/Example.java" "$tmp/run-java/"
check "java: javac --release 11 Example.java against the jar" javac --release 11 -cp "$jar" -d "$tmp/run-java" "$tmp/run-java/Example.java"
check "java: example opens pushseal's payload, pushseal opens its reply" round_trip java java -cp "$jar:." Example
cp "$tmp/examples/BundleExample.java" "$tmp/run-java/"
check "java: javac --release 11 BundleExample.java against the jar" javac --release 11 -cp "$jar" -d "$tmp/run-java" "$tmp/run-java/BundleExample.java"
check "java: bundle example installs a key bundle and opens pushseal's payload with it" bundle_example java java -cp "$jar:." BundleExample
check "java: VectorRunner" java -cp "$jar:$tmp/java/runner" dev.pushseal.VectorRunner "${vectors[@]}"
if command -v kotlinc >/dev/null; then
    mkdir -p "$tmp/run-kotlin"
    cp "$tmp/examples/Example.kt" "$tmp/examples/Primitives.kt" "$tmp/run-kotlin/"
    check "kotlin: kotlinc Example.kt and PORTING.md §3's Primitives.kt against the jar" bash -c "cd '$tmp/run-kotlin' && kotlinc -nowarn Example.kt Primitives.kt -cp '$jar' -d example.jar 2>&1 | grep -v 'warning: Options -Xverify'; test -f example.jar"
    check "kotlin: example opens pushseal's payload, pushseal opens its reply" round_trip kotlin kotlin -cp "$jar:example.jar" ExampleKt
    cp "$tmp/examples/BundleExample.kt" "$tmp/run-kotlin/"
    check "kotlin: kotlinc BundleExample.kt against the jar" bash -c "cd '$tmp/run-kotlin' && kotlinc -nowarn BundleExample.kt -cp '$jar' -d bundle-example.jar 2>&1 | grep -v 'warning: Options -Xverify'; test -f bundle-example.jar"
    check "kotlin: bundle example installs a key bundle and opens pushseal's payload with it" bundle_example kotlin kotlin -cp "$jar:bundle-example.jar" BundleExampleKt
else
    failed=$((failed + 1)); echo "FAIL kotlin: kotlinc is not installed (scripts/bootstrap.sh --ports installs Debian's kotlin)"
fi

echo "install: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
