#!/usr/bin/env bash
# Run the three PushSeal v1 packages (Python, Node, Java) against vector files, from the source tree.
#
#   Vectors/ports/run-all.sh [--install-missing] [VECTOR_FILE…]
#
# The files default to Vectors/pushseal-v1.json, pushseal-v1-provider.json, pushseal-v1-store.json,
# pushseal-v1-bundles.json and pushseal-v1-devices.json in this repository (receiver, provider,
# key-store, key bundle and device key vectors; each runner tells them apart by their schema) and
# RFC 9180's HPKE vectors (vendored in Vectors/external/rfc9180/). Java is
# built by java/build.sh (javac --release 11, the jars and metadata, its tests) into a temporary directory.
# --install-missing installs absent prerequisites (Debian's nodejs and openjdk-17-jdk-headless;
# the Python packages cryptography and regex with pip); without it a missing prerequisite is an
# error. Exit status is non-zero if any port fails, finds no cases, or cannot run. The last line
# is the total: "N passed, N failed".
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
install=0
files=()
for arg in "$@"; do
  case "$arg" in
    --install-missing) install=1 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run-all.sh: error: unknown option $arg" >&2; exit 64 ;;
    *) case "$arg" in /*) files+=("$arg") ;; *) files+=("$PWD/$arg") ;; esac ;;
  esac
done
if [ "${#files[@]}" -eq 0 ]; then
  hpke="$root/Vectors/external/rfc9180/rfc9180-x25519-sha256-chacha20poly1305.json"
  files=("$root/Vectors/pushseal-v1.json" "$root/Vectors/pushseal-v1-provider.json" "$root/Vectors/pushseal-v1-store.json" "$root/Vectors/pushseal-v1-bundles.json" "$root/Vectors/pushseal-v1-devices.json" "$hpke")
fi

if ! python3 -c 'import cryptography.hazmat.primitives.ciphers.aead, regex' >/dev/null 2>&1; then
  if [ "$install" = 1 ]; then
    python3 -m pip install --quiet cryptography regex >&2 || python3 -m pip install --quiet --break-system-packages cryptography regex >&2 \
      || { echo "run-all.sh: error: could not install the Python packages cryptography and regex" >&2; exit 1; }
  else
    echo "run-all.sh: error: the Python packages cryptography and regex are missing" >&2
    echo "hint: python3 -m pip install cryptography regex   (or run with --install-missing)" >&2
    exit 1
  fi
fi
missing=()
command -v node >/dev/null 2>&1 || missing+=(nodejs)
{ command -v javac >/dev/null 2>&1 && command -v java >/dev/null 2>&1; } || missing+=(openjdk-17-jdk-headless)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$install" = 1 ]; then
    echo "run-all.sh: installing ${missing[*]}" >&2
    sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >&2 \
      || { echo "run-all.sh: error: could not install ${missing[*]}" >&2; exit 1; }
  else
    echo "run-all.sh: error: missing prerequisites: ${missing[*]}" >&2
    echo "hint: apt-get install ${missing[*]}   (or run with --install-missing)" >&2
    exit 1
  fi
fi

for file in "${files[@]}"; do
  if [ ! -f "$file" ]; then
    echo "run-all.sh: error: vector file not found: $file" >&2
    exit 1
  fi
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
status=0
total_pass=0
total_fail=0

run_port() {  # name, command...
  local name="$1"; shift
  echo "== $name: $*"
  "$@" >"$tmp/$name.out" 2>&1
  local rc=$?
  cat "$tmp/$name.out"
  local line
  line="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$tmp/$name.out" | tail -n 1)"
  if [ -n "$line" ]; then
    total_pass=$((total_pass + ${line%% passed*}))
    local f="${line#*passed, }"; total_fail=$((total_fail + ${f%% failed}))
  else
    total_fail=$((total_fail + 1))
  fi
  if [ "$rc" -ne 0 ]; then
    echo "== $name: FAILED (exit $rc)"
    status=1
  fi
}

run_port python env PYTHONPATH="$here/python" python3 -m pushseal.vectors "${files[@]}"
run_port node node "$here/node/bin/pushseal-vectors.mjs" "${files[@]}"
if "$here/java/build.sh" "$tmp/java" >"$tmp/javac.out" 2>&1; then
  run_port java java -cp "$tmp/java/pushseal-$(cat "$root/VERSION").jar:$tmp/java/runner" dev.pushseal.VectorRunner "${files[@]}"
else
  cat "$tmp/javac.out"
  echo "== java: FAILED (build.sh)"
  status=1
  total_fail=$((total_fail + 1))
fi

echo "ports: $total_pass passed, $total_fail failed"
exit "$status"
