#!/usr/bin/env bash
# Memory search at scale, at the bench size: one tenant of 60,000 memories (10 agents) among
# 200 tenants of 200, 20 queries per filter kind, statistics stale and fresh, a long-lived
# and a fresh session per query, recording off and on; plus the insert cost per 10,000
# memories and a bulk neighbour's effect on another user's searches. Writes
# bench/results/<date>-memory-scale.md (tests/stack/memory_scale_test.sh does the work; it
# also checks the search contract). Needs only Postgres: scripts/postgres.sh (started if
# needed).
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
out="$ROOT/bench/results/$(date -u +%F)-memory-scale.md"
report=$(mktemp)
AGENTMEM_SCALE=bench AGENTMEM_SCALE_REPORT="$report" "$ROOT/tests/stack/memory_scale_test.sh"
{
  echo "# Memory search at scale — $(date -u +%F) ($(git -C "$ROOT" rev-parse --short HEAD))"
  echo
  echo "\`bench/memory_scale.sh\`: Postgres $("$ROOT/scripts/postgres.sh" psql -X -At -c 'show server_version'), pgvector" \
       "$("$ROOT/scripts/postgres.sh" psql -X -At -c "select default_version from pg_available_extensions where name = 'vector'"), $(nproc) cores."
  echo "Times are server-side (inside the database, per call of search_agent_memories, k = 10); recall@10 against an exact scan."
  echo
  echo '```'
  cat "$report"
  echo '```'
} >"$out"
rm -f "$report"
log "wrote ${out#"$ROOT"/}"
