#!/usr/bin/env bash
# The LangGraph checkpoint SQL (supabase/migrations/20261122000100_langgraph_checkpoints.sql
# and the opt-in supabase/optional/langgraph_deal_scoped.sql), checked the way PostgREST
# runs it: as authenticator, one transaction per call, `set local role` + the JWT claims.
#
# Runs against the stack of scripts/postgres.sh (AGENTMEM_PG_PORT / AGENTMEM_STACK_DIR,
# default: the main stack), applying migrations first; a stack it had to start is stopped
# again. Its data (fresh random users, thread ids under a unique prefix) is removed at
# exit; the deal-scoped file is applied inside a transaction that is rolled back.
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

PG="$ROOT/scripts/postgres.sh"
ERR=$(mktemp)
checks=0
was_running=0
"$PG" status >/dev/null 2>&1 && was_running=1

A=$(cat /proc/sys/kernel/random/uuid)
B=$(cat /proc/sys/kernel/random/uuid)
C=$(cat /proc/sys/kernel/random/uuid)
P="ckpt-test-$(date +%s%N)-$$"

cleanup() {
  local rc=$?
  if "$PG" status >/dev/null 2>&1; then
    "$PG" psql -X -q -At >/dev/null 2>&1 <<EOF || true
delete from public.langgraph_checkpoint_writes where thread_id like '$P%' or thread_id like 'cim-%-$P%';
delete from public.langgraph_checkpoint_blobs where thread_id like '$P%' or thread_id like 'cim-%-$P%';
delete from public.langgraph_checkpoints where thread_id like '$P%' or thread_id like 'cim-%-$P%';
delete from auth.users where id in ('$A', '$B', '$C');
EOF
    if [ "$was_running" = 0 ]; then "$PG" stop >/dev/null 2>&1 || true; fi
  fi
  rm -f "$ERR"
  exit "$rc"
}
trap cleanup EXIT

