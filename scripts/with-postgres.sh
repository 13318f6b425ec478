#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL server: installs Debian's `postgresql` with
# apt-get when `initdb` is missing, makes a cluster in a temporary directory owned by an
# unprivileged user (PostgreSQL refuses to run as root), starts it on a free port of
# 127.0.0.1, exports PODIUM_TEST_POSTGRES=postgres://podium@127.0.0.1:PORT/postgres (a
# superuser that may create databases; local connections are trusted), runs the command,
# then stops the server and removes the cluster.
# Usage: bash scripts/with-postgres.sh COMMAND [ARGS...]
set -euo pipefail

find_bin() {
  local name=$1 found
  if found=$(command -v "$name" 2>/dev/null); then echo "$found"; return 0; fi
  found=$(ls -1d /usr/lib/postgresql/*/bin/"$name" 2>/dev/null | sort -V | tail -n 1)
  [ -n "$found" ] && echo "$found"
}

if ! find_bin initdb >/dev/null; then
  echo "with-postgres: installing postgresql" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
initdb=$(find_bin initdb)
pg_ctl=$(find_bin pg_ctl)

tmp=$(mktemp -d -t podium-pg.XXXXXX)
run_as=()
if [ "$(id -u)" = 0 ]; then
  user=postgres
  if ! id "$user" >/dev/null 2>&1; then
    user=podium-pg
    id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
  fi
  chown "$user" "$tmp"
  chmod 700 "$tmp"
  run_as=(runuser -u "$user" --)
fi

stop() {
  "${run_as[@]}" "$pg_ctl" -D "$tmp/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap stop EXIT

"${run_as[@]}" "$initdb" -D "$tmp/data" -U podium --auth=trust -E UTF8 --no-locale >"$tmp/initdb.log" 2>&1 \
  || { cat "$tmp/initdb.log" >&2; exit 1; }

port=
for _ in $(seq 20); do
  candidate=$((20000 + RANDOM % 40000))
  # A port someone answers on is taken.
  if (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then continue; fi
  if "${run_as[@]}" "$pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w -t 60 \
      -o "-p $candidate -k $tmp -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null 2>&1; then
    port=$candidate
    break
  fi
done
if [ -z "$port" ]; then
  echo "with-postgres: the server did not start" >&2
  cat "$tmp/server.log" >&2 || true
  exit 1
fi

export PODIUM_TEST_POSTGRES="postgres://podium@127.0.0.1:$port/postgres"
echo "with-postgres: PostgreSQL $("$(find_bin postgres)" --version | awk '{print $3}') on 127.0.0.1:$port" >&2
"$@"
