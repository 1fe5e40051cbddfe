#!/usr/bin/env bash
# Builds the Java library and runs its tests.
#
#   Vectors/ports/java/build.sh OUTDIR
#
# 1. compiles src/ with `javac --release 8 -Xlint:all -Werror`: the library uses only Java 8 APIs,
#    all of which Android API 28 has (plus JCE ChaCha20-Poly1305, which Android provides from 28);
# 2. builds OUTDIR/pushseal-VERSION.jar (META-INF/LICENSE, Implementation-Version in the manifest);
# 3. compiles the vector runner and CLI (runner/) and the tests (test/) against the jar into
#    OUTDIR/runner and OUTDIR/test, and runs the tests (dev.pushseal.tests.PushSealTest, and
#    BundleTest: HPKE against RFC 9180 A.2 and key bundles, which need Java 11+ at run time).
# Exit status non-zero on any failure.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="${1:?usage: build.sh OUTDIR}"
version="$(cat "$root/VERSION")"
rm -rf "$out/classes" "$out/runner" "$out/test"
mkdir -p "$out/classes/META-INF" "$out/runner" "$out/test"
javac --release 8 -Xlint:all -Werror -encoding UTF-8 -d "$out/classes" $(find "$here/src" -name '*.java')
cp "$root/LICENSE" "$out/classes/META-INF/LICENSE"
printf 'Implementation-Title: pushseal\nImplementation-Version: %s\nAutomatic-Module-Name: dev.pushseal\n' "$version" > "$out/manifest.txt"
jar --create --file "$out/pushseal-$version.jar" --manifest "$out/manifest.txt" -C "$out/classes" .
jar="$out/pushseal-$version.jar"
javac --release 8 -Xlint:all -encoding UTF-8 -cp "$jar" -d "$out/runner" $(find "$here/runner" -name '*.java')
javac --release 8 -Xlint:all -encoding UTF-8 -cp "$jar:$out/runner" -d "$out/test" $(find "$here/test" -name '*.java')
echo "== java: $jar"
java -cp "$jar:$out/test" dev.pushseal.tests.PushSealTest
# HPKE and key bundles need X25519 (XDH: Java 11+ at run time). BundleTest also runs RFC 9180's
# vectors and Wycheproof's X25519 cases (both vendored in Vectors/external/), the key bundle vectors of this repository and its provider vectors (an
# unknown option member must fail its case).
java -Dpushseal.hpkeVectors="$root/Vectors/external/rfc9180/rfc9180-x25519-sha256-chacha20poly1305.json" -Dpushseal.bundleVectors="$root/Vectors/pushseal-v1-bundles.json" \
    -Dpushseal.providerVectors="$root/Vectors/pushseal-v1-provider.json" \
    -Dpushseal.x25519Vectors="$root/Vectors/external/wycheproof/x25519_test.json" \
    -cp "$jar:$out/runner:$out/test" dev.pushseal.tests.BundleTest
