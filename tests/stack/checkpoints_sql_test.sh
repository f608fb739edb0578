#!/usr/bin/env bash
# The LangGraph checkpoint SQL (supabase/migrations/20261122000100_langgraph_checkpoints.sql
# on the tenancy of 20261121000100_tenancy.sql, with the opt-in files
# supabase/optional/langgraph_deal_scoped.sql and langgraph_postgres_saver.sql, which the
# test stack applies as migrations: scripts/migrate.sh --with-optional), checked the way
# PostgREST runs it: as authenticator, one transaction per call, `set local role` + the
# JWT claims (+ request.headers for x-agentmem-tenant).
#
# Runs against the stack of scripts/postgres.sh (AGENTMEM_PG_PORT / AGENTMEM_STACK_DIR,
# default: the main stack), applying migrations first (with the optional files); a stack
# it had to start is stopped again. Its data (fresh random users, thread ids under a
# unique prefix, an organization and deals of its own) is removed at exit.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

PG="$ROOT/scripts/postgres.sh"
ERR=$(mktemp)
was_running=0
"$PG" status >/dev/null 2>&1 && was_running=1

source "$(dirname "${BASH_SOURCE[0]}")/sql_lib.sh"
A=$(uuid)
B=$(uuid)
C=$(uuid)   # never a member of the deal's organization
E=$(uuid)   # a member who is deleted
V=$(uuid)   # a member whose role (viewer) only reads
P="ckpt-test-$(date +%s%N)-$$"
ORG=$(uuid)
DEAL_ID=$(uuid)

cleanup() {
  local rc=$?
  if "$PG" status >/dev/null 2>&1; then
    "$PG" psql -X -q -At >/dev/null 2>&1 <<EOF || true
delete from public.langgraph_checkpoint_writes where thread_key like '%$P%';
delete from public.langgraph_checkpoint_blobs where thread_key like '%$P%';
delete from public.langgraph_checkpoints where thread_key like '%$P%';
delete from public.organizations where id = '$ORG';
delete from auth.users where id in ('$A', '$B', '$C', '$E');
EOF
    if [ "$was_running" = 0 ]; then "$PG" stop >/dev/null 2>&1 || true; fi
  fi
  rm -f "$ERR"
  exit "$rc"
}
trap cleanup EXIT

