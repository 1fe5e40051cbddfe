#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL cluster: initdb in a fresh temporary directory as an
# unprivileged user (the `postgres` system user when this runs as root, else the caller), listening
# only on a unix socket inside that directory, password authentication (scram-sha-256) for the
# role `pushseal`. The command finds:
#
#   PUSHSEAL_TEST_POSTGRES_URI   postgresql://pushseal:<password>@/pushseal?host=<dir>
#   PUSHSEAL_TEST_POSTGRES_CTL   an executable that runs `pg_ctl -D <data> "$@"` as the cluster's
#                                user (the fault tests use `restart -m fast`)
#
# The cluster is stopped and its directory removed when the command ends, whatever its outcome
# (EXIT, INT and TERM). Exits with the command's status, or 1 when the cluster cannot start (the
# tests that need it then must not run: they fail, never skip).
#
#   scripts/with-postgres.sh swift test --skip-build --filter PostgreSQL
set -uo pipefail

bindir=""
for candidate in "$(command -v pg_config >/dev/null 2>&1 && pg_config --bindir)" /usr/lib/postgresql/*/bin; do
    [[ -n "$candidate" && -x "$candidate/initdb" && -x "$candidate/pg_ctl" ]] && { bindir=$candidate; break; }
done
if [[ -z "$bindir" ]]; then
    echo "with-postgres: error: initdb and pg_ctl not found" >&2
    echo "hint: install the 'postgresql' Debian package (scripts/bootstrap.sh does)" >&2
    exit 1
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/pushseal-postgres.XXXXXX")
chmod 0755 "$dir"
as_user=()
if [[ $(id -u) -eq 0 ]]; then
    if ! id postgres >/dev/null 2>&1; then
        useradd --system --no-create-home --shell /usr/sbin/nologin postgres 2>/dev/null
    fi
    chown postgres: "$dir"
    as_user=(runuser -u postgres --)
fi

password=$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')
stop() {
    "${as_user[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
    rm -rf "$dir"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

printf '%s\n' "$password" > "$dir/pwfile"
[[ ${#as_user[@]} -gt 0 ]] && chown postgres: "$dir/pwfile"
chmod 0600 "$dir/pwfile"
if ! "${as_user[@]}" "$bindir/initdb" -D "$dir/data" -U pushseal --pwfile="$dir/pwfile" --auth=scram-sha-256 \
        -E UTF8 --locale=C.UTF-8 > "$dir/initdb.log" 2>&1; then
    echo "with-postgres: error: initdb failed" >&2
    cat "$dir/initdb.log" >&2
    exit 1
fi
rm -f "$dir/pwfile"
cat >> "$dir/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$dir'
max_connections = 100
fsync = off
log_min_messages = warning
CONF
if ! "${as_user[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start >/dev/null 2>&1; then
    echo "with-postgres: error: the PostgreSQL server did not start" >&2
    cat "$dir/server.log" >&2
    exit 1
fi
if ! PGPASSWORD=$password "$bindir/psql" -h "$dir" -U pushseal -d postgres -qAt -c 'CREATE DATABASE pushseal' >/dev/null 2> "$dir/createdb.log"; then
    echo "with-postgres: error: cannot create the test database" >&2
    cat "$dir/createdb.log" >&2
    exit 1
fi

ctl="$dir/pg_ctl"
{
    echo '#!/usr/bin/env bash'
    # A server started from here must not inherit the caller's descriptors (a test process may
    # hold hundreds): PostgreSQL counts them against its limit and refuses to start.
    echo 'for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done 2>/dev/null'
    printf '%s %q -D %q -l %q "$@" && exit 0\n' "${as_user[*]}" "$bindir/pg_ctl" "$dir/data" "$dir/server.log"
    printf 'status=$?; echo "--- server log (tail)" >&2; tail -n 20 %q >&2; exit $status\n' "$dir/server.log"
} > "$ctl"
chmod 0755 "$ctl"

PUSHSEAL_TEST_POSTGRES_URI="postgresql://pushseal:$password@/pushseal?host=$dir" \
PUSHSEAL_TEST_POSTGRES_CTL="$ctl" \
    "$@"
