#!/usr/bin/env bash
# Writes the Maven POM and the Gradle module metadata (format 1.1) of the jars build.sh made in
# OUTDIR, and lays the four files out as a local Maven repository:
#
#   Vectors/ports/java/tools/metadata.sh OUTDIR VERSION
#
# OUTDIR/pushseal-VERSION.{pom,module} and OUTDIR/repository/dev/pushseal/pushseal/VERSION/.
# A Gradle or Maven build uses it offline with `repositories { maven { url = uri("OUTDIR/repository") } }`
# and the coordinates dev.pushseal:pushseal:VERSION. Nothing is published.
set -euo pipefail
out="${1:?usage: metadata.sh OUTDIR VERSION}"
version="${2:?usage: metadata.sh OUTDIR VERSION}"
name="pushseal-$version"
for f in "$name.jar" "$name-sources.jar" "$name-javadoc.jar"; do
    [ -f "$out/$f" ] || { echo "metadata.sh: error: $out/$f is missing (run build.sh)" >&2; exit 1; }
done

cat > "$out/$name.pom" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <!-- do_not_remove: published-with-gradle-metadata -->
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.pushseal</groupId>
  <artifactId>pushseal</artifactId>
  <version>$version</version>
  <packaging>jar</packaging>
  <name>PushSeal</name>
  <description>PushSeal v1: open end-to-end encrypted push notification payloads and seal them with the provider's size policy (Java 11+, Android API 28+; key bundles Android API 33+). No dependencies.</description>
  <licenses>
    <license>
      <name>Apache-2.0</name>
      <url>https://www.apache.org/licenses/LICENSE-2.0.txt</url>
      <distribution>repo</distribution>
    </license>
  </licenses>
  <properties>
    <maven.compiler.release>11</maven.compiler.release>
  </properties>
</project>
POM

# One file entry of the module metadata: name, url, size and the four digests Gradle checks.
file_entry() {
    local f="$out/$1"
    printf '{ "name": "%s", "url": "%s", "size": %s, "sha512": "%s", "sha256": "%s", "sha1": "%s", "md5": "%s" }' \
        "$1" "$1" "$(wc -c < "$f" | tr -d ' ')" "$(sha512sum "$f" | cut -d' ' -f1)" "$(sha256sum "$f" | cut -d' ' -f1)" \
        "$(sha1sum "$f" | cut -d' ' -f1)" "$(md5sum "$f" | cut -d' ' -f1)"
}
library_variant() {  # name, usage
    printf '    {\n      "name": "%s",\n      "attributes": { "org.gradle.category": "library", "org.gradle.dependency.bundling": "external", "org.gradle.jvm.version": 11, "org.gradle.libraryelements": "jar", "org.gradle.usage": "%s" },\n      "files": [ %s ]\n    }' \
        "$1" "$2" "$(file_entry "$name.jar")"
}
docs_variant() {  # name, docstype, file
    printf '    {\n      "name": "%s",\n      "attributes": { "org.gradle.category": "documentation", "org.gradle.dependency.bundling": "external", "org.gradle.docstype": "%s", "org.gradle.usage": "java-runtime" },\n      "files": [ %s ]\n    }' \
        "$1" "$2" "$(file_entry "$3")"
}
{
    printf '{\n  "formatVersion": "1.1",\n'
    printf '  "component": { "group": "dev.pushseal", "module": "pushseal", "version": "%s", "attributes": { "org.gradle.status": "release" } },\n' "$version"
    printf '  "variants": [\n'
    library_variant apiElements java-api; printf ',\n'
    library_variant runtimeElements java-runtime; printf ',\n'
    docs_variant javadocElements javadoc "$name-javadoc.jar"; printf ',\n'
    docs_variant sourcesElements sources "$name-sources.jar"; printf '\n'
    printf '  ]\n}\n'
} > "$out/$name.module"

repo="$out/repository/dev/pushseal/pushseal/$version"
mkdir -p "$repo"
cp "$out/$name.jar" "$out/$name-sources.jar" "$out/$name-javadoc.jar" "$out/$name.pom" "$out/$name.module" "$repo/"