ok() { checks=$((checks + 1)); printf '  ok  %s\n' "$1"; }
fail() {
  printf '  FAIL %s\n' "$1" >&2
  if [ -s "$ERR" ]; then echo "--- psql stderr (tail)" >&2; tail -n 15 "$ERR" >&2; fi
  exit 1
}
expect() { # name, expected, actual
  if [ "$2" == "$3" ]; then ok "$1"; else fail "$1: expected [$2], got [$3]"; fi
}
q() { "$PG" psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }
# As the PostgREST login role, in one transaction, as `role` with the JWT claims of `sub`,
# exactly as PostgREST does it. Errors do not stop the script (:SQLSTATE is available);
# the transaction is rolled back unless the 4th argument is `commit`.
as_api() { # role, sub ('' for none), sql, [commit]
  local claims end=rollback
  if [ -n "$2" ]; then claims="{\"sub\":\"$2\",\"role\":\"$1\"}"; else claims="{\"role\":\"$1\"}"; fi
  [ "${4:-}" = commit ] && end=commit
  : >"$ERR"
  "$PG" psql -X -q -At -U authenticator 2>>"$ERR" <<EOF
begin;
set local role $1;
select set_config('request.jwt.claims', '$claims', true) \g /dev/null
$3
$end;
EOF
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
out=$("$ROOT/scripts/migrate.sh" 2>&1) || { echo "$out" >&2; fail "scripts/migrate.sh"; }
ok "scripts/migrate.sh applies the migrations"

# --- schema, privileges -------------------------------------------------------------------
expect "RLS on the three tables" "true|true|true" "$(q -c "select string_agg(relrowsecurity::text, '|' order by relname) from pg_class where oid in ('public.langgraph_checkpoints'::regclass, 'public.langgraph_checkpoint_blobs'::regclass, 'public.langgraph_checkpoint_writes'::regclass)")"
expect "RPCs are SECURITY INVOKER with search_path=public" "7|7" "$(q -c "select count(*) filter (where not prosecdef) || '|' || count(*) filter (where proconfig @> array['search_path=public']) from pg_proc where pronamespace = 'public'::regnamespace and proname in ('langgraph_put', 'langgraph_put_writes', 'langgraph_get_tuple', 'langgraph_list', 'langgraph_delete_thread', 'cleanup_old_checkpoints', 'langgraph_checkpoint_metrics')")"
expect "langgraph_thread_owner is SECURITY DEFINER with a fixed search_path" "true|true" "$(q -c "select prosecdef || '|' || (proconfig is not null) from pg_proc where oid = 'public.langgraph_thread_owner(text)'::regprocedure")"
expect "anon may execute none of the functions" 0 "$(q -c "select count(*) from pg_proc where pronamespace = 'public'::regnamespace and (proname like 'langgraph%' or proname = 'cleanup_old_checkpoints') and has_function_privilege('anon', oid, 'execute')")"
expect "anon has no privilege on the tables" "f" "$(q -c "select bool_or(has_table_privilege('anon', t, p)) from unnest(array['public.langgraph_checkpoints', 'public.langgraph_checkpoint_blobs', 'public.langgraph_checkpoint_writes']) t, unnest(array['select', 'insert', 'update', 'delete', 'truncate']) p")"
expect "authenticated: DML but no TRUNCATE" "true|false" "$(q -c "select bool_and(has_table_privilege('authenticated', t, 'select, insert, update, delete')) || '|' || bool_or(has_table_privilege('authenticated', t, 'truncate')) from unnest(array['public.langgraph_checkpoints', 'public.langgraph_checkpoint_blobs', 'public.langgraph_checkpoint_writes']) t")"
expect "authenticated and service_role may execute the RPCs" "t" "$(q -c "select bool_and(has_function_privilege(r, f, 'execute')) from unnest(array['authenticated', 'service_role']) r, unnest(array['public.langgraph_put(text,text,text,text,text,jsonb,jsonb,jsonb)', 'public.langgraph_put_writes(text,text,text,text,text,jsonb)', 'public.langgraph_get_tuple(text,text,text)', 'public.langgraph_list(text,text,text,jsonb,text,integer)', 'public.langgraph_delete_thread(text)', 'public.cleanup_old_checkpoints(integer)', 'public.langgraph_checkpoint_metrics(text)']) f")"

q -c "insert into auth.users (id, email) values ('$A', 'a-$P@example.test'), ('$B', 'b-$P@example.test'), ('$C', 'c-$P@example.test')" >/dev/null

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

out=$(as_api authenticated "$A" "$(put "$T1" "" "$ID1" null "$(ckpt $ID1 '{"a":1,"b":1}')" "$META1" "[{\"channel\":\"a\",\"version\":1,\"type\":\"json\",\"blob\":\"$A1\"},{\"channel\":\"b\",\"version\":\"1\",\"type\":\"json\",\"blob\":\"$B1\"},{\"channel\":\"c\",\"version\":\"1\",\"type\":\"empty\",\"blob\":null}]")" commit)
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
expect "tuple keys" "blobs,checkpoint,checkpoint_id,checkpoint_ns,metadata,parent_checkpoint_id,pending_sends,thread_id,type,writes" "$(js '",".join(sorted(d))' <<<"$tuple")"
expect "no writes yet, no pending sends for v4" "[]|[]" "$(js 'c(d["writes"]) + "|" + c(d["pending_sends"])' <<<"$tuple")"
tuple1=$(as_api authenticated "$A" "select langgraph_get_tuple('$T1', '', '$ID1');")
expect "get_tuple by id: its own blob versions (a@1, b@1)" "a:1:$A1,b:1:$B1" "$(js '",".join("%s:%s:%s" % (b["channel"], b["version"], b["blob"]) for b in d["blobs"])' <<<"$tuple1")"
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

# --- put is idempotent ----------------------------------------------------------------------
before=$(q -c "select (select count(*) from langgraph_checkpoints where thread_id = '$T1') || '|' || (select count(*) from langgraph_checkpoint_blobs where thread_id = '$T1')")
as_api authenticated "$A" "$(put "$T1" "" "$ID2" "'$ID1'" "$(ckpt $ID2 '{"a":2,"b":1,"c":1}')" "$META2" "[{\"channel\":\"a\",\"version\":2,\"type\":\"bytes\",\"blob\":\"$A2\"}]")
$(put "$T1" "" "$ID2" "'$ID1'" "$(ckpt $ID2 '{"a":2,"b":1,"c":1}')" "$META2" "[{\"channel\":\"a\",\"version\":2,\"type\":\"bytes\",\"blob\":\"$A2\"}]")" commit >/dev/null
expect "put twice with the same args: same rows (one checkpoint)" "$before" "$(q -c "select (select count(*) from langgraph_checkpoints where thread_id = '$T1') || '|' || (select count(*) from langgraph_checkpoint_blobs where thread_id = '$T1')")"
expect "exactly one row for the re-put checkpoint" 1 "$(q -c "select count(*) from langgraph_checkpoints where thread_id = '$T1' and checkpoint_id = '$ID2'")"
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

# --- put_writes -----------------------------------------------------------------------------
W1=$(b64 '"w1"'); W2=$(b64 '"w2"'); E1=$(b64 '"err1"'); E2=$(b64 '"err2"')
expect "put_writes (normal channels) inserts" 2 "$(as_api authenticated "$A" "$(put_writes "$T1" "" "$ID2" task-b "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$W1\"},{\"idx\":1,\"channel\":\"y\",\"type\":\"json\",\"blob\":\"$W1\"}]")" commit)"
expect "put_writes again (normal): insert-once, nothing changes" 0 "$(as_api authenticated "$A" "$(put_writes "$T1" "" "$ID2" task-b "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$W2\"},{\"idx\":1,\"channel\":\"y\",\"type\":\"json\",\"blob\":\"$W2\"}]")" commit)"
expect "normal write kept its first value" "$W1" "$(as_api authenticated "$A" "select w ->> 'blob' from jsonb_array_elements(langgraph_get_tuple('$T1') -> 'writes') w where w ->> 'channel' = 'x';")"
expect "put_writes (special channel) upserts" "1|1" "$(as_api authenticated "$A" "$(put_writes "$T1" "" "$ID2" task-b "" "[{\"idx\":-1,\"channel\":\"__error__\",\"type\":\"json\",\"blob\":\"$E1\"}]")
$(put_writes "$T1" "" "$ID2" task-b "" "[{\"idx\":-1,\"channel\":\"__error__\",\"type\":\"json\",\"blob\":\"$E2\"}]")" commit | paste -sd'|')"
expect "special write holds the last value" "$E2|1" "$(as_api authenticated "$A" "select string_agg(w ->> 'blob', ',') || '|' || count(*) from jsonb_array_elements(langgraph_get_tuple('$T1') -> 'writes') w where w ->> 'channel' = '__error__';")"
expect "mixed special + normal: insert-once for all" "2|0" "$(as_api authenticated "$A" "$(put_writes "$T1" "" "$ID2" task-c "" "[{\"idx\":-3,\"channel\":\"__interrupt__\",\"type\":\"json\",\"blob\":\"$W1\"},{\"idx\":0,\"channel\":\"z\",\"type\":\"json\",\"blob\":\"$W1\"}]")
$(put_writes "$T1" "" "$ID2" task-c "" "[{\"idx\":-3,\"channel\":\"__interrupt__\",\"type\":\"json\",\"blob\":\"$W2\"},{\"idx\":0,\"channel\":\"z\",\"type\":\"json\",\"blob\":\"$W2\"}]")" commit | paste -sd'|')"
expect "idx defaults: WRITES_IDX_MAP for special channels, position otherwise" "-4|-2" "$(as_api authenticated "$A" "$(quiet put_writes "$T1" "" "$ID2" task-d "" "[{\"channel\":\"__resume__\",\"type\":\"json\",\"blob\":\"$W1\"},{\"channel\":\"__scheduled__\",\"type\":\"json\",\"blob\":\"$W1\"}]")
select string_agg(idx::text, '|' order by idx) from langgraph_checkpoint_writes where thread_id = '$T1' and task_id = 'task-d';" commit)"
# Ordering by (task_path, task_id, idx), by code point: 'B' < 'a'; task_path first.
as_api authenticated "$A" "$(put_writes "$T1" "" "$ID2" a "~1" "[{\"idx\":0,\"channel\":\"o\",\"type\":\"json\",\"blob\":\"$W1\"}]")
$(put_writes "$T1" "" "$ID2" B "~1" "[{\"idx\":1,\"channel\":\"o\",\"type\":\"json\",\"blob\":\"$W1\"},{\"idx\":0,\"channel\":\"o\",\"type\":\"json\",\"blob\":\"$W1\"}]")
$(put_writes "$T1" "" "$ID2" zz "" "[{\"idx\":0,\"channel\":\"o\",\"type\":\"json\",\"blob\":\"$W1\"}]")" commit >/dev/null
expect "writes ordered by task_path, task_id, idx (code points)" \
  ":task-b:-1,:task-b:0,:task-b:1,:task-c:-3,:task-c:0,:task-d:-4,:task-d:-2,:zz:0,~1:B:0,~1:B:1,~1:a:0" \
  "$(as_api authenticated "$A" "select langgraph_get_tuple('$T1');" | js '",".join("%s:%s:%s" % (w["task_path"], w["task_id"], w["idx"]) for w in d["writes"])')"
expect "write keys" "blob,channel,idx,task_id,task_path,type" "$(as_api authenticated "$A" "select langgraph_get_tuple('$T1');" | js '",".join(sorted(d["writes"][0]))')"
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
n=$(q -c "select (select count(*) from langgraph_checkpoints where thread_id = '$T2') + (select count(*) from langgraph_checkpoint_blobs where thread_id = '$T2') + (select count(*) from langgraph_checkpoint_writes where thread_id = '$T2')")
expect "delete_thread returns the rows deleted" "$n" "$(as_api authenticated "$A" "select langgraph_delete_thread('$T2');" commit)"
expect "deleted thread is gone" "0|" "$(as_api authenticated "$A" "select count(*) || '|' || coalesce(langgraph_get_tuple('$T2')::text, '') from langgraph_list('$T2');")"
expect "delete_thread of a missing thread" 0 "$(as_api authenticated "$A" "select langgraph_delete_thread('$T2');")"

# --- user B against A's thread ------------------------------------------------------------
rows_t1() { q -c "select (select count(*) from langgraph_checkpoints where thread_id = '$T1') || '|' || (select count(*) from langgraph_checkpoint_blobs where thread_id = '$T1') || '|' || (select count(*) from langgraph_checkpoint_writes where thread_id = '$T1') || '|' || (select md5(string_agg(metadata::text, ',' order by checkpoint_id)) from langgraph_checkpoints where thread_id = '$T1')"; }
t1_before=$(rows_t1)
expect "B: get_tuple of A's thread is null" "" "$(as_api authenticated "$B" "select langgraph_get_tuple('$T1');")"
expect "B: get_tuple of A's checkpoint by id is null" "" "$(as_api authenticated "$B" "select langgraph_get_tuple('$T1', '', '$ID2');")"
expect "B: list of A's thread is empty" 0 "$(as_api authenticated "$B" "select count(*) from langgraph_list('$T1');")"
expect "B: list of all threads shows none of A's" 0 "$(as_api authenticated "$B" "select count(*) from langgraph_list() t where t ->> 'thread_id' = '$T1';")"
expect "B: put of a new checkpoint into A's thread: 42501" 42501 "$(as_api authenticated "$B" "$(put "$T1" "" "$ID4" null "$(ckpt $ID4 '{"a":9}')" '{}' '[{"channel":"a","version":"9","type":"json","blob":null}]')
\\echo :SQLSTATE" commit)"
expect "B: put over A's existing checkpoint: 42501" 42501 "$(as_api authenticated "$B" "$(put "$T1" "" "$ID2" null "$(ckpt $ID2 '{}')" '{"hijacked":true}' '[]')
\\echo :SQLSTATE" commit)"
expect "B: put over A's existing blob key: 42501" 42501 "$(as_api authenticated "$B" "$(put "$T1" "" "$ID2" null "$(ckpt $ID2 '{}')" '{}' "[{\"channel\":\"a\",\"version\":\"2\",\"type\":\"json\",\"blob\":\"$W2\"}]")
\\echo :SQLSTATE" commit)"
expect "B: put_writes (normal) into A's thread: 42501" 42501 "$(as_api authenticated "$B" "$(put_writes "$T1" "" "$ID2" task-x "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$W2\"}]")
\\echo :SQLSTATE" commit)"
expect "B: put_writes (normal, existing key) into A's thread: 42501" 42501 "$(as_api authenticated "$B" "$(put_writes "$T1" "" "$ID2" task-b "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$W2\"}]")
\\echo :SQLSTATE" commit)"
expect "B: put_writes (special, existing key) into A's thread: 42501" 42501 "$(as_api authenticated "$B" "$(put_writes "$T1" "" "$ID2" task-b "" "[{\"idx\":-1,\"channel\":\"__error__\",\"type\":\"json\",\"blob\":\"$W2\"}]")
\\echo :SQLSTATE" commit)"
expect "B: delete_thread of A's thread deletes nothing" 0 "$(as_api authenticated "$B" "select langgraph_delete_thread('$T1');" commit)"
expect "B: direct UPDATE of A's rows touches nothing" 0 "$(as_api authenticated "$B" "with u as (update langgraph_checkpoints set metadata = '{}' where thread_id = '$T1' returning 1) select count(*) from u;" commit)"
expect "B: direct INSERT into A's thread: 42501" 42501 "$(as_api authenticated "$B" "insert into langgraph_checkpoint_writes (thread_id, checkpoint_id, task_id, idx, channel, blob) values ('$T1', '$ID2', 'evil', 7, 'x', '\\x00');
\\echo :SQLSTATE" commit)"
TB="$P-tb"
as_api authenticated "$B" "$(put "$TB" "" "$ID5" null "$(ckpt $ID5 '{}')" '{}' '[]')" commit >/dev/null
expect "B: own thread works" "$ID5" "$(as_api authenticated "$B" "select langgraph_get_tuple('$TB') ->> 'checkpoint_id';")"
expect "B: moving an own row into A's thread: 42501" 42501 "$(as_api authenticated "$B" "update langgraph_checkpoints set thread_id = '$T1' where thread_id = '$TB';
\\echo :SQLSTATE" commit)"
expect "A: cannot see or write B's thread" "0|42501" "$(as_api authenticated "$A" "select count(*) from langgraph_list('$TB');
$(put "$TB" "" "$ID2" null "$(ckpt $ID2 '{}')" '{}' '[]')
\\echo :SQLSTATE" | paste -sd'|')"
expect "A's rows intact after everything B tried" "$t1_before" "$(rows_t1)"
expect "thread_owner tells B only 'taken' (nil), not A's id" "00000000-0000-0000-0000-000000000000|$B|" \
  "$(as_api authenticated "$B" "select langgraph_thread_owner('$T1') || '|' || langgraph_thread_owner('$TB') || '|' || coalesce(langgraph_thread_owner('$P-free')::text, '');")"
expect "thread_owner tells service_role the real owner" "$A" "$(as_api service_role "" "select langgraph_thread_owner('$T1');")"

# Two users racing to be a new thread's first writer: the second is serialized and refused.
TR="$P-race"
as_api authenticated "$A" "$(quiet put "$TR" "" "$ID1" null "$(ckpt $ID1 '{}')" '{}' '[]')
select pg_sleep(1.5);" commit >/dev/null &
race=$!
sleep 0.5
race_state=$(as_api authenticated "$B" "$(put "$TR" "" "$ID2" null "$(ckpt $ID2 '{}')" '{}' '[]')
\\echo :SQLSTATE" commit)
wait "$race"
expect "race for a new thread: the second writer gets 42501" 42501 "$race_state"
expect "race for a new thread: only the first writer's rows" "$A" "$(q -c "select string_agg(distinct owner_id::text, ',') from langgraph_checkpoints where thread_id = '$TR'")"

# --- anon ------------------------------------------------------------------------------------
for stmt in "select count(*) from langgraph_checkpoints" "select count(*) from langgraph_checkpoint_blobs" \
  "select count(*) from langgraph_checkpoint_writes" "select langgraph_get_tuple('$T1')" \
  "select * from langgraph_list()" "$(put "$P-anon" "" "$ID1" null "$(ckpt $ID1 '{}')" '{}' '[]')" \
  "select langgraph_delete_thread('$T1')" "select langgraph_checkpoint_metrics()" \
  "select cleanup_old_checkpoints(30)" "select langgraph_thread_owner('$T1')"; do
  expect "anon denied: ${stmt:0:60}" 42501 "$(as_api anon "" "${stmt%;};
\\echo :SQLSTATE")"
done

# --- service_role ----------------------------------------------------------------------------
expect "service_role sees A's thread" 5 "$(as_api service_role "" "select count(*) from langgraph_list('$T1');")"
as_api service_role "" "$(put "$T1" "" "$ID3" "'$ID2'" "$(ckpt $ID3 '{"a":2}')" '{"by":"service"}' '[]')" commit >/dev/null
expect "service_role's write into A's thread inherits A as owner" "$A" "$(q -c "select owner_id from langgraph_checkpoints where thread_id = '$T1' and checkpoint_ns = '' and checkpoint_id = '$ID3'")"
expect "... and A sees it as the latest" "$ID3" "$(as_api authenticated "$A" "select langgraph_get_tuple('$T1') ->> 'checkpoint_id';")"
TS="$P-service"
as_api service_role "" "$(put "$TS" "" "$ID1" null "$(ckpt $ID1 '{}')" '{}' '[]')" commit >/dev/null
expect "service_role's new thread has no owner" "null" "$(q -c "select coalesce(owner_id::text, 'null') from langgraph_checkpoints where thread_id = '$TS'")"
expect "users cannot write into a service-owned thread" "42501|42501" "$(as_api authenticated "$A" "$(put "$TS" "" "$ID2" null "$(ckpt $ID2 '{}')" '{}' '[]')
\\echo :SQLSTATE
rollback; begin; set local role authenticated; select set_config('request.jwt.claims', '{\"sub\":\"$A\",\"role\":\"authenticated\"}', true) \\g /dev/null
$(put_writes "$TS" "" "$ID1" t "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$W1\"}]")
\\echo :SQLSTATE" | paste -sd'|')"

# --- cleanup_old_checkpoints -------------------------------------------------------------------
TC="$P-cleanup"
as_api authenticated "$A" "$(put "$TC" "" "$ID1" null "$(ckpt $ID1 '{"a":1}')" '{}' "[{\"channel\":\"a\",\"version\":\"1\",\"type\":\"json\",\"blob\":\"$W1\"}]")
$(put_writes "$TC" "" "$ID1" t "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$W1\"}]")
$(put "$TC" "" "$ID2" "'$ID1'" "$(ckpt $ID2 '{"a":2}')" '{}' "[{\"channel\":\"a\",\"version\":\"2\",\"type\":\"json\",\"blob\":\"$W2\"}]")
$(put "$TC" "" "$ID3" "'$ID2'" "$(ckpt $ID3 '{"a":2,"b":3}')" '{}' "[{\"channel\":\"b\",\"version\":\"3\",\"type\":\"json\",\"blob\":\"$W2\"}]")
$(put_writes "$TC" "" "$ID3" t "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$W1\"}]")
$(put "$TC" "n2" "$ID1" null "$(ckpt $ID1 '{"a":1}')" '{}' "[{\"channel\":\"a\",\"version\":\"1\",\"type\":\"json\",\"blob\":\"$W1\"}]")" commit >/dev/null
q -c "update langgraph_checkpoints set created_at = now() - interval '40 days' where thread_id = '$TC';
update langgraph_checkpoint_writes set created_at = now() - interval '40 days' where thread_id = '$TC';
update langgraph_checkpoint_blobs set created_at = now() - interval '40 days' where thread_id = '$TC'" >/dev/null
expect "cleanup(0) is 22023" 22023 "$(as_api authenticated "$A" "select cleanup_old_checkpoints(0);
\\echo :SQLSTATE")"
expect "cleanup(50): nothing is that old" 0 "$(as_api authenticated "$A" "select cleanup_old_checkpoints(50);")"
expect "cleanup by B leaves A's old checkpoints alone" 0 "$(as_api authenticated "$B" "select cleanup_old_checkpoints(30);" commit)"
expect "cleanup(30) deletes the 2 old non-latest checkpoints" 2 "$(as_api authenticated "$A" "select cleanup_old_checkpoints(30);" commit)"
expect "cleanup keeps the latest of each thread/namespace" ":$ID3,n2:$ID1" "$(q -c "select string_agg(checkpoint_ns || ':' || checkpoint_id, ',' order by checkpoint_ns) from langgraph_checkpoints where thread_id = '$TC'")"
expect "cleanup removes the deleted checkpoints' writes only" "$ID3" "$(q -c "select string_agg(distinct checkpoint_id, ',') from langgraph_checkpoint_writes where thread_id = '$TC'")"
expect "cleanup removes unreferenced blobs only" ":a:2,:b:3,n2:a:1" "$(q -c "select string_agg(checkpoint_ns || ':' || channel || ':' || version, ',' order by checkpoint_ns, channel) from langgraph_checkpoint_blobs where thread_id = '$TC'")"
expect "the kept latest checkpoint still loads whole" "a:2:$W2,b:3:$W2|1" "$(as_api authenticated "$A" "select langgraph_get_tuple('$TC');" | js '",".join("%s:%s:%s" % (b["channel"], b["version"], b["blob"]) for b in d["blobs"]) + "|" + str(len(d["writes"]))')"
expect "recent threads untouched by cleanup" "$ID3" "$(as_api authenticated "$A" "select langgraph_get_tuple('$T1') ->> 'checkpoint_id';")"

# --- metrics ---------------------------------------------------------------------------------
m=$(as_api authenticated "$A" "select langgraph_checkpoint_metrics('$T1');")
expect "metrics keys" "blob_bytes,blob_count,checkpoint_bytes,checkpoint_count,last_checkpoint_at,thread_count,total_bytes,write_bytes,write_count" "$(js '",".join(sorted(d))' <<<"$m")"
expect "metrics counts for A's thread" "$(q -c "select (select count(*) from langgraph_checkpoints where thread_id = '$T1') || '|' || (select count(*) from langgraph_checkpoint_writes where thread_id = '$T1') || '|' || (select count(*) from langgraph_checkpoint_blobs where thread_id = '$T1') || '|1'")" "$(js '"|".join(c(d[k]) for k in ("checkpoint_count", "write_count", "blob_count", "thread_count"))' <<<"$m")"
expect "metrics total_bytes = parts, > 300 (the 300-byte blob)" "true" "$(js 'd["total_bytes"] == d["checkpoint_bytes"] + d["blob_bytes"] + d["write_bytes"] and d["blob_bytes"] >= 300 and isinstance(d["last_checkpoint_at"], str)' <<<"$m")"
expect "metrics over all of A's threads" "$(q -c "select count(distinct thread_id) from langgraph_checkpoints where owner_id = '$A'")" "$(as_api authenticated "$A" "select langgraph_checkpoint_metrics() ->> 'thread_count';")"
expect "metrics of A's thread as B: zero" "0|0|null" "$(as_api authenticated "$B" "select langgraph_checkpoint_metrics('$T1');" | js '"|".join(c(d[k]) for k in ("checkpoint_count", "total_bytes", "last_checkpoint_at"))')"

# --- opt-in deal-scoped access (applied in a transaction, rolled back) ---------------------------
DEAL=3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b
org=$(cat /proc/sys/kernel/random/uuid)
deal=$(cat /proc/sys/kernel/random/uuid)
TD="cim-$deal-$P"
as() { # sub: switch to authenticated with that user's claims, inside the transaction
  printf "set local role authenticated;\nselect set_config('request.jwt.claims', '{\"sub\":\"%s\",\"role\":\"authenticated\"}', true) \\\\g /dev/null\n" "$1"
}
: >"$ERR"
deal_out=$("$PG" psql -X -q -At -v ON_ERROR_STOP=0 2>>"$ERR" <<EOF
begin;
\i $ROOT/supabase/optional/langgraph_deal_scoped.sql
\i $ROOT/supabase/optional/langgraph_deal_scoped.sql
\echo applied :SQLSTATE
select 'extract|' || string_agg(coalesce(extract_deal_id_from_thread(t)::text, 'null'), ',' order by o)
  from unnest(array['cim-$DEAL-x', 'cim-$DEAL', 'supervisor-$DEAL-1', 'cim-' || upper('$DEAL') || '-x',
                    'CIM-$DEAL-x', ' cim-$DEAL-x', 'cim-' || repeat('-', 36),
                    'cim-3f2b-8a9e-1c4d-4e5f-9a0b1c2d3e4f5a6b', 'cim-3f2b8a9e1c4d4e5f9a0b1c2d3e4f5a6b----',
                    'cim-3f2b8a9e1c4d4e5f9a0b1c2d3e4f5a6b-abc', 'cim-3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6',
                    'cim--3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6', 'supervisorx-$DEAL', 'deal-$DEAL', '']) with ordinality as u(t, o);
insert into organizations (id, name) values ('$org', 'org');
insert into deals (id, organization_id, name) values ('$deal', '$org', 'deal');
insert into organization_members (organization_id, user_id) values ('$org', '$A'), ('$org', '$B');
$(as "$A")
$(quiet put "$TD" "" "$ID1" null "$(ckpt $ID1 '{"a":1}')" '{"deal":true}' "[{\"channel\":\"a\",\"version\":\"1\",\"type\":\"json\",\"blob\":\"$W1\"}]")
$(quiet put_writes "$TD" "" "$ID1" t "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$W1\"}]")
reset role;
$(as "$B")
select 'member_get|' || (langgraph_get_tuple('$TD') ->> 'checkpoint_id') || '|' || jsonb_array_length(langgraph_get_tuple('$TD') -> 'blobs') || '|' || jsonb_array_length(langgraph_get_tuple('$TD') -> 'writes');
select 'member_list|' || count(*) from langgraph_list('$TD');
select 'member_other_thread|' || count(*) from langgraph_list('$T1');
savepoint s1;
$(quiet put "$TD" "" "$ID2" "'$ID1'" "$(ckpt $ID2 '{"a":2}')" '{}' "[{\"channel\":\"a\",\"version\":\"2\",\"type\":\"json\",\"blob\":\"$W2\"}]")
\echo member_put :SQLSTATE
rollback to savepoint s1;
savepoint s5;
$(quiet put "$TD" "" "$ID1" null "$(ckpt $ID1 '{"a":1}')" '{"deal":true,"by":"member"}' '[]')
\echo member_reput :SQLSTATE
select 'member_reput_owner|' || (owner_id = '$A') || '|' || (metadata ->> 'by') from langgraph_checkpoints where thread_id = '$TD' and checkpoint_id = '$ID1';
rollback to savepoint s5;
savepoint s2;
update langgraph_checkpoints set owner_id = '$C' where thread_id = '$TD';
\echo member_plant :SQLSTATE
rollback to savepoint s2;
reset role;
$(as "$C")
select 'outsider_get|' || coalesce(langgraph_get_tuple('$TD')::text, 'null');
select 'outsider_list|' || count(*) from langgraph_list('$TD');
savepoint s3;
$(quiet put "$TD" "" "$ID3" null "$(ckpt $ID3 '{}')" '{}' '[]')
\echo outsider_put :SQLSTATE
rollback to savepoint s3;
savepoint s4;
$(quiet put_writes "$TD" "" "$ID1" t2 "" "[{\"idx\":0,\"channel\":\"x\",\"type\":\"json\",\"blob\":\"$W1\"}]")
\echo outsider_put_writes :SQLSTATE
rollback to savepoint s4;
select 'outsider_delete|' || langgraph_delete_thread('$TD');
reset role;
select 'rows_after|' || count(*) from langgraph_checkpoints where thread_id = '$TD';
rollback;
select 'rolled_back|' || (to_regprocedure('public.langgraph_deal_member(text)') is null) || '|' || count(*) from langgraph_checkpoints where thread_id = '$TD';
EOF
) || fail "deal-scoped session: psql failed"
field() { grep "^$1[| ]" <<<"$deal_out" | head -1 | cut -d'|' -f2- | sed "s/^$1 //"; }
expect "deal-scoped file applies (twice) in a transaction" "00000" "$(field applied)"
expect "extract_deal_id_from_thread agrees with src/ids/thread.rs extract_deal_id" \
  "$DEAL,$DEAL,$DEAL,null,null,null,null,$DEAL,null,null,null,null,null,null,null" "$(field extract)"
expect "member of the deal's org reads a cim thread another user wrote" "$ID1|1|1" "$(field member_get)"
expect "member lists it" 1 "$(field member_list)"
expect "membership does not open the writer's other threads" 0 "$(field member_other_thread)"
expect "member may continue the deal thread" "00000" "$(field member_put)"
expect "member may re-put a colleague's checkpoint (upsert)" "00000" "$(field member_reput)"
expect "... which keeps the colleague as the row's owner" "true|member" "$(field member_reput_owner)"
expect "member cannot plant rows under a third party's id" 42501 "$(field member_plant)"
expect "non-member cannot read it" "null" "$(field outsider_get)"
expect "non-member cannot list it" 0 "$(field outsider_list)"
expect "non-member put into it: 42501" 42501 "$(field outsider_put)"
expect "non-member put_writes into it: 42501" 42501 "$(field outsider_put_writes)"
expect "non-member delete_thread deletes nothing" 0 "$(field outsider_delete)"
expect "deal thread intact" 1 "$(field rows_after)"
expect "the transaction left nothing behind" "true|0" "$(field rolled_back)"

log "checkpoint SQL test passed: $checks checks"
