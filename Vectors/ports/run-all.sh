#!/usr/bin/env bash
# Run the three independent PushSeal v1 ports (Python, Node, Java) against one vector file.
#
#   Vectors/ports/run-all.sh [--install-missing] [VECTOR_FILE]
#
# VECTOR_FILE defaults to Vectors/pushseal-v1.json in this repository. Java is compiled with plain
# javac into a temporary directory. --install-missing installs absent prerequisites from Debian
# packages (python3-cryptography, nodejs, openjdk-17-jdk-headless) with apt-get; without it a
# missing prerequisite is an error. Exit status is non-zero if any port fails, finds no cases,
# or cannot run. The last line is the total: "N passed, N failed".
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
install=0
file=""
for arg in "$@"; do
  case "$arg" in
    --install-missing) install=1 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run-all.sh: error: unknown option $arg" >&2; exit 64 ;;
    *) if [ -n "$file" ]; then echo "run-all.sh: error: expected one vector file" >&2; exit 64; fi; file="$arg" ;;
  esac
done
file="${file:-$root/Vectors/pushseal-v1.json}"
case "$file" in /*) ;; *) file="$PWD/$file" ;; esac

missing=()
python3 -c 'import cryptography.hazmat.primitives.ciphers.aead' >/dev/null 2>&1 || missing+=(python3-cryptography)
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

if [ ! -f "$file" ]; then
  echo "run-all.sh: error: vector file not found: $file" >&2
  exit 1
fi

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

run_port python python3 "$here/python/pushseal_port.py" "$file"
run_port node node "$here/node/pushseal_port.mjs" "$file"
if javac -d "$tmp/java" "$here/java/PushSealPort.java" >"$tmp/javac.out" 2>&1; then
  run_port java java -cp "$tmp/java" PushSealPort "$file"
else
  cat "$tmp/javac.out"
  echo "== java: FAILED (javac)"
  status=1
  total_fail=$((total_fail + 1))
fi

echo "ports: $total_pass passed, $total_fail failed"
exit "$status"
