#!/usr/bin/env bash
# COIA's landing flow for visitors without accounts, on the running stack
# (scripts/stack.sh up --test-fixtures) with the built package (pkg/):
#   1. deno/edge/coia_landing_check.ts: the coia-landing edge function over HTTP with
#      visitors signed in anonymously through /auth/v1 (its own import map and README's
#      permissions);
#   2. landing.test.mjs: end to end in headless Chromium, a page using supabase-js's browser
#      build (anonymous sign-in, sign-up by updateUser) and the function served by Deno;
#   3. anonymous.test.mjs: README's is_anonymous checks (a restrictive policy, a trigger),
#      installed for the test by psql and removed after it. One file at a time: the trigger
#      is on agentmem's contractors table.
#
# Installs this folder's npm dependencies exactly as locked (npm ci) when node_modules is
# missing or older than package-lock.json.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
HERE="$ROOT/tests/visitors"
cd "$HERE"

stamp="$HERE/node_modules/.installed-lock"
if ! cmp -s package-lock.json "$stamp" 2>/dev/null; then
  log "npm ci (tests/visitors: @supabase/supabase-js)"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
(cd "$ROOT" && deno test --quiet --config supabase/functions/coia-landing/deno.json \
  --allow-read --allow-env --allow-net --allow-sys deno/edge/coia_landing_check.ts)
node --test --test-concurrency=1 landing.test.mjs anonymous.test.mjs