API_ERR=$ERR
bad() {
  checks=$((checks + 1)); failed=$((failed + 1))
  printf '  FAIL %s\n' "$1" >&2
  if [ -s "$ERR" ]; then echo "--- psql stderr (tail)" >&2; tail -n 15 "$ERR" >&2; fi
}
# As the PostgREST login role, in one transaction, as `role` with the JWT claims of `sub`,
# exactly as PostgREST does it. Errors do not stop the script (:SQLSTATE is available);
# the transaction is rolled back unless the 4th argument is `commit`.
as_api() { # role, sub ('' for none), sql, [commit]
  local end=rollback
  [ "${4:-}" = commit ] && end=commit
  : >"$ERR"
  api "$end" "$1" "$2" "$3"
}
st() { # role, sub, statement, [commit]: its SQLSTATE
  as_api "$1" "$2" "\\o /dev/null
${3%;};
\\o
\\echo :SQLSTATE" "${4:-}"
}
b64() { printf '%s' "$1" | base64 -w0; }
# A Python expression over JSON on stdin: d = the document (one line), rows = every line
# parsed; c(x) / s(x) = compact JSON (s with sorted keys). Strings print as they are.
js() {
  python3 -c '
import json, sys
rows = [json.loads(line) for line in sys.stdin.read().splitlines() if line.strip()]
d = rows[0] if len(rows) == 1 else None
c = lambda x: json.dumps(x, separators=(",", ":"), ensure_ascii=False)
s = lambda x: json.dumps(x, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
r = eval(sys.argv[1])
print(r if isinstance(r, str) else c(r))' "$1"
}

# Checkpoints as LangGraph's saver sends them (channel_values present: put must drop it).
ckpt() { # id, channel_versions json, [v]
  printf '{"v":%s,"id":"%s","ts":"2026-11-22T00:00:00.000Z","channel_values":{"a":"dropped"},"channel_versions":%s,"versions_seen":{}}' \
    "${3:-4}" "$1" "$2"
}
put() { # thread, ns, id, parent (SQL literal), checkpoint json, metadata json, blobs json
  printf "select langgraph_put('%s', '%s', '%s', %s, 'json', '%s', '%s', '%s');" "$@"
}
put_writes() { # thread, ns, checkpoint id, task id, task path, writes json
  printf "select langgraph_put_writes('%s', '%s', '%s', '%s', '%s', '%s');" "$@"
}
quiet() { # a statement helper and its args: the statement with its output discarded
  local sql
  sql=$("$@")
  printf '%s \\g /dev/null' "${sql%;}"
}

log "checkpoint SQL test (port ${AGENTMEM_PG_PORT:-54329}, threads $P-*)"
out=$("$ROOT/scripts/migrate.sh" --with-optional 2>&1) || { echo "$out" >&2; bad "scripts/migrate.sh --with-optional"; exit 1; }
ok "scripts/migrate.sh --with-optional applies the migrations and the opt-in files"

# --- schema, privileges -------------------------------------------------------------------
RPCS="'langgraph_put', 'langgraph_put_writes', 'langgraph_get_tuple', 'langgraph_list', 'langgraph_delete_thread', 'cleanup_old_checkpoints', 'langgraph_checkpoint_metrics'"
TABLES="array['public.langgraph_checkpoints', 'public.langgraph_checkpoint_blobs', 'public.langgraph_checkpoint_writes']"
expect "RLS on the three tables" "true|true|true" "$(q -c "select string_agg(relrowsecurity::text, '|' order by relname) from pg_class where oid in ('public.langgraph_checkpoints'::regclass, 'public.langgraph_checkpoint_blobs'::regclass, 'public.langgraph_checkpoint_writes'::regclass)")"
expect "the reads are SECURITY INVOKER, the writes (the tables' one door) SECURITY DEFINER; all pin an empty search_path" \
  "langgraph_checkpoint_metrics,langgraph_get_tuple,langgraph_list|cleanup_old_checkpoints,langgraph_delete_thread,langgraph_put,langgraph_put_writes|7" \
  "$(q -c "select string_agg(proname, ',' order by proname) filter (where not prosecdef) || '|' || string_agg(proname, ',' order by proname) filter (where prosecdef) || '|' || count(*) filter (where proconfig @> array['search_path=\"\"']) from pg_proc where pronamespace = 'public'::regnamespace and proname in ($RPCS)")"
expect "langgraph_thread_owner (an existence oracle) is gone" "t" "$(q -c "select to_regproc('public.langgraph_thread_owner') is null")"
expect "anon may execute none of the functions" 0 "$(q -c "select count(*) from pg_proc where pronamespace in ('public'::regnamespace, 'agentmem'::regnamespace) and (proname like 'langgraph%' or proname in ('cleanup_old_checkpoints', 'extract_deal_id_from_thread') or proname like '%thread%' or proname like '%deal%') and (has_function_privilege('anon', oid, 'execute') or has_function_privilege('public', oid, 'execute'))")"
expect "anon has no privilege on the tables" "f" "$(q -c "select bool_or(has_table_privilege('anon', t, p)) from unnest($TABLES) t, unnest(array['select', 'insert', 'update', 'delete', 'truncate']) p")"
expect "authenticated: SELECT only (writes go through the RPCs), no TRUNCATE" "true|false" "$(q -c "select bool_and(has_table_privilege('authenticated', t, 'select')) || '|' || bool_or(has_table_privilege('authenticated', t, p)) from unnest($TABLES) t, unnest(array['insert', 'update', 'delete', 'truncate']) p")"
expect "authenticated and service_role may execute the RPCs" "t" "$(q -c "select bool_and(has_function_privilege(r, f, 'execute')) from unnest(array['authenticated', 'service_role']) r, unnest(array['public.langgraph_put(text,text,text,text,text,jsonb,jsonb,jsonb,jsonb)', 'public.langgraph_list_threads(text,jsonb,integer,integer)', 'public.langgraph_put_writes(text,text,text,text,text,jsonb)', 'public.langgraph_get_tuple(text,text,text)', 'public.langgraph_list(text,text,text,jsonb,text,integer)', 'public.langgraph_delete_thread(text)', 'public.cleanup_old_checkpoints(integer)', 'public.langgraph_checkpoint_metrics(text)']) f")"
expect "rows are keyed by (thread_key, ...); tenant_id and thread_id derived by a trigger on insert and every update" \
  "thread_key,checkpoint_ns,checkpoint_id|thread_key,checkpoint_ns,channel,version|thread_key,checkpoint_ns,checkpoint_id,task_id,idx|3" \
  "$(q -c "select string_agg((select string_agg(a.attname, ',' order by k.o) from unnest(c.conkey) with ordinality k(n, o) join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n), '|' order by c.conrelid::regclass::text <> 'langgraph_checkpoints', c.conrelid::regclass::text)
             from pg_constraint c where c.contype = 'p' and c.conrelid = any ($TABLES::regclass[])")|$(q -c "select count(*) from pg_trigger g where g.tgname = 'derive_thread' and g.tgrelid = any ($TABLES::regclass[])
             and g.tgtype & 2 = 2 and g.tgtype & 4 = 4 and g.tgtype & 16 = 16 and g.tgattr = ''")"
expect "the deal-scope option is installed (cim-… threads belong to the deal)" "t|t" \
  "$(q -c "select agentmem.thread_scope('cim-3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b-x') = agentmem.deal_tenant('3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b'), agentmem.thread_scope('$P-x') is null")"

q -c "insert into auth.users (id, email) values ('$A', 'a-$P@example.test'), ('$B', 'b-$P@example.test'), ('$C', 'c-$P@example.test'), ('$E', 'e-$P@example.test')" >/dev/null

# --- put -> get_tuple ------------------------------------------------------------------------
T1="$P-t1"
ID1=1f0c7a00-0000-6000-8000-000000000001
ID2=1f0c7a00-0000-6000-8000-000000000002
ID3=1f0c7a00-0000-6000-8000-000000000003
A1=$(b64 '"a-one"')
A2=$(python3 -c 'import base64; print(base64.b64encode(bytes(range(256)) * 2)[:400].decode())') # 300 raw bytes, > 76 base64 chars
B1=$(b64 '{"b":1}')
META1='{"source":"input","step":-1,"parents":{},"run":"r1"}'
META2='{"source":"loop","step":0,"parents":{},"run":"r1"}'

out=$(as_api authenticated "$A" "$(put "$T1" "" "$ID1" null "$(ckpt $ID1 '{"a":1,"b":1,"c":1}')" "$META1" "[{\"channel\":\"a\",\"version\":1,\"type\":\"json\",\"blob\":\"$A1\"},{\"channel\":\"b\",\"version\":\"1\",\"type\":\"json\",\"blob\":\"$B1\"},{\"channel\":\"c\",\"version\":\"1\",\"type\":\"empty\",\"blob\":null}]")" commit)
expect "put returns the next config" "{\"thread_id\": \"$T1\", \"checkpoint_id\": \"$ID1\", \"checkpoint_ns\": \"\"}" "$out"
# Second checkpoint: only channel a changed (new_versions = {a: 2}).
out=$(as_api authenticated "$A" "$(put "$T1" "" "$ID2" "'$ID1'" "$(ckpt $ID2 '{"a":2,"b":1,"c":1}')" "$META2" "[{\"channel\":\"a\",\"version\":2,\"type\":\"bytes\",\"blob\":\"$A2\"}]")" commit)
expect "put of a child checkpoint" "$ID2" "$(js 'd["checkpoint_id"]' <<<"$out")"

tuple=$(as_api authenticated "$A" "select langgraph_get_tuple('$T1');")
expect "get_tuple without id returns the latest" "$ID2|$ID1|json" "$(js '"|".join([d["checkpoint_id"], d["parent_checkpoint_id"], d["type"]])' <<<"$tuple")"
expect "get_tuple blobs: exactly the channel_versions' (a@2 new, b@1 and c@1 carried over)" \
  "[{\"channel\":\"a\",\"version\":\"2\",\"type\":\"bytes\",\"blob\":\"$A2\"},{\"channel\":\"b\",\"version\":\"1\",\"type\":\"json\",\"blob\":\"$B1\"},{\"channel\":\"c\",\"version\":\"1\",\"type\":\"empty\",\"blob\":null}]" \
  "$(js 'c([{k: b[k] for k in ("channel", "version", "type", "blob")} for b in d["blobs"]])' <<<"$tuple")"
expect "blobs cross as base64 without line breaks (300 bytes round-trip)" "$A2" "$(js 'd["blobs"][0]["blob"]' <<<"$tuple")"
expect "checkpoint stored without channel_values" "$(js 's({k: v for k, v in d.items() if k != "channel_values"})' <<<"$(ckpt $ID2 '{"a":2,"b":1,"c":1}')")" "$(js 's(d["checkpoint"])' <<<"$tuple")"
expect "metadata round-trips" "$(js 's(d)' <<<"$META2")" "$(js 's(d["metadata"])' <<<"$tuple")"
expect "tuple keys" "blobs,checkpoint,checkpoint_id,checkpoint_ns,metadata,parent_checkpoint_id,pending_sends,refs,thread_id,type,writes" "$(js '",".join(sorted(d))' <<<"$tuple")"
expect "no writes yet, no pending sends for v4" "[]|[]" "$(js 'c(d["writes"]) + "|" + c(d["pending_sends"])' <<<"$tuple")"
tuple1=$(as_api authenticated "$A" "select langgraph_get_tuple('$T1', '', '$ID1');")
expect "get_tuple by id: its own blob versions (a@1, b@1, c@1)" "a:1:$A1,b:1:$B1,c:1:None" "$(js '",".join("%s:%s:%s" % (b["channel"], b["version"], b["blob"]) for b in d["blobs"])' <<<"$tuple1")"
expect "get_tuple by id: no parent, its own metadata" "null|$(js 's(d)' <<<"$META1")" "$(js 'c(d["parent_checkpoint_id"])' <<<"$tuple1")|$(js 's(d["metadata"])' <<<"$tuple1")"
expect "get_tuple of an unknown id is null" "" "$(as_api authenticated "$A" "select langgraph_get_tuple('$T1', '', 'nope');")"
expect "get_tuple of an unknown thread is null" "" "$(as_api authenticated "$A" "select langgraph_get_tuple('$P-none');")"
expect "get_tuple in another namespace is null" "" "$(as_api authenticated "$A" "select langgraph_get_tuple('$T1', 'child');")"

# --- latest = greatest checkpoint_id, not the last written ---------------------------------
ID5=1f0c7a00-0000-6000-8000-000000000005
ID4=1f0c7a00-0000-6000-8000-000000000004
as_api authenticated "$A" "$(put "$T1" order "$ID5" null "$(ckpt $ID5 '{}')" '{"source":"loop","step":5}' '[]')
$(put "$T1" order "$ID4" null "$(ckpt $ID4 '{}')" '{"source":"loop","step":4}' '[]')" commit >/dev/null
expect "latest by checkpoint_id desc (written out of order)" "$ID5" "$(as_api authenticated "$A" "select langgraph_get_tuple('$T1', 'order') ->> 'checkpoint_id';")"
as_api authenticated "$A" "$(put "$T1" child "$ID3" null "$(ckpt $ID3 '{}')" '{"source":"update","step":1,"parents":{"":"'$ID2'"}}' '[]')" commit >/dev/null

# --- reads of a long thread touch a few pages -------------------------------------------------
# The planner's row estimate for one thread is an average. For a long thread in a table
# whose statistics predate its growth it can be a row or two, and a bitmap scan then reads
# and sorts the whole thread to return its newest row (seen: 9 ms and ≈240 pages at 3,000
# checkpoints, against 0.5 ms): get_tuple and list run with bitmap scans off.
expect "get_tuple and list run with bitmap scans off" "2" \
  "$(q -c "select count(*) from pg_proc where oid in ('public.langgraph_get_tuple'::regproc, 'public.langgraph_list'::regproc) and proconfig @> array['enable_bitmapscan=off']")"
q -c "insert into langgraph_checkpoints (thread_key, checkpoint_id, checkpoint, metadata)
      select '$A/$P-long', lpad(i::text, 8, '0'), jsonb_build_object('v', 4, 'id', lpad(i::text, 8, '0'), 'channel_versions', '{}'::jsonb, 'pad', repeat('x', 300)), '{}'
        from generate_series(1, 3000) i" >/dev/null
pages() { # sql (as A): the heap pages of langgraph_checkpoints it read
  as_api authenticated "$A" "select pg_stat_get_xact_blocks_fetched('public.langgraph_checkpoints'::regclass) as before \\gset
\\o /dev/null
$1;
\\o
select pg_stat_get_xact_blocks_fetched('public.langgraph_checkpoints'::regclass) - :before;"
}
expect "the newest of 3,000 checkpoints is found" "00003000" "$(as_api authenticated "$A" "select langgraph_get_tuple('$P-long') ->> 'checkpoint_id';")"
got=$(pages "select langgraph_get_tuple('$P-long')")
if [ -n "$got" ] && [ "$got" -lt 30 ]; then ok "get_tuple of a 3,000-checkpoint thread reads a few pages ($got)"; else bad "get_tuple of a 3,000-checkpoint thread reads a few pages: $got"; fi
got=$(pages "select * from langgraph_list('$P-long', p_limit => 10)")
if [ -n "$got" ] && [ "$got" -lt 40 ]; then ok "list(limit 10) of a 3,000-checkpoint thread reads a few pages ($got)"; else bad "list(limit 10) of a 3,000-checkpoint thread reads a few pages: $got"; fi

# --- put is idempotent ----------------------------------------------------------------------
before=$(q -c "select (select count(*) from langgraph_checkpoints where thread_key = '$A/$T1') || '|' || (select count(*) from langgraph_checkpoint_blobs where thread_key = '$A/$T1')")
as_api authenticated "$A" "$(put "$T1" "" "$ID2" "'$ID1'" "$(ckpt $ID2 '{"a":2,"b":1,"c":1}')" "$META2" "[{\"channel\":\"a\",\"version\":2,\"type\":\"bytes\",\"blob\":\"$A2\"}]")
$(put "$T1" "" "$ID2" "'$ID1'" "$(ckpt $ID2 '{"a":2,"b":1,"c":1}')" "$META2" "[{\"channel\":\"a\",\"version\":2,\"type\":\"bytes\",\"blob\":\"$A2\"}]")" commit >/dev/null
expect "put twice with the same args: same rows (one checkpoint)" "$before" "$(q -c "select (select count(*) from langgraph_checkpoints where thread_key = '$A/$T1') || '|' || (select count(*) from langgraph_checkpoint_blobs where thread_key = '$A/$T1')")"
expect "exactly one row for the re-put checkpoint" 1 "$(q -c "select count(*) from langgraph_checkpoints where thread_key = '$A/$T1' and checkpoint_id = '$ID2'")"
expect "invalid input is 22023 (checkpoint not an object)" 22023 "$(as_api authenticated "$A" "select langgraph_put('$T1', '', 'x', null, null, '[]', '{}', '[]');
\\echo :SQLSTATE")"
expect "invalid input is 22023 (blob without channel)" 22023 "$(as_api authenticated "$A" "select langgraph_put('$T1', '', 'x', null, null, '{}', '{}', '[{\"version\":\"1\",\"type\":\"json\",\"blob\":null}]');
\\echo :SQLSTATE")"
expect "invalid base64 is 22023" 22023 "$(as_api authenticated "$A" "select langgraph_put('$T1', '', 'x', null, null, '{}', '{}', '[{\"channel\":\"z\",\"version\":\"1\",\"type\":\"json\",\"blob\":\"!!!\"}]');
\\echo :SQLSTATE")"

# --- list -----------------------------------------------------------------------------------
ids() { js '",".join(r["checkpoint_ns"] + ":" + r["checkpoint_id"][-1:] for r in rows)'; }
expect "list(thread): all namespaces, checkpoint_id desc" "order:5,order:4,child:3,:2,:1" \
  "$(as_api authenticated "$A" "select * from langgraph_list('$T1');" | ids)"
expect "list(thread, ns '')" ":2,:1" "$(as_api authenticated "$A" "select * from langgraph_list('$T1', '');" | ids)"
expect "list filter {source: loop}" "order:5,order:4,:2" "$(as_api authenticated "$A" "select * from langgraph_list('$T1', p_filter => '{\"source\":\"loop\"}');" | ids)"
expect "list filter {source: loop, step: 4}" "order:4" "$(as_api authenticated "$A" "select * from langgraph_list('$T1', p_filter => '{\"source\":\"loop\",\"step\":4}');" | ids)"
expect "list filter nested {parents: {'': id2}}" "child:3" "$(as_api authenticated "$A" "select * from langgraph_list('$T1', p_filter => '{\"parents\":{\"\":\"$ID2\"}}');" | ids)"
expect "list filter {} = no filter" 5 "$(as_api authenticated "$A" "select count(*) from langgraph_list('$T1', p_filter => '{}');")"
expect "list before" "child:3,:2,:1" "$(as_api authenticated "$A" "select * from langgraph_list('$T1', p_before => '$ID4');" | ids)"
expect "list before + ns + limit" ":2" "$(as_api authenticated "$A" "select * from langgraph_list('$T1', '', p_before => '$ID3', p_limit => 1);" | ids)"
expect "list limit" "order:5,order:4" "$(as_api authenticated "$A" "select * from langgraph_list('$T1', p_limit => 2);" | ids)"
expect "list limit 0" 0 "$(as_api authenticated "$A" "select count(*) from langgraph_list('$T1', p_limit => 0);")"
expect "list by checkpoint_id" ":1" "$(as_api authenticated "$A" "select * from langgraph_list('$T1', p_checkpoint_id => '$ID1');" | ids)"
expect "list negative limit is 22023" 22023 "$(as_api authenticated "$A" "select * from langgraph_list('$T1', p_limit => -1);
\\echo :SQLSTATE")"
expect "list rows have the get_tuple shape" "$(js 'c(d)' <<<"$tuple")" "$(as_api authenticated "$A" "select * from langgraph_list('$T1', '', p_limit => 1);" | js 'c(d)')"

# --- values as text, and each value once per list answer -----------------------------------
TT="$P-text"
as_api authenticated "$A" "$(put "$TT" "" c1 null "$(ckpt c1 '{"a":1,"b":1}')" '{}' '[{"channel":"a","version":"1","type":"json","text":"\"é€\""},{"channel":"b","version":"1","type":"bytes","blob":"AP8="}]')
$(put "$TT" "" c2 "'c1'" "$(ckpt c2 '{"a":1,"b":2}')" '{}' '[{"channel":"b","version":"2","type":"bytes","blob":"AQI="}]')
$(put "$TT" "" c3 "'c2'" "$(ckpt c3 '{"a":1,"b":2}')" '{}' '[]')" commit >/dev/null
expect "a value sent as text is stored as its UTF-8 bytes and comes back as text; bytes as base64" \
  '"é€"|22c3a9e282ac22|true|AP8=|false' \
  "$(as_api authenticated "$A" "select (langgraph_get_tuple('$TT', '', 'c1') -> 'blobs' -> 0 ->> 'text') || '|' || (select encode(blob, 'hex') || '|' || utf8 from langgraph_checkpoint_blobs where thread_key = '$A/$TT' and channel = 'a') || '|' || (langgraph_get_tuple('$TT', '', 'c1') -> 'blobs' -> 1 ->> 'blob') || '|' || (select utf8 from langgraph_checkpoint_blobs where thread_key = '$A/$TT' and channel = 'b' and version = '1');")"
carry() { js '"|".join(r["checkpoint_id"] + ":" + ",".join(b["channel"] + "@" + b["version"] for b in r["blobs"]) + ";" + ",".join(x["channel"] + "@" + x["version"] for x in r["refs"]) for r in rows)'; }
expect "list sends each value once per answer: the newest row that needs it carries it, later rows refer to it" \
  "c3:a@1,b@2;|c2:;a@1,b@2|c1:b@1;a@1" "$(as_api authenticated "$A" "select * from langgraph_list('$TT');" | carry)"
expect "... every row on its own (get_tuple) carries all its values" "c2:a@1,b@2;" "$(as_api authenticated "$A" "select langgraph_get_tuple('$TT', '', 'c2');" | carry)"
expect "... a page of the answer (PostgREST's offset) refers to values of earlier pages" "c1:b@1;a@1" \
  "$(as_api authenticated "$A" "select * from langgraph_list('$TT') offset 2;" | carry)"
expect "... across threads, equal versions of different threads are different values" "2|0" \
  "$(as_api authenticated "$A" "$(put "$TT-2" "" c9 null "$(ckpt c9 '{"a":1}')" '{}' '[{"channel":"a","version":"1","type":"json","text":"2"}]')" commit >/dev/null
     as_api authenticated "$A" "select count(*) filter (where r ->> 'thread_id' in ('$TT', '$TT-2') and jsonb_array_length(r -> 'blobs') > 0 and r ->> 'checkpoint_id' in ('c3', 'c9')) || '|' || count(*) filter (where r ->> 'checkpoint_id' = 'c9' and jsonb_array_length(r -> 'refs') > 0) from langgraph_list() r;")"
expect "a blob with both blob and text is 22023" 22023 "$(as_api authenticated "$A" "select langgraph_put('$TT', '', 'x', null, null, '{}', '{}', '[{\"channel\":\"z\",\"version\":\"1\",\"type\":\"json\",\"blob\":\"MQ==\",\"text\":\"1\"}]');
\\echo :SQLSTATE")"
expect "put_writes: text values stored as text and sent back as text; neither blob nor text is 22023" '"w"|22023' \
  "$(as_api authenticated "$A" "select langgraph_put_writes('$TT', '', 'c3', 'tt', '', '[{\"channel\":\"x\",\"type\":\"json\",\"text\":\"\\\"w\\\"\"}]');" commit >/dev/null
     as_api authenticated "$A" "select langgraph_get_tuple('$TT', '', 'c3') -> 'writes' -> 0 ->> 3;")|$(as_api authenticated "$A" "select langgraph_put_writes('$TT', '', 'c3', 'tt', '', '[{\"channel\":\"x\",\"type\":\"json\"}]');
\\echo :SQLSTATE" | tail -n 1)"

# --- put_writes -----------------------------------------------------------------------------
W1=$(b64 '"w1"'); W2=$(b64 '"w2"'); E1=$(b64 '"err1"'); E2=$(b64 '"err2"')
expect "put_writes (normal channels) inserts" 2 "$(as_api authenticated "$A" "$(put_writes "$T1" "" "$ID2" task-b "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$W1\"},{\"idx\":1,\"channel\":\"y\",\"type\":\"json\",\"blob\":\"$W1\"}]")" commit)"
expect "put_writes again (normal), the same values (a retry): insert-once, nothing changes" 0 "$(as_api authenticated "$A" "$(put_writes "$T1" "" "$ID2" task-b "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$W1\"},{\"idx\":1,\"channel\":\"y\",\"type\":\"json\",\"blob\":\"$W1\"}]")" commit)"
expect "put_writes again (normal), other values: 23505, never a silent keep-the-first" 23505 "$(st authenticated "$A" "$(put_writes "$T1" "" "$ID2" task-b "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$W2\"},{\"idx\":1,\"channel\":\"y\",\"type\":\"json\",\"blob\":\"$W2\"}]")" commit)"
expect "normal write kept its first value" "$W1" "$(as_api authenticated "$A" "select w ->> 4 from jsonb_array_elements(langgraph_get_tuple('$T1') -> 'writes') w where w ->> 1 = 'x';")"
expect "put_writes (special channel) upserts" "1|1" "$(as_api authenticated "$A" "$(put_writes "$T1" "" "$ID2" task-b "" "[{\"idx\":-1,\"channel\":\"__error__\",\"type\":\"json\",\"blob\":\"$E1\"}]")
$(put_writes "$T1" "" "$ID2" task-b "" "[{\"idx\":-1,\"channel\":\"__error__\",\"type\":\"json\",\"blob\":\"$E2\"}]")" commit | paste -sd'|')"
expect "special write holds the last value" "$E2|1" "$(as_api authenticated "$A" "select string_agg(w ->> 4, ',') || '|' || count(*) from jsonb_array_elements(langgraph_get_tuple('$T1') -> 'writes') w where w ->> 1 = '__error__';")"
expect "mixed special + normal: insert-once for all" "2|0" "$(as_api authenticated "$A" "$(put_writes "$T1" "" "$ID2" task-c "" "[{\"idx\":-3,\"channel\":\"__interrupt__\",\"type\":\"json\",\"blob\":\"$W1\"},{\"idx\":0,\"channel\":\"z\",\"type\":\"json\",\"blob\":\"$W1\"}]")
$(put_writes "$T1" "" "$ID2" task-c "" "[{\"idx\":-3,\"channel\":\"__interrupt__\",\"type\":\"json\",\"blob\":\"$W1\"},{\"idx\":0,\"channel\":\"z\",\"type\":\"json\",\"blob\":\"$W1\"}]")" commit | paste -sd'|')"
expect "idx defaults: WRITES_IDX_MAP for special channels, position otherwise" "-4|-2" "$(as_api authenticated "$A" "$(quiet put_writes "$T1" "" "$ID2" task-d "" "[{\"channel\":\"__resume__\",\"type\":\"json\",\"blob\":\"$W1\"},{\"channel\":\"__scheduled__\",\"type\":\"json\",\"blob\":\"$W1\"}]")
select string_agg(idx::text, '|' order by idx) from langgraph_checkpoint_writes where thread_key = '$A/$T1' and task_id = 'task-d';" commit)"
# Ordering by (task_path, task_id, idx), by code point: 'B' < 'a'; task_path first.
as_api authenticated "$A" "$(put_writes "$T1" "" "$ID2" a "~1" "[{\"idx\":0,\"channel\":\"o\",\"type\":\"json\",\"blob\":\"$W1\"}]")
$(put_writes "$T1" "" "$ID2" B "~1" "[{\"idx\":1,\"channel\":\"o1\",\"type\":\"json\",\"blob\":\"$W1\"},{\"idx\":0,\"channel\":\"o0\",\"type\":\"json\",\"blob\":\"$W1\"}]")
$(put_writes "$T1" "" "$ID2" zz "" "[{\"idx\":0,\"channel\":\"o\",\"type\":\"json\",\"blob\":\"$W1\"}]")" commit >/dev/null
# (Each write names its task path, task and channel: task_path '' before '~1', then 'B' before 'a', then idx.)
expect "writes ordered by task_path, task_id, idx (code points)" \
  ":task-b:__error__,:task-b:x,:task-b:y,:task-c:__interrupt__,:task-c:z,:task-d:__resume__,:task-d:__scheduled__,:zz:o,~1:B:o0,~1:B:o1,~1:a:o" \
  "$(as_api authenticated "$A" "select langgraph_get_tuple('$T1');" | js '",".join("%s:%s:%s" % (w[5], w[0], w[1]) for w in d["writes"])')"
expect "a write is [task_id, channel, type, text, blob, task_path]" "6|task-b|__error__|json|None|$E2|" \
  "$(as_api authenticated "$A" "select langgraph_get_tuple('$T1');" | js '"|".join(str(x) for x in [len(d["writes"][0])] + d["writes"][0])')"
expect "put_writes without checkpoint id is 22023" 22023 "$(as_api authenticated "$A" "select langgraph_put_writes('$T1', '', null, 't', '', '[]');
\\echo :SQLSTATE")"
expect "put_writes of nothing" 0 "$(as_api authenticated "$A" "$(put_writes "$T1" "" "$ID2" task-e "" "[]")")"

# --- pending sends (checkpoint format v < 4) -------------------------------------------------
T2="$P-t2"
S1=$(b64 '{"node":"n1"}'); S2=$(b64 '{"node":"n2"}'); S3=$(b64 '{"node":"n3"}')
as_api authenticated "$A" "$(put "$T2" "" "$ID1" null "$(ckpt $ID1 '{}' 3)" '{}' '[]')
$(put_writes "$T2" "" "$ID1" tb "" "[{\"idx\":0,\"channel\":\"__pregel_tasks\",\"type\":\"json\",\"blob\":\"$S3\"}]")
$(put_writes "$T2" "" "$ID1" ta "" "[{\"idx\":0,\"channel\":\"__pregel_tasks\",\"type\":\"json\",\"blob\":\"$S1\"},{\"idx\":1,\"channel\":\"__pregel_tasks\",\"type\":\"json\",\"blob\":\"$S2\"},{\"idx\":2,\"channel\":\"other\",\"type\":\"json\",\"blob\":\"$S2\"}]")
$(put "$T2" "" "$ID2" "'$ID1'" "$(ckpt $ID2 '{}' 3)" '{}' '[]')
$(put "$T2" "" "$ID3" "'$ID2'" "$(ckpt $ID3 '{}' 4)" '{}' '[]')" commit >/dev/null
expect "v3 child: parent's __pregel_tasks writes as pending_sends, ordered" "json:$S1,json:$S2,json:$S3" \
  "$(as_api authenticated "$A" "select langgraph_get_tuple('$T2', '', '$ID2');" | js '",".join("%s:%s" % (p["type"], p["blob"]) for p in d["pending_sends"])')"
expect "v3 root (no parent): no pending_sends" 0 "$(as_api authenticated "$A" "select jsonb_array_length(langgraph_get_tuple('$T2', '', '$ID1') -> 'pending_sends');")"
expect "v4 checkpoint: no pending_sends" 0 "$(as_api authenticated "$A" "select jsonb_array_length(langgraph_get_tuple('$T2') -> 'pending_sends');")"
expect "list carries pending_sends too" "0,3,0" "$(as_api authenticated "$A" "select jsonb_array_length(t -> 'pending_sends') from langgraph_list('$T2') t;" | paste -sd,)"

# --- delete_thread ---------------------------------------------------------------------------
n=$(q -c "select (select count(*) from langgraph_checkpoints where thread_key = '$A/$T2') + (select count(*) from langgraph_checkpoint_blobs where thread_key = '$A/$T2') + (select count(*) from langgraph_checkpoint_writes where thread_key = '$A/$T2')")
expect "delete_thread returns the rows deleted" "$n" "$(as_api authenticated "$A" "select langgraph_delete_thread('$T2');" commit)"
expect "deleted thread is gone" "0|" "$(as_api authenticated "$A" "select count(*) || '|' || coalesce(langgraph_get_tuple('$T2')::text, '') from langgraph_list('$T2');")"
expect "delete_thread of a missing thread" 0 "$(as_api authenticated "$A" "select langgraph_delete_thread('$T2');")"

# --- tenancy: thread ids are private to their tenant ------------------------------------------
expect "A's rows are keyed '<A>/<thread id>'; tenant_id and thread_id derived from the key" "$A/$T1|$A|$T1" \
  "$(q -c "select distinct thread_key || '|' || tenant_id || '|' || thread_id from langgraph_checkpoints where thread_key = '$A/$T1'")"
expect "... in all three tables" "t" \
  "$(q -c "select bool_and(tenant_id = '$A' and thread_id = '$T1') from (select tenant_id, thread_id from langgraph_checkpoint_blobs where thread_key = '$A/$T1' union all select tenant_id, thread_id from langgraph_checkpoint_writes where thread_key = '$A/$T1') x")"
rows_t1() { q -c "select (select count(*) from langgraph_checkpoints where thread_key = '$A/$T1') || '|' || (select count(*) from langgraph_checkpoint_blobs where thread_key = '$A/$T1') || '|' || (select count(*) from langgraph_checkpoint_writes where thread_key = '$A/$T1') || '|' || (select md5(string_agg(metadata::text, ',' order by checkpoint_id)) from langgraph_checkpoints where thread_key = '$A/$T1')"; }
t1_before=$(rows_t1)

# No oracle: everything B can do with A's thread id is answered exactly as for an id nobody
# ever used (each call in its own rolled-back transaction; the id itself normalized).
TU="$P-never-used"
probe() { # sub, thread id: one line per call, "SQLSTATE|result"
  local t=$2 stmt
  for stmt in "select langgraph_get_tuple('$t')" "select langgraph_get_tuple('$t', '', '$ID2')" \
    "select count(*) from langgraph_list('$t')" "select count(*) from langgraph_list() x where x ->> 'thread_id' = '$t'" \
    "$(put "$t" "" "$ID2" null "$(ckpt $ID2 '{"a":2}')" '{"probe":1}' '[{"channel":"a","version":"2","type":"json","blob":null}]')" \
    "$(put_writes "$t" "" "$ID2" task-b "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$(b64 x)\"}]")" \
    "$(put_writes "$t" "" "$ID2" task-b "" "[{\"idx\":-1,\"channel\":\"__error__\",\"type\":\"json\",\"blob\":\"$(b64 x)\"}]")" \
    "select langgraph_delete_thread('$t')" "select langgraph_checkpoint_metrics('$t') - 'last_checkpoint_at'" \
    "select langgraph_checkpoint_metrics('$t') ->> 'last_checkpoint_at'" "select count(*) from langgraph_checkpoints where thread_id = '$t'" \
    "select count(*) from langgraph_checkpoint_blobs where thread_id = '$t'" "select count(*) from langgraph_checkpoint_writes where thread_id = '$t'"; do
    as_api authenticated "$1" "${stmt%;};
\\echo :SQLSTATE" | paste -sd'|'
  done | sed "s|$t|<thread>|g"
}
probe_a=$(probe "$B" "$T1")
probe_u=$(probe "$B" "$TU")
expect "no oracle: B's 13 calls on A's thread id are answered exactly like an unused id (get_tuple, list, put, put_writes, delete_thread, metrics, table reads)" "$probe_u" "$probe_a"
expect "... and those answers are: nothing there (null, 0 rows, zero metrics), writes succeed" \
  "|00000||00000|0|00000|0|00000|{\"thread_id\": \"<thread>\", \"checkpoint_id\": \"$ID2\", \"checkpoint_ns\": \"\"}|00000|1|00000|1|00000|0|00000|{\"blob_bytes\": 0, \"blob_count\": 0, \"total_bytes\": 0, \"write_bytes\": 0, \"write_count\": 0, \"thread_count\": 0, \"checkpoint_bytes\": 0, \"checkpoint_count\": 0}|00000||00000|0|00000|0|00000|0|00000" \
  "$(paste -sd'|' <<<"$probe_a")"
expect "A's rows intact after B's probes" "$t1_before" "$(rows_t1)"

# Squatting: whoever uses an id first does not own it for anyone else.
TQ="$P-squat"
as_api authenticated "$B" "$(put "$TQ" "" "$ID1" null "$(ckpt $ID1 '{"a":1}')" '{"by":"B"}' "[{\"channel\":\"a\",\"version\":\"1\",\"type\":\"json\",\"blob\":\"$(b64 '"b"')\"}]")" commit >/dev/null
expect "squatting: B writes thread T first, then A writes T: A succeeds" "00000" \
  "$(st authenticated "$A" "$(put "$TQ" "" "$ID2" null "$(ckpt $ID2 '{"a":1}')" '{"by":"A"}' "[{\"channel\":\"a\",\"version\":\"1\",\"type\":\"json\",\"blob\":\"$(b64 '"a"')\"}]")" commit)"
expect "... two independent threads: each reads only its own checkpoint and blob" "$ID2|A|\"a\"|1;$ID1|B|\"b\"|1" \
  "$(for u in "$A" "$B"; do as_api authenticated "$u" "select langgraph_get_tuple('$TQ');" | js '"|".join([d["checkpoint_id"], d["metadata"]["by"], __import__("base64").b64decode(d["blobs"][0]["blob"]).decode(), str(len(d["blobs"]))])'; done | paste -sd';')"
expect "... keyed '<A>/T' and '<B>/T'" "$A/$TQ,$B/$TQ" \
  "$(q -c "select string_agg(thread_key, ',' order by thread_key = '$B/$TQ') from langgraph_checkpoints where thread_key in ('$A/$TQ', '$B/$TQ')")"
expect "... B's put_writes and delete_thread touch only B's thread (checkpoint, blob, write)" "1|3|1" \
  "$(as_api authenticated "$B" "$(put_writes "$TQ" "" "$ID1" t "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$(b64 x)\"}]")" commit)|$(as_api authenticated "$B" "select langgraph_delete_thread('$TQ');" commit)|$(as_api authenticated "$A" "select count(*) from langgraph_list('$TQ');")"
expect "B writing into A's existing thread id makes B's own thread; A's rows intact" "00000|$t1_before" \
  "$(st authenticated "$B" "$(put "$T1" "" "$ID4" null "$(ckpt $ID4 '{}')" '{"by":"B"}' '[]')" commit)|$(rows_t1)"
expect "... B reads B's, A reads A's" "$ID4|$ID2" \
  "$(as_api authenticated "$B" "select langgraph_get_tuple('$T1') ->> 'checkpoint_id';")|$(as_api authenticated "$A" "select langgraph_get_tuple('$T1', '') ->> 'checkpoint_id';")"
expect "... and B's delete_thread deletes B's one checkpoint only" "1|$t1_before" \
  "$(as_api authenticated "$B" "select langgraph_delete_thread('$T1');" commit)|$(rows_t1)"

# Two users racing to create the same new thread: independent, neither waits for the other.
TR="$P-race"
as_api authenticated "$A" "$(quiet put "$TR" "" "$ID1" null "$(ckpt $ID1 '{}')" '{}' '[]')
select pg_sleep(3);" commit >/dev/null &
race=$!
sleep 0.5
t0=$(date +%s%N)
race_state=$(st authenticated "$B" "$(put "$TR" "" "$ID1" null "$(ckpt $ID1 '{}')" '{}' '[]')" commit)
race_ms=$((($(date +%s%N) - t0) / 1000000))
wait "$race"
expect "race for a new thread id: the second writer succeeds without waiting for the first's commit" "00000|true" \
  "$race_state|$([ "$race_ms" -lt 2000 ] && echo true || echo "false ($race_ms ms)")"
expect "race: one thread each" "$A/$TR,$B/$TR" \
  "$(q -c "select string_agg(thread_key, ',' order by thread_key = '$B/$TR') from langgraph_checkpoints where thread_key in ('$A/$TR', '$B/$TR')")"

# Direct table access (PostgREST /langgraph_checkpoints...) by B: the tables have one door,
# the RPCs; no signed-in user writes them, own rows included.
expect "B: direct UPDATE and DELETE of A's rows: 42501 (no write privilege)" "42501|42501" \
  "$(st authenticated "$B" "update langgraph_checkpoints set metadata = '{}' where thread_key = '$A/$T1'" commit)|$(st authenticated "$B" "delete from langgraph_checkpoint_blobs where thread_key = '$A/$T1'" commit)"
expect "B: direct INSERT into A's thread (key '<A>/T'): 42501, in each table" "42501|42501|42501" \
  "$(st authenticated "$B" "insert into langgraph_checkpoint_writes (thread_key, checkpoint_id, task_id, idx, channel, blob) values ('$A/$T1', '$ID2', 'evil', 7, 'x', '\\x00')" commit)|$(st authenticated "$B" "insert into langgraph_checkpoints (thread_key, checkpoint_id, checkpoint) values ('$A/$T1', 'evil', '{}')" commit)|$(st authenticated "$B" "insert into langgraph_checkpoint_blobs (thread_key, channel, version, type) values ('$A/$T1', 'a', '99', 'empty')" commit)"
expect "B: direct INSERT into the service tenant's key space (a bare key): 42501" 42501 \
  "$(st authenticated "$B" "insert into langgraph_checkpoints (thread_key, checkpoint_id, checkpoint) values ('$P-bare', 'evil', '{}')" commit)"
expect "the service role's direct INSERT naming tenant_id/thread_id of A's thread: both derived from the key instead" "$B|$P-own" \
  "$(as_api service_role "" "insert into langgraph_checkpoints (thread_key, thread_id, tenant_id, checkpoint_id, checkpoint) values ('$B/$P-own', '$T1', '$A', 'c', '{}') returning tenant_id || '|' || thread_id;")"
TB="$P-tb"
as_api authenticated "$B" "$(put "$TB" "" "$ID5" null "$(ckpt $ID5 '{}')" '{}' '[]')" commit >/dev/null
expect "B: own thread works" "$ID5" "$(as_api authenticated "$B" "select langgraph_get_tuple('$TB') ->> 'checkpoint_id';")"
expect "B: moving an own row into A's thread: 42501" 42501 "$(st authenticated "$B" "update langgraph_checkpoints set thread_key = '$A/$T1' where thread_key = '$B/$TB'" commit)"
expect "B: setting tenant_id or thread_id of an own row directly: 42501 (keys never change), the row as it was" "42501|42501|$B|$TB" \
  "$(st authenticated "$B" "update langgraph_checkpoints set tenant_id = '$A' where thread_key = '$B/$TB'" commit)|$(st authenticated "$B" "update langgraph_checkpoints set thread_id = '$T1' where thread_key = '$B/$TB'" commit)|$(q -c "select tenant_id || '|' || thread_id from langgraph_checkpoints where thread_key = '$B/$TB'")"
expect "A: cannot see B's thread; writing that id makes A's own" "0|00000|$ID5" \
  "$(as_api authenticated "$A" "select count(*) from langgraph_list('$TB');")|$(st authenticated "$A" "$(put "$TB" "" "$ID2" null "$(ckpt $ID2 '{}')" '{}' '[]')")|$(as_api authenticated "$B" "select langgraph_get_tuple('$TB') ->> 'checkpoint_id';")"
expect "A's rows intact after everything B tried" "$t1_before" "$(rows_t1)"
FORGED="row('$A/$T1', '', '$ID2', null, null, '{\"channel_versions\": {\"a\": \"2\", \"b\": \"1\"}}', '{}', now(), '$T1', '$A')::public.langgraph_checkpoints"
expect "B handing a forged row of A's to agentmem.langgraph_tuples reads none of A's blobs or writes" "0|0|2|1" \
  "$(as_api authenticated "$B" "select jsonb_array_length(t -> 'blobs') || '|' || jsonb_array_length(t -> 'writes') from agentmem.langgraph_tuples(array[$FORGED], null) t;")|$(as_api authenticated "$A" "select jsonb_array_length(t -> 'blobs') || '|' || (jsonb_array_length(t -> 'writes') > 0)::int from agentmem.langgraph_tuples(array[$FORGED], null) t;")"
expect "... and to agentmem.langgraph_tuple (getTuple's reader) likewise" "0|0|2|1" \
  "$(as_api authenticated "$B" "select jsonb_array_length(t -> 'blobs') || '|' || jsonb_array_length(t -> 'writes') from agentmem.langgraph_tuple($FORGED, null) t;")|$(as_api authenticated "$A" "select jsonb_array_length(t -> 'blobs') || '|' || (jsonb_array_length(t -> 'writes') > 0)::int from agentmem.langgraph_tuple($FORGED, null) t;")"
expect "getTuple's reader answers a row as a one-row list does (blobs in channel order, no refs)" "t" \
  "$(as_api authenticated "$A" "select bool_and(agentmem.langgraph_tuple(c, '$T1') = (select t from agentmem.langgraph_tuples(array[c], '$T1') t)) from langgraph_checkpoints c where c.thread_key = '$A/$T1';")"
expect "a thread id shaped like another user's key stays in the caller's space" "00000|$A/$B/$P-x|$B/$P-x|" \
  "$(st authenticated "$A" "$(put "$B/$P-x" "" "$ID1" null "$(ckpt $ID1 '{}')" '{}' '[]')" commit)|$(q -c "select thread_key || '|' || thread_id from langgraph_checkpoints where thread_key like '%/$B/$P-x'")|$(as_api authenticated "$B" "select langgraph_get_tuple('$P-x');")"

# --- no identity, no access -------------------------------------------------------------------
RPC_CALLS=("select langgraph_get_tuple('$T1')" "select * from langgraph_list()" "select * from langgraph_list('$T1')"
  "$(put "$P-anon" "" "$ID1" null "$(ckpt $ID1 '{}')" '{}' '[]')"
  "$(put_writes "$T1" "" "$ID2" t "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$(b64 x)\"}]")"
  "select langgraph_delete_thread('$T1')" "select langgraph_checkpoint_metrics()" "select langgraph_checkpoint_metrics('$T1')"
  "select cleanup_old_checkpoints(30)")
TABLE_READS=("select count(*) from langgraph_checkpoints" "select count(*) from langgraph_checkpoint_blobs"
  "select count(*) from langgraph_checkpoint_writes")
for stmt in "${TABLE_READS[@]}" "${RPC_CALLS[@]}"; do
  expect "anon denied: ${stmt:0:60}" 42501 "$(st anon "" "$stmt")"
  expect "anon denied after a re-grant of everything: ${stmt:0:60}" "$([[ $stmt == *"from langgraph_checkpoint"* ]] && echo 0 || echo 42501)" \
    "$(regranted as_api anon "" "${stmt%;};
\\echo :SQLSTATE" | grep -v '^00000$' | tail -n 1)"
  expect "a token without a user (no sub, non-UUID sub, nil sub, empty sub): PT401: ${stmt:0:50}" "$SUBLESS_EXPECTED" "$(subless_states "$stmt")"
done
expect "anon's direct INSERT after a re-grant: 42501, in each table" "42501|42501|42501" \
  "$(regranted st anon "" "insert into langgraph_checkpoints (thread_key, checkpoint_id, checkpoint) values ('$A/$P-anon', 'x', '{}')")|$(regranted st anon "" "insert into langgraph_checkpoint_blobs (thread_key, channel, version, type) values ('$P-anon', 'a', '1', 'empty')")|$(regranted st anon "" "insert into langgraph_checkpoint_writes (thread_key, checkpoint_id, task_id, idx, channel, blob) values ('$P-anon', 'x', 't', 0, 'x', '\\x00')")"
expect "anon's UPDATE/DELETE after a re-grant touch nothing" "0|0" \
  "$(regranted as_api anon "" "with u as (update langgraph_checkpoints set metadata = '{}' returning 1) select count(*) from u;")|$(regranted as_api anon "" "with u as (delete from langgraph_checkpoint_blobs returning 1) select count(*) from u;")"
expect "TRUNCATE as a user: 42501 (no grant), and 42501 after a re-grant (trigger)" "42501|42501|42501|42501" \
  "$(st authenticated "$B" "truncate langgraph_checkpoint_writes")|$(regranted st authenticated "$B" "truncate langgraph_checkpoints cascade")|$(regranted st authenticated "$B" "truncate langgraph_checkpoint_blobs")|$(regranted st anon "" "truncate langgraph_checkpoint_writes")"
expect "after a re-grant B still cannot reach A's thread (RPCs and tables)" "|0|0|00000|42501|$t1_before" \
  "$(regranted as_api authenticated "$B" "select langgraph_get_tuple('$T1');")|$(regranted as_api authenticated "$B" "select count(*) from langgraph_checkpoints where tenant_id = '$A';")|$(regranted as_api authenticated "$B" "with u as (delete from langgraph_checkpoint_writes where thread_key = '$A/$T1' returning 1) select count(*) from u;")|$(regranted st authenticated "$B" "$(put "$T1" "" "$ID2" null "$(ckpt $ID2 '{}')" '{"hijacked":true}' '[]')")|$(regranted st authenticated "$B" "insert into langgraph_checkpoints (thread_key, checkpoint_id, checkpoint) values ('$A/$T1', 'x', '{}')")|$(rows_t1)"

# --- the service role and x-agentmem-tenant ----------------------------------------------------
expect "service_role acting for nobody works in the service tenant: A's thread id is unknown there" "|0" \
  "$(as_api service_role "" "select langgraph_get_tuple('$T1');")|$(as_api service_role "" "select count(*) from langgraph_list('$T1');")"
expect "service_role naming A's thread by its key '<A>/T' (an id a client chose): 42501 for every RPC" "42501|42501|42501|42501|42501" \
  "$(st service_role "" "select count(*) from langgraph_list('$A/$T1')")|$(st service_role "" "select langgraph_get_tuple('$A/$T1')")|$(st service_role "" "$(put "$A/$T1" "" "$ID4" null "$(ckpt $ID4 '{}')" '{}' '[]')")|$(st service_role "" "select langgraph_delete_thread('$A/$T1')")|$(st service_role "" "select langgraph_checkpoint_metrics('$A/$T1')")"
expect "service_role acting for A (x-agentmem-tenant) sees A's thread under A's id" "5|$T1" \
  "$(acting_for "$A" as_api service_role "" "select count(*) from langgraph_list('$T1');")|$(acting_for "$A" as_api service_role "" "select langgraph_get_tuple('$T1') ->> 'thread_id';")"
acting_for "$A" as_api service_role "" "$(put "$T1" "" "$ID3" "'$ID2'" "$(ckpt $ID3 '{"a":2}')" '{"by":"service"}' '[]')" commit >/dev/null
expect "service_role's write acting for A lands in A's thread" "$A/$T1|$A" "$(q -c "select thread_key || '|' || tenant_id from langgraph_checkpoints where thread_key like '%$T1' and checkpoint_ns = '' and checkpoint_id = '$ID3'")"
expect "... and A sees it as the latest" "$ID3" "$(as_api authenticated "$A" "select langgraph_get_tuple('$T1') ->> 'checkpoint_id';")"
expect "service_role acting for A: the same metrics as A's own" "$(as_api authenticated "$A" "select langgraph_checkpoint_metrics();")" \
  "$(acting_for "$A" as_api service_role "" "select langgraph_checkpoint_metrics();")"
TS="$P-service"
as_api service_role "" "$(put "$TS" "" "$ID1" null "$(ckpt $ID1 '{}')" '{}' '[]')" commit >/dev/null
expect "service_role's own thread: the bare id, the service tenant" "$TS|$NIL|$TS" "$(q -c "select thread_key || '|' || tenant_id || '|' || thread_id from langgraph_checkpoints where thread_key like '%$TS'")"
expect "service_role's list() (acting for nobody) has its own threads, none of the users'" "1|0" \
  "$(as_api service_role "" "select count(*) filter (where t ->> 'thread_id' = '$TS') || '|' || count(*) filter (where t ->> 'thread_id' like '%$P-t1') from langgraph_list() t;")"
expect "users writing the service's thread id get their own thread; the service's is untouched" "00000|00000|0|1" \
  "$(st authenticated "$A" "$(put "$TS" "" "$ID2" null "$(ckpt $ID2 '{}')" '{}' '[]')")|$(st authenticated "$A" "$(put_writes "$TS" "" "$ID1" t "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$(b64 x)\"}]")")|$(as_api authenticated "$A" "select count(*) from langgraph_list('$TS');")|$(q -c "select count(*) from langgraph_checkpoints where thread_key = '$TS'")"
expect "a user sending another user's id as x-agentmem-tenant: 42501 (read and write)" "42501|42501" \
  "$(acting_for "$A" st authenticated "$B" "select langgraph_get_tuple('$T1')")|$(acting_for "$A" st authenticated "$B" "$(put "$T1" "" "$ID4" null "$(ckpt $ID4 '{}')" '{}' '[]')")"
expect "a user sending their own id: works as themselves" "$ID3" "$(acting_for "$A" as_api authenticated "$A" "select langgraph_get_tuple('$T1') ->> 'checkpoint_id';")"
expect "service_role with an x-agentmem-tenant that is no user's id: 42501 (read and write)" "42501|42501" \
  "$(acting_for "not-a-user" st service_role "" "select langgraph_get_tuple('$T1')")|$(acting_for "$A/x" st service_role "" "$(put "$T1" "" "$ID4" null "$(ckpt $ID4 '{}')" '{}' '[]')")"

# --- thread_key: who a row belongs to follows from its key -------------------------------------
expect "a row inserted with thread_key '<A>/x' is A's thread x" "$A|$P-raw|$ID5" \
  "$(q -c "insert into langgraph_checkpoints (thread_key, checkpoint_id, checkpoint) values ('$A/$P-raw', '$ID5', '{}') returning tenant_id || '|' || thread_id")|$(as_api authenticated "$A" "select langgraph_get_tuple('$P-raw') ->> 'checkpoint_id';")"
expect "thread_key 'x': the service tenant's x" "$NIL|$P-rawsvc" \
  "$(q -c "insert into langgraph_checkpoints (thread_key, checkpoint_id, checkpoint) values ('$P-rawsvc', 'c', '{}') returning tenant_id || '|' || thread_id")"
expect "thread_key '<nil uuid>/x' or '<UPPER-CASE UUID>/x': the service tenant's, under the whole key" "$NIL|$NIL/$P-n;$NIL|${A^^}/$P-u" \
  "$(q -c "insert into langgraph_checkpoints (thread_key, checkpoint_id, checkpoint) values ('$NIL/$P-n', 'c', '{}'), ('${A^^}/$P-u', 'c', '{}') returning tenant_id || '|' || thread_id" | paste -sd';')"
expect "a row never moves to another key, not even by the database owner (refused)" "1|$A" \
  "$("$PG" psql -X -q -At -c "update langgraph_checkpoints set thread_key = '$B/$P-moved' where thread_key = '$A/$P-raw'" 2>&1 | grep -c 'cannot change')|$(q -c "select tenant_id from langgraph_checkpoints where thread_key = '$A/$P-raw'")"
# LangGraph's PostgresSaver, connected directly, through supabase/optional/langgraph_postgres_saver.sql.
expect "PostgresSaver's schema: its tables as views; thread_id = thread_key" "checkpoint_blobs,checkpoint_migrations,checkpoint_writes,checkpoints|0,1,2,3,4|$A/$T1" \
  "$(q -c "select string_agg(table_name, ',' order by table_name) from information_schema.tables where table_schema = 'agentmem_langgraph'")|$(q -c "select string_agg(v::text, ',' order by v) from agentmem_langgraph.checkpoint_migrations")|$(q -c "select distinct thread_id from agentmem_langgraph.checkpoints where thread_id like '%/$T1'")"
expect "PostgresSaver's upserts (as it sends them) under '<A>/T' become A's thread T" "$A|{\"n\": 2}|$(b64 v2)|1" \
  "$(q -c "insert into agentmem_langgraph.checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata) values ('$A/$P-pg', '', '$ID1', null, '{\"v\":4,\"id\":\"$ID1\",\"channel_versions\":{\"a\":\"1\"}}', '{\"n\": 1}') on conflict (thread_id, checkpoint_ns, checkpoint_id) do update set checkpoint = excluded.checkpoint, metadata = excluded.metadata" \
        -c "insert into agentmem_langgraph.checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata) values ('$A/$P-pg', '', '$ID1', null, '{\"v\":4,\"id\":\"$ID1\",\"channel_versions\":{\"a\":\"1\"}}', '{\"n\": 2}') on conflict (thread_id, checkpoint_ns, checkpoint_id) do update set checkpoint = excluded.checkpoint, metadata = excluded.metadata" \
        -c "insert into agentmem_langgraph.checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob) values ('$A/$P-pg', '', 'a', '1', 'json', 'v2') on conflict (thread_id, checkpoint_ns, channel, version) do nothing" \
        -c "insert into agentmem_langgraph.checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob) values ('$A/$P-pg', '', '$ID1', 't', 0, 'x', 'json', 'w') on conflict (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) do update set channel = excluded.channel, type = excluded.type, blob = excluded.blob" \
        -c "select distinct tenant_id from langgraph_checkpoints where thread_key = '$A/$P-pg'")|$(as_api authenticated "$A" "select (t -> 'metadata')::text || '|' || (t -> 'blobs' -> 0 ->> 'blob') || '|' || jsonb_array_length(t -> 'writes') from langgraph_get_tuple('$P-pg') t;")"
