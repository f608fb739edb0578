#!/usr/bin/env bash
# Runs a command the way a fresh machine would: in a fresh clone of this checkout's HEAD,
# with an empty scratch HOME, CARGO_HOME and cache, so every tool, crate, npm package and
# Python package comes from the scripts and the registries, as on a new machine. Only the
# Rust toolchain itself (RUSTUP_HOME) and the Debian packages are the machine's.
#   scripts/fresh-machine.sh ./scripts/example.sh
#   scripts/fresh-machine.sh ./scripts/test.sh
#   AGENTMEM_FRESH_KEEP=1 ...   keeps the scratch folder (printed) for a look afterwards
# To check that bootstrap.sh restores a missing component, remove it first, e.g.
#   rustup component remove rust-src --toolchain "$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -gt 0 ] || { echo "usage: scripts/fresh-machine.sh COMMAND [ARGS...]" >&2; exit 2; }
scratch=$(mktemp -d /tmp/agentmem-fresh.XXXXXX)
[ "${AGENTMEM_FRESH_KEEP:-}" = 1 ] || trap 'rm -rf "$scratch"' EXIT
echo "fresh-machine: scratch home $scratch" >&2
git clone --quiet "$ROOT" "$scratch/agentmem"
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
# rustup's proxies (cargo, rustc) stay on PATH; everything under HOME starts empty.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export HOME="$scratch/home" CARGO_HOME="$scratch/home/.cargo"
unset AGENTMEM_CACHE CARGO_TARGET_DIR
mkdir -p "$HOME"
cd "$scratch/agentmem"
"$@"
