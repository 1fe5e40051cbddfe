#!/usr/bin/env bash
# Installs what PushSeal needs and is missing: the C libraries (Debian packages) and, with
# --ports, the runtimes of the reference ports and the test servers' Python packages (the
# APNs/FCM emulator needs h2 and cryptography). Idempotent; safe to run on every invocation.
set -euo pipefail

want_ports=0
[[ "${1:-}" == "--ports" ]] && want_ports=1

missing=()
pkg-config --exists libsodium 2>/dev/null || missing+=(libsodium-dev)
pkg-config --exists sqlite3 2>/dev/null || missing+=(libsqlite3-dev)
# Delivery (PushSealDelivery, in pushseal-full): libcurl with HTTP/2, and libcrypto for the tokens.
pkg-config --exists libcurl 2>/dev/null || missing+=(libcurl4-openssl-dev)
pkg-config --exists libcrypto 2>/dev/null || missing+=(libssl-dev)
command -v pkg-config >/dev/null || missing+=(pkg-config)
# The key directory on PostgreSQL (PushSealKeyDirectoryPostgreSQL, in pushseal-full): libpq, and the server that
# scripts/with-postgres.sh starts as a throwaway cluster for the tests.
pkg-config --exists libpq 2>/dev/null || missing+=(libpq-dev)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
# The key-lifecycle model (Models/check.sh, run by scripts/ci-extra.sh): the Spin model checker, and the C
# compiler that builds its verifiers.
command -v spin >/dev/null || missing+=(spin)
command -v cc >/dev/null || missing+=(gcc)
# Static archives for the fully static release link of `pushseal` (Package.swift): glibc's
# libc.a and libstdc++.a (the Swift runtime needs it); the -dev packages above bring
# libsodium.a and libsqlite3.a.
if command -v dpkg-query >/dev/null; then
    dpkg-query -W -f='${Status}' libc6-dev 2>/dev/null | grep -q 'ok installed' || missing+=(libc6-dev)
    compgen -G '/usr/lib/gcc/*/*/libstdc++.a' >/dev/null || missing+=(libstdc++-12-dev)
fi
if (( want_ports )); then
    command -v node >/dev/null || missing+=(nodejs)
    command -v javac >/dev/null || missing+=(openjdk-17-jdk-headless)
    command -v python3 >/dev/null || missing+=(python3)
    python3 -m venv --help >/dev/null 2>&1 || missing+=(python3-venv)
    command -v npm >/dev/null || missing+=(npm)
    # Kotlin compiles the Kotlin example of Docs/PORTING.md against the Java library's jar.
    command -v kotlinc >/dev/null || missing+=(kotlin)
fi

if (( ${#missing[@]} )); then
    echo "bootstrap: installing ${missing[*]}" >&2
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Python packages: cryptography, regex and pytest (the ports), cryptography and h2 (the emulator),
# httpx (scripts/send-bench.py's reference client).
python_install() {
    local module="$1" package="$2" debian="$3"
    python3 -c "import $module" 2>/dev/null && return 0
    echo "bootstrap: installing the Python '$package' package" >&2
    python3 -m pip install --quiet "$package" 2>/dev/null \
        || python3 -m pip install --quiet --break-system-packages "$package" 2>/dev/null \
        || { command -v apt-get >/dev/null && apt-get install -y -qq "$debian" >/dev/null; }
}
if (( want_ports )); then
    python_install cryptography cryptography python3-cryptography
    python_install regex regex python3-regex
    python_install pytest pytest python3-pytest
    python_install h2 h2 python3-h2
    python_install httpx 'httpx[http2]' python3-httpx   # the send benchmark's reference client
fi
command -v swift >/dev/null || { echo "bootstrap: the Swift toolchain is not on PATH (see README.md)" >&2; exit 1; }