expect "the API roles cannot use PostgresSaver's schema" "f|f|f" \
  "$(q -c "select has_schema_privilege('anon', 'agentmem_langgraph', 'usage'), has_schema_privilege('authenticated', 'agentmem_langgraph', 'usage'), has_schema_privilege('public', 'agentmem_langgraph', 'usage')")"

# --- cleanup_old_checkpoints -------------------------------------------------------------------
TC="$P-cleanup"
as_api authenticated "$A" "$(put "$TC" "" "$ID1" null "$(ckpt $ID1 '{"a":1}')" '{}' "[{\"channel\":\"a\",\"version\":\"1\",\"type\":\"json\",\"blob\":\"$W1\"}]")
$(put_writes "$TC" "" "$ID1" t "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$W1\"}]")
$(put "$TC" "" "$ID2" "'$ID1'" "$(ckpt $ID2 '{"a":2}')" '{}' "[{\"channel\":\"a\",\"version\":\"2\",\"type\":\"json\",\"blob\":\"$W2\"}]")
$(put "$TC" "" "$ID3" "'$ID2'" "$(ckpt $ID3 '{"a":2,"b":3}')" '{}' "[{\"channel\":\"b\",\"version\":\"3\",\"type\":\"json\",\"blob\":\"$W2\"}]")
$(put_writes "$TC" "" "$ID3" t "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$W1\"}]")
$(put "$TC" "n2" "$ID1" null "$(ckpt $ID1 '{"a":1}')" '{}' "[{\"channel\":\"a\",\"version\":\"1\",\"type\":\"json\",\"blob\":\"$W1\"}]")" commit >/dev/null
# created_at is the database's (its trigger ignores a caller's value): aged with triggers off.
q -c "set session_replication_role = replica;
update langgraph_checkpoints set created_at = now() - interval '40 days' where thread_key = '$A/$TC';
update langgraph_checkpoint_writes set created_at = now() - interval '40 days' where thread_key = '$A/$TC';
update langgraph_checkpoint_blobs set created_at = now() - interval '40 days' where thread_key = '$A/$TC'" >/dev/null
expect "cleanup(0) is 22023" 22023 "$(as_api authenticated "$A" "select cleanup_old_checkpoints(0);
\\echo :SQLSTATE")"
expect "cleanup(50): nothing is that old" 0 "$(as_api authenticated "$A" "select cleanup_old_checkpoints(50);")"
expect "cleanup by B leaves A's old checkpoints alone" 0 "$(as_api authenticated "$B" "select cleanup_old_checkpoints(30);" commit)"
expect "cleanup(30) deletes the 2 old non-latest checkpoints" 2 "$(as_api authenticated "$A" "select cleanup_old_checkpoints(30);" commit)"
expect "cleanup keeps the latest of each thread/namespace" ":$ID3,n2:$ID1" "$(q -c "select string_agg(checkpoint_ns || ':' || checkpoint_id, ',' order by checkpoint_ns) from langgraph_checkpoints where thread_key = '$A/$TC'")"
expect "cleanup removes the deleted checkpoints' writes only" "$ID3" "$(q -c "select string_agg(distinct checkpoint_id, ',') from langgraph_checkpoint_writes where thread_key = '$A/$TC'")"
expect "cleanup removes unreferenced blobs only" ":a:2,:b:3,n2:a:1" "$(q -c "select string_agg(checkpoint_ns || ':' || channel || ':' || version, ',' order by checkpoint_ns, channel) from langgraph_checkpoint_blobs where thread_key = '$A/$TC'")"
expect "the kept latest checkpoint still loads whole" "a:2:$W2,b:3:$W2|1" "$(as_api authenticated "$A" "select langgraph_get_tuple('$TC');" | js '",".join("%s:%s:%s" % (b["channel"], b["version"], b["blob"]) for b in d["blobs"]) + "|" + str(len(d["writes"]))')"
expect "recent threads untouched by cleanup" "$ID3" "$(as_api authenticated "$A" "select langgraph_get_tuple('$T1') ->> 'checkpoint_id';")"

# --- metrics ---------------------------------------------------------------------------------
m=$(as_api authenticated "$A" "select langgraph_checkpoint_metrics('$T1');")
expect "metrics keys" "blob_bytes,blob_count,checkpoint_bytes,checkpoint_count,last_checkpoint_at,thread_count,total_bytes,write_bytes,write_count" "$(js '",".join(sorted(d))' <<<"$m")"
expect "metrics counts for A's thread" "$(q -c "select (select count(*) from langgraph_checkpoints where thread_key = '$A/$T1') || '|' || (select count(*) from langgraph_checkpoint_writes where thread_key = '$A/$T1') || '|' || (select count(*) from langgraph_checkpoint_blobs where thread_key = '$A/$T1') || '|1'")" "$(js '"|".join(c(d[k]) for k in ("checkpoint_count", "write_count", "blob_count", "thread_count"))' <<<"$m")"
expect "metrics total_bytes = parts, > 300 (the 300-byte blob)" "true" "$(js 'd["total_bytes"] == d["checkpoint_bytes"] + d["blob_bytes"] + d["write_bytes"] and d["blob_bytes"] >= 300 and isinstance(d["last_checkpoint_at"], str)' <<<"$m")"
expect "metrics over all of A's threads" "$(q -c "select count(distinct thread_key) from langgraph_checkpoints where tenant_id = any (array['$A'::uuid] || (select coalesce(array_agg(agentmem.deal_tenant(d.id)), '{}') from deals d join organization_members m on m.organization_id = d.organization_id where m.user_id = '$A'))")" "$(as_api authenticated "$A" "select langgraph_checkpoint_metrics() ->> 'thread_count';")"
expect "metrics of A's thread as B: zero" "0|0|null" "$(as_api authenticated "$B" "select langgraph_checkpoint_metrics('$T1');" | js '"|".join(c(d[k]) for k in ("checkpoint_count", "total_bytes", "last_checkpoint_at"))')"


# --- deal-scoped threads (supabase/optional/langgraph_deal_scoped.sql, applied as a migration) ---
DEAL=3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b
expect "extract_deal_id_from_thread agrees with src/ids/thread.rs extract_deal_id" \
  "$DEAL,$DEAL,$DEAL,null,null,null,null,$DEAL,null,null,null,null,null,null,null" \
  "$(q -c "select string_agg(coalesce(extract_deal_id_from_thread(t)::text, 'null'), ',' order by o)
  from unnest(array['cim-$DEAL-x', 'cim-$DEAL', 'supervisor-$DEAL-1', 'cim-' || upper('$DEAL') || '-x',
                    'CIM-$DEAL-x', ' cim-$DEAL-x', 'cim-' || repeat('-', 36),
                    'cim-3f2b-8a9e-1c4d-4e5f-9a0b1c2d3e4f5a6b', 'cim-3f2b8a9e1c4d4e5f9a0b1c2d3e4f5a6b----',
                    'cim-3f2b8a9e1c4d4e5f9a0b1c2d3e4f5a6b-abc', 'cim-3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6',
                    'cim--3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6', 'supervisorx-$DEAL', 'deal-$DEAL', '']) with ordinality as u(t, o)")"
expect "applying the deal-scope file again changes nothing (idempotent)" "00000" \
  "$("$PG" psql -X -q -At -c 'begin' -f "$ROOT/supabase/optional/langgraph_deal_scoped.sql" -c '\echo :SQLSTATE' -c 'rollback' 2>>"$ERR" | tail -n 1)"
q -c "insert into organizations (id, name) values ('$ORG', 'org-$P');
insert into deals (id, organization_id, name) values ('$DEAL_ID', '$ORG', 'deal-$P');
insert into organization_members (organization_id, user_id) values ('$ORG', '$A'), ('$ORG', '$B'), ('$ORG', '$E');" >/dev/null
DT=$(q -c "select agentmem.deal_tenant('$DEAL_ID')")
TD="cim-$DEAL_ID-$P"
TDS="supervisor-$DEAL_ID-$P"
as_api authenticated "$A" "$(quiet put "$TD" "" "$ID1" null "$(ckpt $ID1 '{"a":1}')" '{"deal":true}' "[{\"channel\":\"a\",\"version\":\"1\",\"type\":\"json\",\"blob\":\"$W1\"}]")
$(quiet put_writes "$TD" "" "$ID1" t "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$W1\"}]")
$(quiet put "$TDS" "" "$ID1" null "$(ckpt $ID1 '{}')" '{}' '[]')" commit >/dev/null
expect "a member's deal thread lives in the deal's key space (bare key, tenant deal_tenant(deal)), all three tables" \
  "$TD|$DT|$TD|3;$TDS|$DT|$TDS|1" \
  "$(q -c "select thread_key || '|' || tenant_id || '|' || thread_id || '|' || count(*) from (
             select thread_key, tenant_id, thread_id from langgraph_checkpoints where thread_key in ('$TD', '$TDS') union all
             select thread_key, tenant_id, thread_id from langgraph_checkpoint_blobs where thread_key in ('$TD', '$TDS') union all
             select thread_key, tenant_id, thread_id from langgraph_checkpoint_writes where thread_key in ('$TD', '$TDS')) x
           group by thread_key, tenant_id, thread_id order by thread_key" 2>&1 | paste -sd';')"
expect "another member reads the cim thread a colleague wrote (checkpoint, blob, write)" "$ID1|1|1" \
  "$(as_api authenticated "$B" "select (t ->> 'checkpoint_id') || '|' || jsonb_array_length(t -> 'blobs') || '|' || jsonb_array_length(t -> 'writes') from langgraph_get_tuple('$TD') t;")"
expect "... lists it (and the supervisor thread), by id and among all their threads" "1|1|2" \
  "$(as_api authenticated "$B" "select count(*) from langgraph_list('$TD');")|$(as_api authenticated "$B" "select count(*) from langgraph_list('$TDS');")|$(as_api authenticated "$B" "select count(*) from langgraph_list() t where t ->> 'thread_id' in ('$TD', '$TDS');")"
expect "membership does not open the writer's private threads" "0|" \
  "$(as_api authenticated "$B" "select count(*) from langgraph_checkpoints where tenant_id = '$A';")|$(as_api authenticated "$B" "select langgraph_get_tuple('$T1', '', '$ID3');")"
expect "a member continues the thread; the colleague then sees that checkpoint as the latest" "00000|$ID2|2" \
  "$(st authenticated "$B" "$(put "$TD" "" "$ID2" "'$ID1'" "$(ckpt $ID2 '{"a":2}')" '{"by":"B"}' "[{\"channel\":\"a\",\"version\":\"2\",\"type\":\"json\",\"blob\":\"$W2\"}]")" commit)|$(as_api authenticated "$A" "select langgraph_get_tuple('$TD') ->> 'checkpoint_id';")|$(as_api authenticated "$A" "select count(*) from langgraph_list('$TD');")"
expect "a member re-putting a colleague's checkpoint with other content: 23505 (values never change), the colleague's row as it was" "23505|true|$DT" \
  "$(st authenticated "$B" "$(put "$TD" "" "$ID1" null "$(ckpt $ID1 '{"a":1}')" '{"deal":true,"by":"member"}' '[]')" commit)|$(q -c "select (metadata ->> 'deal') || '|' || tenant_id from langgraph_checkpoints where thread_key = '$TD' and checkpoint_id = '$ID1'")"
expect "... the same content again: a no-op (a retried put)" "00000|$(q -c "select md5(checkpoint::text || metadata::text) from langgraph_checkpoints where thread_key = '$TD' and checkpoint_id = '$ID1'")" \
  "$(st authenticated "$B" "$(put "$TD" "" "$ID1" null "$(ckpt $ID1 '{"a":1}')" '{"deal":true}' "[{\"channel\":\"a\",\"version\":\"1\",\"type\":\"json\",\"blob\":\"$W1\"}]")" commit)|$(q -c "select md5(checkpoint::text || metadata::text) from langgraph_checkpoints where thread_key = '$TD' and checkpoint_id = '$ID1'")"
# A member whose role only reads (agentmem.deal_read_only_roles(): viewer).
q -c "insert into auth.users (id, email) values ('$V', 'v-$P@example.test');
insert into organization_members (organization_id, user_id, role) values ('$ORG', '$V', 'viewer')" >/dev/null
expect "a viewer reads the deal thread" "$ID2" "$(as_api authenticated "$V" "select langgraph_get_tuple('$TD') ->> 'checkpoint_id';")"
expect "... but cannot put, put writes or delete the thread (42501)" "42501|42501|42501" \
  "$(st authenticated "$V" "$(put "$TD" "" "$ID5" "'$ID2'" "$(ckpt $ID5 '{}')" '{"by":"viewer"}' '[]')" commit)|$(st authenticated "$V" "$(put_writes "$TD" "" "$ID2" t "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$W1\"}]")" commit)|$(st authenticated "$V" "select langgraph_delete_thread('$TD')" commit)"
expect "... with a message naming the cause" "agentmem: thread '$TD' is read-only for you: your role in its scope may read it, not write it" \
  "$(as_api authenticated "$V" "select langgraph_delete_thread('$TD') \\g /dev/null
\\echo :LAST_ERROR_MESSAGE")"
# Aged with triggers off (created_at is the database's), then back.
q -c "set session_replication_role = replica; update langgraph_checkpoints set created_at = created_at - interval '40 days' where thread_key = '$TD'" >/dev/null
td_count=$(q -c "select count(*) from langgraph_checkpoints where thread_key = '$TD'")
expect "... and cleanup_old_checkpoints as the viewer leaves the deal's old checkpoints" "0|$td_count" \
  "$(as_api authenticated "$V" "select cleanup_old_checkpoints(30);" commit)|$(q -c "select count(*) from langgraph_checkpoints where thread_key = '$TD'")"
q -c "set session_replication_role = replica; update langgraph_checkpoints set created_at = created_at + interval '40 days' where thread_key = '$TD'" >/dev/null
expect "a member cannot move a deal row into another user's space (42501)" "42501|42501" \
  "$(st authenticated "$B" "update langgraph_checkpoints set thread_key = '$C/$TD' where thread_key = '$TD'")|$(st authenticated "$B" "update langgraph_checkpoints set thread_key = '$A/$TD' where thread_key = '$TD'")"
td_before=$(q -c "select count(*) || '|' || md5(string_agg(checkpoint_id || metadata::text, ',' order by checkpoint_id)) from langgraph_checkpoints where thread_key = '$TD'")

# A non-member: refused (42501) for read AND write, whether the thread (or the deal) exists or not.
outsider() { # sub, thread id: the SQLSTATE of each operation
  local t=$2 stmt out=()
  for stmt in "select langgraph_get_tuple('$t')" "select langgraph_get_tuple('$t', '', '$ID1')" "select * from langgraph_list('$t')" \
    "$(put "$t" "" "$ID3" null "$(ckpt $ID3 '{}')" '{}' '[]')" "$(put "$t" "" "$ID1" null "$(ckpt $ID1 '{}')" '{"planted":true}' '[]')" \
    "$(put_writes "$t" "" "$ID1" t2 "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$W1\"}]")" \
    "$(put_writes "$t" "" "$ID1" t "" "[{\"idx\":-1,\"channel\":\"__error__\",\"type\":\"json\",\"blob\":\"$W1\"}]")" \
    "select langgraph_delete_thread('$t')" "select langgraph_checkpoint_metrics('$t')"; do
    out+=("$(st authenticated "$1" "$stmt" commit)")
  done
  local IFS='|'
  printf '%s' "${out[*]}"
}
ALL42501="42501|42501|42501|42501|42501|42501|42501|42501|42501"
expect "non-member on the existing cim thread: 42501 for every read and write" "$ALL42501" "$(outsider "$C" "$TD")"
expect "non-member on the existing supervisor thread: the same" "$ALL42501" "$(outsider "$C" "$TDS")"
expect "non-member on an unused thread of the deal: the same" "$ALL42501" "$(outsider "$C" "cim-$DEAL_ID-$P-unused")"
expect "non-member on a thread of a deal that does not exist: the same" "$ALL42501" "$(outsider "$C" "cim-$(uuid)-$P")"
expect "non-member's direct table access: reads nothing, writes refused (42501) in each table" "0|0|42501|42501|42501|42501" \
  "$(as_api authenticated "$C" "select count(*) from langgraph_checkpoints where thread_key = '$TD';")|$(as_api authenticated "$C" "select count(*) from langgraph_list() t where t ->> 'thread_id' = '$TD';")|$(st authenticated "$C" "insert into langgraph_checkpoints (thread_key, checkpoint_id, checkpoint, metadata) values ('$TD', '$ID5', '{}', '{\"planted\":true}')" commit)|$(st authenticated "$C" "insert into langgraph_checkpoint_blobs (thread_key, channel, version, type) values ('$TD', 'a', '9', 'empty')" commit)|$(st authenticated "$C" "insert into langgraph_checkpoint_writes (thread_key, checkpoint_id, task_id, idx, channel, blob) values ('$TD', '$ID2', 'evil', 0, 'x', '\\x00')" commit)|$(st authenticated "$C" "update langgraph_checkpoints set metadata = '{}' where thread_key = '$TD'" commit)"
expect "a row keyed like the deal thread under a user ('<C>/cim-…') is refused even to the service role's direct insert (22023); members see the deal's" "22023|$ID2" \
  "$(st service_role "" "insert into langgraph_checkpoints (thread_key, checkpoint_id, checkpoint) values ('$C/$TD', '$ID5', '{}')" commit)|$(as_api authenticated "$A" "select langgraph_get_tuple('$TD') ->> 'checkpoint_id';")"
expect "non-member after a re-grant of everything: still 42501, and cannot join the organization" "42501|42501|42501|0" \
  "$(regranted st authenticated "$C" "select langgraph_get_tuple('$TD')")|$(regranted st authenticated "$C" "$(put "$TD" "" "$ID5" null "$(ckpt $ID5 '{}')" '{}' '[]')")|$(regranted st authenticated "$C" "insert into organization_members (organization_id, user_id) values ('$ORG', '$C')")|$(regranted as_api authenticated "$C" "select count(*) from deals where id = '$DEAL_ID';")"
expect "the deal thread is intact after everything the outsider tried" "$td_before" \
  "$(q -c "select count(*) || '|' || md5(string_agg(checkpoint_id || metadata::text, ',' order by checkpoint_id)) from langgraph_checkpoints where thread_key = '$TD'")"
expect "the service role acting for no member: a deal thread is refused (read and write), 42501" "42501|42501" \
  "$(st service_role "" "select langgraph_get_tuple('$TD')")|$(st service_role "" "$(put "$TD" "" "$ID3" "'$ID2'" "$(ckpt $ID3 '{}')" '{"by":"service"}' '[]')")"
expect "... and acting for a non-member: the same" "42501" "$(acting_for "$C" st service_role "" "select langgraph_get_tuple('$TD')")"
expect "the service role acting for a member writes the deal thread: in the deal's space; members see it" "$TD|$DT|$ID3" \
  "$(acting_for "$B" as_api service_role "" "$(quiet put "$TD" "" "$ID3" "'$ID2'" "$(ckpt $ID3 '{}')" '{"by":"service"}' '[]')" commit; q -c "select thread_key || '|' || tenant_id from langgraph_checkpoints where checkpoint_id = '$ID3' and thread_key like '%$TD'")|$(as_api authenticated "$B" "select langgraph_get_tuple('$TD') ->> 'checkpoint_id';")"
q -c "delete from organization_members where organization_id = '$ORG' and user_id = '$B'" >/dev/null
expect "a member removed from the organization is refused at once (read and write)" "42501|42501" \
  "$(st authenticated "$B" "select langgraph_get_tuple('$TD')")|$(st authenticated "$B" "$(put "$TD" "" "$ID5" null "$(ckpt $ID5 '{}')" '{}' '[]')")"

# --- threads: langgraph_threads and list_threads ---------------------------------------------
TT="$P-threads"
as_api authenticated "$A" "$(quiet put "$TT" "" "$ID1" null "$(ckpt $ID1 '{}')" '{"source":"input","step":-1,"topic":"roofs"}' '[]')
$(quiet put "$TT" "" "$ID3" "'$ID1'" "$(ckpt $ID3 '{}')" '{"source":"loop","step":1,"topic":"roofs"}' '[]')
$(quiet put "$TT" "" "$ID2" "'$ID1'" "$(ckpt $ID2 '{}')" '{"source":"loop","step":0,"topic":"roofs"}' '[]')
$(quiet put "$TT" "sub" "$ID5" null "$(ckpt $ID5 '{}')" '{"source":"loop","step":9}' '[]')" commit >/dev/null
thread_row() { q -c "select checkpoint_id || '|' || checkpoint_count || '|' || (metadata ->> 'step') || '|' || coalesce(last_human, '-') || '|' || coalesce(last_ai, '-') || '|' || tenant_id || '|' || thread_id from langgraph_threads where thread_key = '$A/$TT'"; }
expect "a thread's row: the root namespace's greatest checkpoint id (not the last written), its count and metadata" "$ID3|3|1|-|-|$A|$TT" "$(thread_row)"
as_api authenticated "$A" "select langgraph_put('$TT', '', '$ID4', '$ID3', 'json', '$(ckpt $ID4 '{}')', '{\"source\":\"loop\",\"step\":2}', '[]', '{\"human\":\"Which roofs?\",\"ai\":\"Slate.\"}') \\g /dev/null" commit >/dev/null
expect "a put's preview is kept on the thread's row while it is the head" "$ID4|4|2|Which roofs?|Slate.|$A|$TT" "$(thread_row)"
as_api authenticated "$A" "select langgraph_put('$TT', '', '$ID1-old', null, 'json', '$(ckpt "$ID1-old" '{}')', '{}', '[]', '{\"human\":\"stale\",\"ai\":null}') \\g /dev/null" commit >/dev/null
expect "... an older fork's put counts, but neither moves the head nor takes the preview" "$ID4|5|2|Which roofs?|Slate.|$A|$TT" "$(thread_row)"
expect "a preview that is not {human, ai} text: 22023" "22023|22023" \
  "$(st authenticated "$A" "select langgraph_put('$TT', '', 'p1', null, 'json', '$(ckpt p1 '{}')', '{}', '[]', '[\"x\"]')")|$(st authenticated "$A" "select langgraph_put('$TT', '', 'p1', null, 'json', '$(ckpt p1 '{}')', '{}', '[]', '{\"human\":\"$(printf 'x%.0s' $(seq 2001))\"}')")"
listed=$(as_api authenticated "$A" "select langgraph_list_threads('$P-thr');")
expect "list_threads: the thread with its latest checkpoint, metadata, count, preview (the package adds config, step and source)" \
  "$TT|$ID4|2|loop|5|Which roofs?|Slate.|checkpointCount,checkpointId,createdAt,lastAiMessage,lastHumanMessage,metadata,threadId,updatedAt" \
  "$(js '"|".join(str(x) for x in [d["threadId"], d["checkpointId"], d["metadata"]["step"], d["metadata"]["source"], d["checkpointCount"], d["lastHumanMessage"], d["lastAiMessage"], ",".join(sorted(d))])' <<<"$listed")"
expect "list_threads: newest first across threads; prefix, metadata filter, limit and offset" "$TT,$T1|$TT|1|1|0" \
  "$(as_api authenticated "$A" "select string_agg(t ->> 'threadId', ',') from langgraph_list_threads() t where t ->> 'threadId' in ('$TT', '$T1');")|$(as_api authenticated "$A" "select string_agg(t ->> 'threadId', ',') from langgraph_list_threads('$P-thr') t;")|$(as_api authenticated "$A" "select count(*) from langgraph_list_threads(null, '{\"step\": 2}') t where t ->> 'threadId' = '$TT';")|$(as_api authenticated "$A" "select count(*) from langgraph_list_threads(p_limit => 1);")|$(as_api authenticated "$A" "select count(*) from langgraph_list_threads('$P-thr', p_offset => 1);")"
expect "list_threads refuses a limit outside 1..1000, a negative offset, a filter that is no object (22023)" "22023|22023|22023|22023" \
  "$(st authenticated "$A" "select langgraph_list_threads(p_limit => 0)")|$(st authenticated "$A" "select langgraph_list_threads(p_limit => 1001)")|$(st authenticated "$A" "select langgraph_list_threads(p_offset => -1)")|$(st authenticated "$A" "select langgraph_list_threads(null, '[1]')")"
expect "B lists none of A's threads, and cannot read or write langgraph_threads (42501 for writes)" "0|0|42501" \
  "$(as_api authenticated "$B" "select count(*) from langgraph_list_threads() t where t ->> 'threadId' = '$TT';")|$(as_api authenticated "$B" "select count(*) from langgraph_threads where thread_id = '$TT';")|$(st authenticated "$B" "update langgraph_threads set last_human = 'x'" commit)"
expect "a deal's thread is listed for its members" "1|0" \
  "$(as_api authenticated "$A" "select count(*) from langgraph_list_threads() t where t ->> 'threadId' = '$TD';")|$(as_api authenticated "$C" "select count(*) from langgraph_list_threads() t where t ->> 'threadId' = '$TD';")"
q -c "set session_replication_role = replica; update langgraph_checkpoints set created_at = now() - interval '40 days' where thread_key = '$A/$TT' and checkpoint_id in ('$ID1', '$ID2')" >/dev/null
as_api authenticated "$A" "select cleanup_old_checkpoints(30);" commit >/dev/null
expect "retention recounts the thread's row and keeps its head and preview" "$ID4|3|2|Which roofs?|Slate.|$A|$TT" "$(thread_row)"
as_api authenticated "$A" "select langgraph_delete_thread('$TT');" commit >/dev/null
expect "deleting the thread deletes its row" "" "$(thread_row)"
q -c "insert into langgraph_checkpoints (thread_key, checkpoint_id, checkpoint, metadata) values ('$A/$P-direct', 'd1', '{}', '{\"step\": 7}')" >/dev/null
expect "a checkpoint written around the RPCs (a direct connection, PostgresSaver) is listed too" "1|7" \
  "$(as_api authenticated "$A" "select count(*) || '|' || max(t -> 'metadata' ->> 'step') from langgraph_list_threads('$P-direct') t;")"

# A prefix is matched literally, code point by code point (LIKE's % _ and \ are characters
# like others; the last code points below and above the surrogates, and the highest, which
# no next one follows), and answers what a filter of all the caller's threads answers: the
# same rows, order and pages, for a user (one range of keys, or their newest threads when
# a page is among them), a member of a deal (their own and the deal's threads: bare ids, a
# key under the deal's tenant, a prefix within the user's own keys), the service role
# acting for them, and not acting for anyone (its own threads: bare ids among every
# user's keys).
LT="$P-lt-"
lt_ids="'$LT' || x from unnest(array['a', 'ab', 'b', '%', '%x', '_', 'x_', chr(92), chr(92) || 'x', chr(55295), chr(57344), chr(65535),
  chr(1114111), chr(1114111) || 'x', chr(1114111) || chr(1114111)]) x union all select '$A/${LT}nested'"
