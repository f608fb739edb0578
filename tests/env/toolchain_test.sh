#!/usr/bin/env bash
# The environment assumptions of the build, checked after scripts/bootstrap.sh ran:
# rust-toolchain.toml names an exact release, that is the toolchain cargo runs here, and
# every component and target the file lists is installed for it (bootstrap.sh adds them
# from the same file; rustup would not, with RUSTUP_AUTO_INSTALL=0).
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
cd "$ROOT"
fail() { echo "toolchain_test: $*" >&2; exit 1; }

channel=$(toolchain_channel)
[[ "$channel" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "rust-toolchain.toml must pin an exact release (x.y.z), got \"$channel\""
active=$(rustc --version | awk '{print $2}')
[ "$active" = "$channel" ] || fail "rustc here is $active, rust-toolchain.toml pins $channel"
for manifest in Cargo.toml crates/*/Cargo.toml; do
  declared=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' "$manifest")
  [ -z "$declared" ] || [ "$declared" = "${channel%.*}" ] ||
    fail "$manifest: rust-version $declared is not the pinned toolchain's ${channel%.*} (the only one the build is tested with)"
done
[ -n "$(toolchain_list components)" ] && [ -n "$(toolchain_list targets)" ] || fail "could not read the components and targets of rust-toolchain.toml"
components=$(rustup component list --installed --toolchain "$channel")
for c in $(toolchain_list components); do
  grep -q "^$c\(-\|$\)" <<<"$components" || fail "component $c (rust-toolchain.toml) is not installed for $channel"
done
targets=$(rustup target list --installed --toolchain "$channel")
for t in $(toolchain_list targets); do
  grep -qx "$t" <<<"$targets" || fail "target $t (rust-toolchain.toml) is not installed for $channel"
done
# bootstrap.sh must take the lists from the file rather than name them itself.
grep -q 'toolchain_list components' scripts/bootstrap.sh && grep -q 'toolchain_list targets' scripts/bootstrap.sh ||
  fail "scripts/bootstrap.sh no longer reads the components and targets of rust-toolchain.toml"
echo "toolchain_test: $channel with $(toolchain_list components | tr '\n' ' ')and $(toolchain_list targets | tr '\n' ' ')installed, as rust-toolchain.toml says"
