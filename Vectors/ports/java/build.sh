#!/usr/bin/env bash
# Builds the Java library, its Maven/Gradle metadata and its sources and javadoc jars, and runs its tests.
#
#   Vectors/ports/java/build.sh OUTDIR
#
# 1. checks that src/ uses only Java 8 APIs (`javac --release 8`, output discarded): the API
#    surface Android API 28 has; then compiles it with `javac --release 11 -Xlint:all -Werror`:
#    Java 11 is the true minimum runtime, as ChaCha20-Poly1305 entered the JDK in 11 (JEP 329;
#    Android has it from API 28; X25519 for key bundles: JDK 11, Android API 33);
# 2. builds OUTDIR/pushseal-VERSION.jar (META-INF/LICENSE, Implementation-Version in the manifest),
#    pushseal-VERSION-sources.jar and pushseal-VERSION-javadoc.jar, and next to them
#    pushseal-VERSION.pom and pushseal-VERSION.module (Gradle module metadata 1.1, with the
#    files' sizes and digests), laid out as a Maven repository in OUTDIR/repository
#    (dev/pushseal/pushseal/VERSION/): offline, nothing is published;
# 3. compiles the vector runner and CLI (runner/) and the tests (test/) against the jar into
#    OUTDIR/runner and OUTDIR/test, and runs the tests (dev.pushseal.tests.PushSealTest, and
#    BundleTest: HPKE against RFC 9180 A.2 and key bundles).
# Exit status non-zero on any failure.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
out="${1:?usage: build.sh OUTDIR}"
version="$(cat "$root/VERSION")"
rm -rf "$out/classes" "$out/api-check" "$out/javadoc" "$out/runner" "$out/test" "$out/repository"
mkdir -p "$out/classes/META-INF" "$out/api-check" "$out/runner" "$out/test"
sources=$(find "$here/src" -name '*.java')
javac --release 8 -Xlint:all,-options -Werror -encoding UTF-8 -d "$out/api-check" $sources
rm -rf "$out/api-check"
javac --release 11 -Xlint:all -Werror -encoding UTF-8 -d "$out/classes" $sources
cp "$root/LICENSE" "$out/classes/META-INF/LICENSE"
printf 'Implementation-Title: pushseal\nImplementation-Version: %s\nAutomatic-Module-Name: dev.pushseal\n' "$version" > "$out/manifest.txt"
name="pushseal-$version"
jar --create --file "$out/$name.jar" --manifest "$out/manifest.txt" -C "$out/classes" .
jar="$out/$name.jar"
jar --create --file "$out/$name-sources.jar" -C "$here/src" . -C "$out/classes" META-INF/LICENSE
javadoc --release 11 -quiet -encoding UTF-8 -Xdoclint:all,-missing -d "$out/javadoc" -sourcepath "$here/src" -subpackages dev.pushseal >/dev/null
cp "$root/LICENSE" "$out/javadoc/LICENSE"
jar --create --file "$out/$name-javadoc.jar" -C "$out/javadoc" .
"$here/tools/metadata.sh" "$out" "$version"
javac --release 11 -Xlint:all -encoding UTF-8 -cp "$jar" -d "$out/runner" $(find "$here/runner" -name '*.java')
javac --release 11 -Xlint:all -encoding UTF-8 -cp "$jar:$out/runner" -d "$out/test" $(find "$here/test" -name '*.java')
echo "== java: $jar"
java -cp "$jar:$out/test" dev.pushseal.tests.PushSealTest
# HPKE and key bundles need X25519 (XDH). BundleTest also runs RFC 9180's
# vectors and Wycheproof's X25519 cases (both vendored in Vectors/external/), the key bundle vectors of this repository and its provider vectors (an
# unknown option member must fail its case).
java -Dpushseal.hpkeVectors="$root/Vectors/external/rfc9180/rfc9180-x25519-sha256-chacha20poly1305.json" -Dpushseal.bundleVectors="$root/Vectors/pushseal-v1-bundles.json" \
    -Dpushseal.providerVectors="$root/Vectors/pushseal-v1-provider.json" \
    -Dpushseal.x25519Vectors="$root/Vectors/external/wycheproof/x25519_test.json" \
    -cp "$jar:$out/runner:$out/test" dev.pushseal.tests.BundleTest