lt_put="select langgraph_put(i, '', 'c1', null, 'json', '$(ckpt c1 '{}')', '{}', '[]') from"
for u in "$A" "$C"; do
  as_api authenticated "$u" "select count(*) from ($lt_put (select $lt_ids) i(i) where i not like '%b') x;" commit >/dev/null
  as_api authenticated "$u" "select count(*) from ($lt_put (select $lt_ids) i(i) where i like '%b') x;" commit >/dev/null
done
as_api authenticated "$A" "select langgraph_put('$TD-lt', '', 'c1', null, 'json', '$(ckpt c1 '{}')', '{}', '[]');" commit >/dev/null
as_api service_role "" "select count(*) from ($lt_put unnest(array['${LT}svc', '${LT}svc-2', '${LT}a']) i) x;" commit >/dev/null
q -c "insert into langgraph_checkpoints (thread_key, checkpoint_id, checkpoint, metadata) values ('$DT/${LT}dt', 'd1', '{}', '{}')" >/dev/null
LT_SAME="with c(n, p, l, o) as (
  select row_number() over (), p, l, o
    from unnest(array['$LT', '$LT%', '${LT}_', '$LT' || chr(92), '${LT}a', '$LT' || chr(55295), '$LT' || chr(65535), '$LT' || chr(1114111),
                      '$LT' || chr(1114111) || chr(1114111), '$A/', '$A/$LT', 'cim-$DEAL_ID', '${LT}dt', '${LT}svc', '']) p,
         (values (50, 0), (2, 1), (1, 0), (50, 3)) v(l, o))
