# Sourced by every script: paths and the tool PATH. Nothing here installs anything.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Tools and build caches outside the checkout, so a fresh clone on the same machine
# reuses them; a fresh machine simply fills them on first run.
AGENTMEM_CACHE="${AGENTMEM_CACHE:-$HOME/.cache/agentmem}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$AGENTMEM_CACHE/target}"
CARGO_TOOLS="$AGENTMEM_CACHE/cargo-tools"
NPM_TOOLS="$ROOT/tools"
# binaryen's wasm-opt from npm must shadow any Debian wasm-opt (whose output Deno rejects).
export PATH="$NPM_TOOLS/node_modules/.bin:$CARGO_TOOLS/bin:$HOME/.cargo/bin:$PATH"
# Where scripts/build.sh writes the package (AGENTMEM_PKG: another folder, e.g. for the
# stable-route smoke test of scripts/test.sh).
PKG="${AGENTMEM_PKG:-$ROOT/pkg}"

# The exact wasm-bindgen version pinned in Cargo.toml ("=x.y.z").
wasm_bindgen_version() {
  sed -n 's/^wasm-bindgen = "=\([0-9.]*\)"/\1/p' "$ROOT/Cargo.toml"
}

# rust-toolchain.toml's exact channel, and the entries of one of its lists (components, targets).
toolchain_channel() {
  sed -n 's/^channel *= *"\(.*\)"/\1/p' "$ROOT/rust-toolchain.toml"
}
toolchain_list() {
  sed -n "s/^$1 *= *\[\(.*\)\].*/\1/p" "$ROOT/rust-toolchain.toml" | tr -d '",' | tr -s ' ' '\n' | sed '/^$/d'
}

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