select coalesce(string_agg(c.n || ':' || c.l || ',' || c.o, ' ' order by c.n) filter (where
         (select coalesce(jsonb_agg(x.j order by x.n), '[]') from langgraph_list_threads(c.p, null, c.l, c.o) with ordinality x(j, n))
         is distinct from
         (select coalesce(jsonb_agg(agentmem.langgraph_thread_summary(s.t) order by (s.t).updated_at desc, (s.t).thread_key), '[]')
            from (select t from langgraph_threads t where t.tenant_id = any (agentmem.thread_tenants()) and starts_with(t.thread_id, c.p)
                   order by t.updated_at desc, t.thread_key limit c.l offset c.o) s)), 'same')
       || '|' || string_agg((select count(*) from langgraph_threads t
                              where t.tenant_id = any (agentmem.thread_tenants()) and starts_with(t.thread_id, c.p))::text, ',' order by c.n)
                   filter (where c.l = 50 and c.o = 0 and c.p <> '')
  from c;"
# (After each answer, how many threads each prefix matches, but '': every page of each is compared.)
expect "list_threads: a prefix answers as a filter of all the caller's threads would (a user; a deal's member; the service role for them, and for itself)" \
  "same|15,2,1,2,2,1,1,3,1,1,1,0,0,0 same|16,2,1,2,2,1,1,3,1,1,1,2,1,0 same|16,2,1,2,2,1,1,3,1,1,1,2,1,0 same|3,0,0,0,1,0,0,0,0,0,0,0,0,2" \
  "$(as_api authenticated "$C" "$LT_SAME") $(as_api authenticated "$A" "$LT_SAME") $(acting_for "$A" as_api service_role "" "$LT_SAME") $(as_api service_role "" "$LT_SAME")"

# --- deleting a user ---------------------------------------------------------------------------
as_api authenticated "$E" "$(quiet put "$P-e" "" "$ID1" null "$(ckpt $ID1 '{"a":1}')" '{}' "[{\"channel\":\"a\",\"version\":\"1\",\"type\":\"json\",\"blob\":\"$W1\"}]")
$(quiet put_writes "$P-e" "" "$ID1" t "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$W1\"}]")
$(quiet put "cim-$DEAL_ID-$P-e" "" "$ID1" null "$(ckpt $ID1 '{}')" '{"by":"E"}' '[]')" commit >/dev/null
e_rows() { q -c "select (select count(*) from langgraph_checkpoints where tenant_id = '$E') + (select count(*) from langgraph_checkpoint_blobs where tenant_id = '$E') + (select count(*) from langgraph_checkpoint_writes where tenant_id = '$E')"; }
expect "E (a member) has a private thread (3 rows) and wrote a deal thread" "3|1" "$(e_rows)|$(q -c "select count(*) from langgraph_checkpoints where thread_key = 'cim-$DEAL_ID-$P-e'")"
q -c "delete from auth.users where id = '$E'" >/dev/null
expect "deleting E from auth.users deletes E's threads; the deal thread E wrote stays the deal's" "0|E" \
  "$(e_rows)|$(as_api authenticated "$A" "select langgraph_get_tuple('cim-$DEAL_ID-$P-e') -> 'metadata' ->> 'by';")"

# --- done ------------------------------------------------------------------------------------------
if [ "$failed" != 0 ]; then
  log "checkpoint SQL test FAILED: $failed of $checks checks"
  exit 1
fi
log "checkpoint SQL test passed: $checks checks"
