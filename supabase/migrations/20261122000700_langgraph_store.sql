-- LangGraph long-term memory: the tables and the one function behind AgentmemStore
-- (agentmem-supabase/langgraph), LangGraph's BaseStore over PostgREST.
--
-- Creates: tables langgraph_store_items, langgraph_store_vectors; functions
--          langgraph_store_batch, langgraph_store_sweep, langgraph_store_dimensions,
--          set_langgraph_store_dimensions, set_embedding_dimensions (both embedding
--          columns at once); helpers agentmem.langgraph_store_number,
--          agentmem.langgraph_store_matches, agentmem.langgraph_store_list,
--          agentmem.langgraph_store_labels, agentmem.langgraph_store_search,
--          agentmem.langgraph_store_config,
--          agentmem.langgraph_store_like, agentmem.langgraph_store_after, agentmem.langgraph_store_refresh,
--          agentmem.langgraph_store_bookkeeping.
-- Needs:   20261121000100_tenancy.sql, 20261121000000_extensions.sql (pgvector).
--
-- An item is (namespace, key) → a JSON object, in the caller's tenant like every agentmem
-- row (20261121000100_tenancy.sql): a user's namespaces are their own, the service role's
-- are its own unless it acts for a user, and another tenant's items, namespaces and counts
-- are invisible (an answer about them is the answer about a missing item).
--
-- A namespace is a text[] of labels compared label by label: ["users", "1"] is a prefix of
-- ["users", "1", "prefs"] and not of ["users", "10"]. Labels are opaque text; no character
-- is special to the database (LangGraph's own check refuses "", ".", ":" and NUL before
-- anything is sent).
--
-- langgraph_store_batch(p_ops) runs a whole BaseStore.batch() in one request and one
-- transaction, with InMemoryStore's semantics: every read (get, search, list) sees the
-- state before the batch's writes; then the puts and deletes apply in order. The facade
-- sends each key's last write once, in the order of its first one, with the embeddings of
-- the texts to index; the database never calls an embedding API.
--
-- Ordering, as InMemoryStore's: a search without a query lists items by when their
-- namespace last came into being (ns_order), then by when their key was created in it
-- (item_order; an overwrite keeps its place, a delete and a new put move it to the end). A
-- search with a query ranks by the best cosine similarity of the item's vectors (the same
-- order for equal scores); items without vectors follow, up to the limit. Similarity is
-- exact (no approximate index): a search reads the caller's items under the prefix only.
-- A search may instead name one of PostgresStore's modes (vector, text, hybrid), a
-- distance metric and a similarity threshold: see agentmem.langgraph_store_search.
--
-- TTL (minutes), as LangGraph's TTLConfig: a put may carry ttl_minutes; expires_at is then
-- now + ttl, and a read that asks for it (refresh) moves expires_at forward again without
-- touching updated_at. Expired items are never returned, and a put over one creates a new
-- item. langgraph_store_sweep() deletes expired items: the caller's, or every tenant's for
-- the service role (schedule it with pg_cron: select public.langgraph_store_sweep();).
--
-- Embedding dimension: vector(384), changed the way agent_memories' is:
--   select public.set_langgraph_store_dimensions(1536);   -- as postgres or service_role
--
-- Bounds, each 22023 naming the operation and what is too large:
--   namespace + key  the labels' and the key's UTF-8 bytes plus 8 per label, at most 2,048
--                    (as stored, a label takes its bytes plus 4, rounded up to 4: with
--                    the tenant, the key and an indexed field this always fits the primary
--                    keys' index entries, whose limit is 2,704 bytes)
--   indexed field    a path of at most 256 bytes of UTF-8
--   value            a JSON object of at most 1 MiB of JSON text
--   document         the full-text document (the indexed fields' texts) at most 2 MiB
--   batch            at most 10,000 operations and 32 MiB of JSON text
--   vector           the column's dimension (langgraph_store_dimensions()), checked
--                    before the vector is built
-- Errors (SQLSTATE): 22023 malformed operation or a bound exceeded; 42501 / PT401 as every
-- agentmem function (no identity, an acting header for no user).
--
-- The batch function is the tables' only door for the API roles (see
-- 20261121000100_tenancy.sql): it runs as the owner and reads and writes the caller's
-- tenant only. Writes to one namespace of a tenant are serialised (transaction-level
-- advisory locks, taken in one order for all the namespaces a batch writes), so
-- concurrent batches never deadlock, concurrent puts of one key end with one of the
-- values, and writers of other namespaces (another visitor of the same server) never wait.
--
-- Re-runnable, like every agentmem SQL file (see 20261121000100_tenancy.sql).

-- The size bound of a namespace and key (see Bounds above): their UTF-8 bytes plus 8 per
-- label. Immutable, for the table's CHECK.
create or replace function agentmem.langgraph_store_size(p_namespace text[], p_key text)
returns integer
language sql
immutable
set search_path = ''
as $$
  select coalesce((select pg_catalog.sum(pg_catalog.octet_length(l) + 8)::integer from pg_catalog.unnest(p_namespace) l), 0)
         + coalesce(pg_catalog.octet_length(p_key), 0)
$$;

-- Tables ----------------------------------------------------------------------------------

create table if not exists public.langgraph_store_items (
  tenant_id   uuid not null default agentmem.tenant(),
  -- Labels and keys compare byte by byte ("C"): equality is the same in every collation,
  -- and sorting and joining on them then costs no locale-aware comparison.
  namespace   text[] collate "C" not null
                constraint langgraph_store_items_namespace_check
                check (cardinality(namespace) >= 1 and array_position(namespace, null) is null),
  key         text collate "C" not null,
  value       jsonb not null
                constraint langgraph_store_items_value_check check (jsonb_typeof(value) = 'object'),
  created_at  timestamptz not null default now(),
  updated_at  timestamptz not null default now(),
  expires_at  timestamptz,
  ttl_minutes double precision
                constraint langgraph_store_items_ttl_minutes_check
                check (ttl_minutes > 0 and ttl_minutes <= 5256000000),
  ns_order    bigint,
  item_order  bigint generated always as identity,
  primary key (tenant_id, namespace, key),
  constraint langgraph_store_items_size_check check (agentmem.langgraph_store_size(namespace, key) <= 2048)
);

comment on table public.langgraph_store_items is
  'LangGraph BaseStore items (AgentmemStore), per tenant. RLS: a user sees only own rows.';

create table if not exists public.langgraph_store_vectors (
  tenant_id uuid not null default agentmem.tenant(),
  namespace text[] collate "C" not null,
  key       text collate "C" not null,
  -- The indexed path ("$", "text", "tags.0", ...), as InMemoryStore names it.
  field     text not null
              constraint langgraph_store_vectors_field_check check (octet_length(field) <= 256),
  embedding extensions.vector(384) not null,
  primary key (tenant_id, namespace, key, field),
  constraint langgraph_store_vectors_item_fkey foreign key (tenant_id, namespace, key)
    references public.langgraph_store_items (tenant_id, namespace, key) on delete cascade
);

comment on table public.langgraph_store_vectors is
  'Embeddings of the indexed fields of langgraph_store_items (cosine); dimension: langgraph_store_dimensions().';
-- Each embedding in its row: a search measures every vector under its namespace prefix.
select agentmem.keep_vectors_in_line('public.langgraph_store_vectors', 'embedding');

-- The bounds on an install that predates them.
select agentmem.ensure_check('public.langgraph_store_items', 'langgraph_store_items_size_check',
                             'agentmem.langgraph_store_size(namespace, key) <= 2048');
select agentmem.ensure_check('public.langgraph_store_vectors', 'langgraph_store_vectors_field_check',
                             'octet_length(field) <= 256');

-- The full-text document of an item: the texts of its indexed fields (index.fields, or
-- the put's own paths; the whole value without an index configuration), joined by line
-- breaks, as the facade sends them (search_text), or, when the one indexed field is the
-- whole value, the value's own JSON text (search_text null, nothing stored twice); no
-- document for a put with index: false (search_config null). Its tsvector is computed
-- when it is written, in the text search configuration the put names (search_config); a
-- search in another configuration computes it again from the text.
alter table public.langgraph_store_items add column if not exists search_text text;
alter table public.langgraph_store_items add column if not exists search_config regconfig;
alter table public.langgraph_store_items add column if not exists search_vector tsvector;

-- Items that expire: what the sweep deletes, and whether a read has anything to refresh.
create index if not exists langgraph_store_items_expiring_idx on public.langgraph_store_items (tenant_id, expires_at)
  where ttl_minutes is not null;

-- Row-level security and grants -----------------------------------------------------------

select agentmem.protect('public.langgraph_store_items', 'tenant_id', p_immutable => '{ns_order}');
select agentmem.protect('public.langgraph_store_vectors', 'tenant_id');

-- Bookkeeping: created_at on insert; updated_at on every write but a TTL refresh (the
-- batch function marks those); ns_order: the namespace's place, taken from the item's own
-- item_order when the put found no living item in the namespace.
create or replace function agentmem.langgraph_store_bookkeeping()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    new.created_at := pg_catalog.now();
    new.updated_at := new.created_at;
    new.ns_order := coalesce(new.ns_order, new.item_order);
  else
    new.created_at := old.created_at;
    new.updated_at := case when pg_catalog.current_setting('agentmem.store_refresh', true) = 'on'
                           then old.updated_at else pg_catalog.now() end;
  end if;
  return new;
end;
$$;

select agentmem.keep_bookkeeping('public.langgraph_store_items', 'agentmem.langgraph_store_bookkeeping');

-- Functions -------------------------------------------------------------------------------

-- The embedding column's dimension (its vector(N) type modifier).
create or replace function public.langgraph_store_dimensions()
returns integer
language sql
stable
security invoker
set search_path = public, extensions
as $$
  select agentmem.vector_dimensions('public.langgraph_store_vectors', 'embedding')
   where agentmem.tenant() is not null -- refuses callers without an identity
$$;

comment on function public.langgraph_store_dimensions() is
  'The dimension of langgraph_store_vectors.embedding (384 unless set_langgraph_store_dimensions changed it).';

create or replace function public.set_langgraph_store_dimensions(p_dimensions integer)
returns jsonb
language sql
volatile
security definer
set search_path = public, extensions
as $$
  -- At most 16000: pgvector's limit (no HNSW index here).
  select agentmem.set_vector_dimensions('public.langgraph_store_vectors', 'embedding', p_dimensions, 16000,
    'delete them (delete from langgraph_store_vectors)')
$$;

comment on function public.set_langgraph_store_dimensions(integer) is
  'Changes langgraph_store_vectors.embedding to vector(p_dimensions); refused (55000) while any embedding is stored. postgres / service_role only.';

-- set_embedding_dimensions: one embedding size for both memories, set in one place: the
-- memory tools' agent_memories.embedding (when that part is installed) and the store's
-- langgraph_store_vectors.embedding, in one transaction (refused for both when either
-- holds embeddings). For the service role only, as the two it calls.
create or replace function public.set_embedding_dimensions(p_dimensions integer)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_memories jsonb;
begin
  if not agentmem.is_service() then
    raise exception 'changing the embedding dimensions is for the service role only' using errcode = '42501';
  end if;
  -- By name at run time: a project may have installed the store without the memory tools.
  if pg_catalog.to_regprocedure('public.set_agent_memory_dimensions(integer)') is not null then
    execute 'select public.set_agent_memory_dimensions($1)' into v_memories using p_dimensions;
  end if;
  return pg_catalog.jsonb_build_object('agent_memories', v_memories,
                                       'langgraph_store_vectors', public.set_langgraph_store_dimensions(p_dimensions));
end;
$$;

comment on function public.set_embedding_dimensions(integer) is
  'Sets the embedding size of the memory tools (agent_memories, when installed) and of the LangGraph store (langgraph_store_vectors) at once; refused (55000) while either stores embeddings. postgres / service_role only.';

-- A JSON value as JavaScript's Number() reads it, which is how InMemoryStore compares with
-- $gt / $gte / $lt / $lte: null is 0, booleans 0 / 1, numeric text its number ("" and
-- blanks 0, hex / octal / binary literals, Infinity), a one-element array its element;
-- anything else NaN, returned as null (every comparison with it is false).
create or replace function agentmem.langgraph_store_number(p jsonb)
returns double precision
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_text text;
begin
  case pg_catalog.jsonb_typeof(p)
    when 'number' then return (p::text)::double precision;
    when 'boolean' then return case when p = 'true'::jsonb then 1 else 0 end;
    when 'null' then return 0;
    when 'array' then
      if pg_catalog.jsonb_array_length(p) = 0 then return 0; end if;
      if pg_catalog.jsonb_array_length(p) > 1 then return null; end if;
      -- String([x]) is String(x): null gives "", so 0; a boolean's text is not a number.
      if pg_catalog.jsonb_typeof(p -> 0) in ('null') then return 0; end if;
      if pg_catalog.jsonb_typeof(p -> 0) in ('boolean', 'object') then return null; end if;
      return agentmem.langgraph_store_number(p -> 0);
    when 'string' then
      v_text := pg_catalog.btrim(p #>> '{}', e' \t\n\r\v\f\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff');
      if v_text = '' then return 0; end if;
      if v_text ~ '^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$' then
        return v_text::double precision;
      end if;
      if v_text ~ '^[+-]?Infinity$' then
        return case when v_text like '-%' then '-Infinity'::double precision else 'Infinity'::double precision end;
      end if;
      if v_text ~* '^0x[0-9a-f]+$' then
        return (('x' || pg_catalog.lpad(pg_catalog.substr(v_text, 3), 16, '0'))::bit(64)::bigint)::double precision;
      end if;
      if v_text ~* '^0o[0-7]+$' or v_text ~* '^0b[01]+$' then
        return (select sum((pg_catalog.substr(v_text, 3 + i, 1))::int
                           * power(case when v_text ~* '^0o' then 8 else 2 end,
                                   pg_catalog.length(v_text) - 3 - i))
                  from pg_catalog.generate_series(0, pg_catalog.length(v_text) - 3) i);
      end if;
      return null;
    else return null;
  end case;
exception when numeric_value_out_of_range or invalid_text_representation then
  return null;
end;
$$;

-- Whether an item's value passes a search filter: every key of the filter names a field of
-- the value (top level, the key taken literally). A filter value that is an object of
-- operators ($eq $ne $gt $gte $lt $lte $in $nin, all of which must hold) compares as
-- InMemoryStore does: $eq / $ne by JSON equality (5 is not "5"; a missing field is never
-- equal, so $ne keeps it), the ordering operators through Number() (above), $in / $nin by
-- membership in an array. Another object matches a nested object field by field; any
-- other value must be equal as JSON (null matches null, not a missing field).
create or replace function agentmem.langgraph_store_matches(p_value jsonb, p_filter jsonb)
returns boolean
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_key text;
  v_want jsonb;
  v_have jsonb;
  v_op text;
  v_arg jsonb;
  v_a double precision;
  v_b double precision;
begin
  if p_filter is null or pg_catalog.jsonb_typeof(p_filter) = 'null' then
    return true;
  end if;
  for v_key, v_want in select * from pg_catalog.jsonb_each(p_filter) loop
    v_have := case when pg_catalog.jsonb_typeof(p_value) = 'object' then p_value -> v_key end;
    if pg_catalog.jsonb_typeof(v_want) = 'object'
       and not exists (select 1 from pg_catalog.jsonb_object_keys(v_want) k
                        where k not in ('$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin')) then
      for v_op, v_arg in select * from pg_catalog.jsonb_each(v_want) loop
        if v_op in ('$gt', '$gte', '$lt', '$lte') then
          v_a := case when v_have is null then null else agentmem.langgraph_store_number(v_have) end;
          v_b := agentmem.langgraph_store_number(v_arg);
          if v_a is null or v_b is null or v_a = 'NaN' or v_b = 'NaN' then
            return false;
          end if;
          if (v_op = '$gt' and v_a <= v_b) or (v_op = '$gte' and v_a < v_b)
             or (v_op = '$lt' and v_a >= v_b) or (v_op = '$lte' and v_a > v_b) then
            return false;
          end if;
        elsif v_op = '$eq' then
          if v_have is null or v_have <> v_arg then return false; end if;
        elsif v_op = '$ne' then
          if v_have is not null and v_have = v_arg then return false; end if;
        elsif v_op = '$in' then
          if pg_catalog.jsonb_typeof(v_arg) <> 'array' or v_have is null
             or not exists (select 1 from pg_catalog.jsonb_array_elements(v_arg) e where e = v_have) then
            return false;
          end if;
        else -- $nin
          if pg_catalog.jsonb_typeof(v_arg) = 'array' and v_have is not null
             and exists (select 1 from pg_catalog.jsonb_array_elements(v_arg) e where e = v_have) then
            return false;
          end if;
        end if;
      end loop;
    elsif pg_catalog.jsonb_typeof(v_want) = 'object' then
      if exists (select 1 from pg_catalog.jsonb_object_keys(v_want) k where k like '$%') then
        raise exception 'filter.%: unknown operator in %; the operators are $eq $ne $gt $gte $lt $lte $in $nin',
          v_key, v_want using errcode = '22023';
      end if;
      if pg_catalog.jsonb_typeof(v_have) is distinct from 'object'
         or not agentmem.langgraph_store_matches(v_have, v_want) then
        return false;
      end if;
    elsif v_have is null or v_have <> v_want then
      return false;
    end if;
  end loop;
  return true;
end;
$$;

-- Whether labels match a pattern of as many labels, "*" matching any one.
create or replace function agentmem.langgraph_store_like(p_labels text[], p_pattern text[])
returns boolean
language sql
immutable
set search_path = ''
as $$
  select not exists (select 1 from pg_catalog.generate_subscripts(p_pattern, 1) j
                      where p_pattern[j] <> '*' and p_pattern[j] is distinct from p_labels[j])
$$;

-- listNamespaces: the caller's namespaces (of living items) that meet every condition
-- ([{"type": "prefix"|"suffix", "path": [labels]}], "*" in a path matching any one label),
-- cut to p_max_depth, distinct. The conditions of each type are merged into one pattern
-- first (two prefixes that disagree on a label match nothing), so a namespace costs one
-- array comparison per type.
create or replace function agentmem.langgraph_store_list(p_tenant uuid, p_conditions jsonb, p_max_depth integer)
returns jsonb
language plpgsql
stable
-- As the owner, for the primary key's range (see agentmem.langgraph_store_search), and
-- only for the caller's own tenant.
security definer
set search_path = ''
-- Its statements planned once per connection: left to choose, the plan cache planned the
-- listing again on every call (its estimate of a generic plan for a key range it cannot
-- see is above a custom plan's), 40-70 µs a call, as much as the scan of 100 items.
set plan_cache_mode = force_generic_plan
-- Each step to the next namespace is a walk of the primary key that stops at its first
-- item; a sequential or bitmap scan would read the whole range at every step.
set enable_seqscan = off
set enable_bitmapscan = off
as $$
declare
  v_condition jsonb;
  v_path      text[];
  v_prefix    text[] collate "C";
  v_suffix    text[] collate "C";
  v_merged    text[];
  v_fixed     text[] collate "C";
  v_after     text[] collate "C";
  v_n         integer;
  v_result    jsonb;
begin
  if p_tenant is distinct from agentmem.tenant() then
    raise exception 'agentmem: namespaces are listed for the caller''s own tenant only' using errcode = '42501';
  end if;
  for v_condition in select * from pg_catalog.jsonb_array_elements(coalesce(p_conditions, '[]'::jsonb)) loop
    v_path := agentmem.langgraph_store_labels(v_condition -> 'path', 'list');
    v_merged := case when v_condition ->> 'type' = 'suffix' then v_suffix else v_prefix end;
    v_n := greatest(pg_catalog.cardinality(v_path), coalesce(pg_catalog.cardinality(v_merged), 0));
    -- Suffixes align at their ends: pad the shorter one with wildcards in front.
    if v_condition ->> 'type' = 'suffix' then
      v_path := pg_catalog.array_fill('*'::text, array[v_n - pg_catalog.cardinality(v_path)]) || v_path;
      v_merged := pg_catalog.array_fill('*'::text, array[v_n - coalesce(pg_catalog.cardinality(v_merged), 0)]) || coalesce(v_merged, '{}');
    else
      v_path := v_path || pg_catalog.array_fill('*'::text, array[v_n - pg_catalog.cardinality(v_path)]);
      v_merged := coalesce(v_merged, '{}') || pg_catalog.array_fill('*'::text, array[v_n - coalesce(pg_catalog.cardinality(v_merged), 0)]);
    end if;
    for j in 1 .. v_n loop
      if v_merged[j] = '*' then
        v_merged[j] := v_path[j];
      elsif v_path[j] <> '*' and v_path[j] <> v_merged[j] then
        return '[]'::jsonb;
      end if;
    end loop;
    if v_condition ->> 'type' = 'suffix' then v_suffix := v_merged; else v_prefix := v_merged; end if;
  end loop;
  -- The prefix's labels before its first wildcard narrow the scan to one key range.
  v_fixed := coalesce(v_prefix[1:coalesce(pg_catalog.array_position(v_prefix, '*') - 1, pg_catalog.cardinality(v_prefix))], '{}');
  -- That range holds exactly the namespaces that start with those labels: a prefix without
  -- a wildcard needs no test (a function call per namespace).
  if pg_catalog.array_position(v_prefix, '*') is null then
    v_prefix := null;
  end if;
  v_after := agentmem.langgraph_store_after(v_fixed);
  -- The namespaces of that range, stepping from one to the next in the primary key (one
  -- index probe per namespace, not a read of every item: 0.3 ms for a namespace of 5,000
  -- items instead of 2.8, about 40 µs more for 10 namespaces of 10), then the tests of
  -- the pattern and the depth on each namespace once.
  with recursive n(ns) as (
    select (select i.namespace from public.langgraph_store_items i
             where i.tenant_id = p_tenant and i.namespace >= v_fixed and i.namespace < v_after
               and (i.expires_at is null or i.expires_at > pg_catalog.now())
             order by i.namespace limit 1)
    union all
    select (select i.namespace from public.langgraph_store_items i
             where i.tenant_id = p_tenant and i.namespace > n.ns and i.namespace < v_after
               and (i.expires_at is null or i.expires_at > pg_catalog.now())
             order by i.namespace limit 1)
      from n where n.ns is not null
  )
  select coalesce(pg_catalog.jsonb_agg(pg_catalog.to_jsonb(d.ns)), '[]'::jsonb) into v_result
    from (select distinct case when p_max_depth is null then n.ns else n.ns[1:p_max_depth] end as ns
            from n
           where n.ns is not null
             and (v_prefix is null
                  or (pg_catalog.cardinality(n.ns) >= pg_catalog.cardinality(v_prefix)
                      and agentmem.langgraph_store_like(n.ns[1:pg_catalog.cardinality(v_prefix)], v_prefix)))
             and (v_suffix is null
                  or (pg_catalog.cardinality(n.ns) >= pg_catalog.cardinality(v_suffix)
                      and agentmem.langgraph_store_like(
                            n.ns[pg_catalog.cardinality(n.ns) - pg_catalog.cardinality(v_suffix) + 1:],
                            v_suffix)))) d;
  return v_result;
end;
$$;

-- A namespace from JSON (an array of strings), or 22023 naming the operation.
create or replace function agentmem.langgraph_store_labels(p jsonb, p_what text)
returns text[]
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_labels text[] := '{}';
begin
  if pg_catalog.jsonb_typeof(p) is distinct from 'array' then
    raise exception '%: a namespace must be an array of strings', p_what using errcode = '22023';
  end if;
  -- Label by label, as simple expressions: no query (2 µs a call, not 6.5; a batch's puts
  -- call it once per item).
  for v_at in 0 .. pg_catalog.jsonb_array_length(p) - 1 loop
    if pg_catalog.jsonb_typeof(p -> v_at) <> 'string' then
      raise exception '%: a namespace must be an array of strings', p_what using errcode = '22023';
    end if;
    v_labels := v_labels || (p ->> v_at);
  end loop;
  return v_labels;
end;
$$;

-- The namespaces under a prefix are one range of the primary key: every namespace that
-- starts with the labels p is >= p and < this bound (p's last label followed by the
-- smallest character; labels compare byte by byte). For no labels: an array with a NULL
-- element, which sorts after every namespace (they hold no NULLs).
create or replace function agentmem.langgraph_store_after(p text[])
returns text[]
language sql
immutable
set search_path = ''
as $$
  select case when pg_catalog.cardinality(p) = 0 then '{NULL}'::text[]
              else p[1:pg_catalog.cardinality(p) - 1] || (p[pg_catalog.cardinality(p)] || pg_catalog.chr(1)) end
$$;

-- A text search configuration by name ("english", or "schema.name" for one of the
-- project's own), or 22023 naming it. Unqualified names are pg_catalog's.
create or replace function agentmem.langgraph_store_config(p_name text)
returns regconfig
language plpgsql
stable
set search_path = ''
as $$
declare
  v_schema text := case when pg_catalog.strpos(p_name, '.') > 0 then pg_catalog.split_part(p_name, '.', 1) else 'pg_catalog' end;
  v_name   text := case when pg_catalog.strpos(p_name, '.') > 0 then pg_catalog.split_part(p_name, '.', 2) else p_name end;
  v_config regconfig;
begin
  select c.oid::regconfig into v_config
    from pg_catalog.pg_ts_config c join pg_catalog.pg_namespace n on n.oid = c.cfgnamespace
   where n.nspname = pg_catalog.lower(v_schema) and c.cfgname = pg_catalog.lower(v_name);
  if v_config is null then
    raise exception 'no text search configuration named % (textSearchLanguage: one of select cfgname from pg_ts_config, or schema.name)',
      coalesce(pg_catalog.quote_literal(p_name), 'null') using errcode = '22023';
  end if;
  return v_config;
end;
$$;

-- One search: the caller's living items under the prefix that pass the filter, ranked and
-- paged. p_how (the search operation of langgraph_store_batch) says how:
--   mode absent: InMemoryStore's ranking (the top of this file): with p_vector, by
--     similarity, then the items without vectors while the page has room; without, every
--     item unranked. With a threshold, only the items that reach it, nothing unranked.
--   "vector": PostgresStore's vector search: only items with vectors, by similarity; with
--     a threshold, only those whose similarity reaches it.
--   "text": PostgresStore's full-text search: items whose document matches
--     websearch_to_tsquery(config, query), or contains the query as a substring (any
--     case), ranked by ts_rank (normalization 0; a substring-only match ranks 0).
--   "hybrid": PostgresStore's hybrid search: items with vectors whose document matches
--     the query or whose similarity reaches the threshold (default 0), ranked by
--     vectorWeight * similarity + (1 - vectorWeight) * ts_rank (vectorWeight default 0.7).
-- Similarity is the best of the item's vectors in p_how.metric: cosine 1 - cosine
-- distance (0 for a zero vector), l2 1 / (1 + Euclidean distance), inner_product the inner
-- product. Equal scores keep InMemoryStore's order (namespace, then item). Exact: every
-- vector and document of the caller's items under the prefix is read; nothing
-- approximate stands between a search and its results.
create or replace function agentmem.langgraph_store_search(p_tenant uuid, p_prefix text[], p_filter jsonb,
                                                           p_vector extensions.vector, p_limit integer, p_offset integer,
                                                           p_how jsonb default null)
returns jsonb
language plpgsql
stable
-- As the owner, so that row-level security does not stand between the query and the
-- primary key: under it, the prefix's range (array comparisons, not leakproof) could
-- only filter the tenant's rows after reading them all. The tenant is the caller's (the
-- condition on agentmem.tenant() below), exactly what the policies would allow.
security definer
set search_path = ''
-- The planner cannot know how many of a tenant's items a prefix holds (it guesses one) and
-- would join items to scores in a nested loop, quadratic in the items under the prefix.
set enable_nestloop = off
-- The items under the prefix from the primary key's range, whatever the statistics say:
-- where a caller's items are a large share of the table, the planner hashed a sequential
-- scan of every tenant's items instead (seen after a few bulk loads: 25,000 rows read for
-- the 5,000 under the prefix, 44 ms against 23-27 through the range).
set enable_seqscan = off
-- websearch_to_tsquery tells the client, as a NOTICE, when a query has only stop words.
set client_min_messages = warning
as $$
declare
  v_mode      text := p_how ->> 'mode';
  v_metric    text := coalesce(p_how ->> 'metric', 'cosine');
  v_threshold double precision;
  v_weight    double precision;
  v_query     tsquery;
  v_config    regconfig;
  v_like      text;
  v_result    jsonb;
begin
  if v_mode is not null and v_mode not in ('vector', 'text', 'hybrid') then
    raise exception 'search: mode must be "vector", "text" or "hybrid", got %', v_mode using errcode = '22023';
  end if;
  if v_metric not in ('cosine', 'l2', 'inner_product') then
    raise exception 'search: metric must be "cosine", "l2" or "inner_product", got %', v_metric using errcode = '22023';
  end if;
  if pg_catalog.jsonb_typeof(p_how -> 'threshold') = 'number' then
    v_threshold := (p_how ->> 'threshold')::double precision;
  elsif pg_catalog.jsonb_typeof(p_how -> 'threshold') is distinct from 'null' and p_how ? 'threshold' then
    raise exception 'search: threshold must be a number' using errcode = '22023';
  end if;
  if v_mode in ('vector', 'hybrid') and p_vector is null then
    raise exception 'search: mode % needs the query''s vector', v_mode using errcode = '22023';
  end if;
  if v_mode in ('text', 'hybrid') then
    if pg_catalog.jsonb_typeof(p_how -> 'query') is distinct from 'string' then
      raise exception 'search: mode % needs the query text', v_mode using errcode = '22023';
    end if;
    v_config := agentmem.langgraph_store_config(coalesce(p_how ->> 'config', 'english'));
    v_query := pg_catalog.websearch_to_tsquery(v_config, p_how ->> 'query');
    v_like := '%' || pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(p_how ->> 'query', '\', '\\'), '%', '\%'), '_', '\_') || '%';
  end if;
  if v_mode = 'hybrid' then
    v_threshold := coalesce(v_threshold, 0);
    v_weight := coalesce((p_how ->> 'vectorWeight')::double precision, 0.7);
    if v_weight is null or v_weight < 0 or v_weight > 1 or v_weight = 'NaN' then
      raise exception 'search: vectorWeight must be a number from 0 to 1' using errcode = '22023';
    end if;
  end if;

  with scores as (
    -- The best similarity of each item's vectors (one pass over the prefix's vectors).
    select v.namespace, v.key,
           max(case v_metric
                 when 'l2' then 1 / (1 + (v.embedding operator(extensions.<->) p_vector))
                 when 'inner_product' then -(v.embedding operator(extensions.<#>) p_vector)
                 -- (a zero vector's NaN distance: similarity 0)
                 else 1 - coalesce(nullif(v.embedding operator(extensions.<=>) p_vector, 'NaN'::double precision), 1)
               end) as sim
      from public.langgraph_store_vectors v
     where p_vector is not null and v_mode is distinct from 'text'
       and v.tenant_id = p_tenant and v.tenant_id = (select agentmem.tenant())
       and v.namespace >= p_prefix collate "C" and v.namespace < agentmem.langgraph_store_after(p_prefix) collate "C"
       and v.namespace[1:pg_catalog.cardinality(p_prefix)] = p_prefix collate "C"
     group by v.namespace, v.key),
  found as (
    select i.namespace, i.key, i.created_at, i.updated_at, s.sim, t.text,
           t.doc operator(pg_catalog.@@) v_query as hit,
           pg_catalog.ts_rank(t.doc, v_query) as rank,
           i.ns_order as ns_rank,
           i.item_order
      from public.langgraph_store_items i
      left join scores s on s.namespace = i.namespace and s.key = i.key
      cross join lateral (
        select case when v_query is null or i.search_config is null then null
                    else coalesce(i.search_text, i.value::text) end as text) t0
      cross join lateral (
        select t0.text,
               case when t0.text is null then null
                    when i.search_config = v_config then i.search_vector
                    else pg_catalog.to_tsvector(v_config, t0.text) end as doc) t
     where i.tenant_id = p_tenant and i.tenant_id = (select agentmem.tenant())
       and i.namespace >= p_prefix collate "C" and i.namespace < agentmem.langgraph_store_after(p_prefix) collate "C"
       and i.namespace[1:pg_catalog.cardinality(p_prefix)] = p_prefix collate "C"
       and (i.expires_at is null or i.expires_at > pg_catalog.now())
       and (p_filter is null or agentmem.langgraph_store_matches(i.value, p_filter))),
  ranked as (
    select f.*,
           case v_mode
             -- ts_rank's real, as its shortest text (PostgresStore reads it so).
             when 'text' then (f.rank::text)::double precision
             when 'hybrid' then v_weight * f.sim + (1 - v_weight) * coalesce(f.rank, 0)
             else f.sim end as score,
           case v_mode
             when 'text' then f.text is not null and (coalesce(f.hit, false) or f.text ilike v_like)
             when 'hybrid' then f.sim is not null and (coalesce(f.hit, false) or f.sim >= v_threshold)
             when 'vector' then f.sim is not null and (v_threshold is null or f.sim >= v_threshold)
             else p_vector is null or (f.sim is not null and (v_threshold is null or f.sim >= v_threshold)) end as keep
      from found f),
  -- Ranked by score (a search without a vector: every item, unranked) ...
  page as (
    select * from ranked
     where keep
     order by score desc nulls last, ns_rank, item_order
     offset p_offset limit p_limit),
  -- ... then, in InMemoryStore's ranking without a threshold, while a ranked page has
  -- room, the items without vectors, from the first: InMemoryStore does not skip
  -- `offset` of them.
  rest as (
    select * from ranked
     where v_mode is null and v_threshold is null and p_vector is not null and sim is null
     order by ns_rank, item_order
     limit greatest(p_limit - (select count(*) from page), 0)),
  answer as (
    select 0 as part, * from page
    union all
    select 1, * from rest)
  select coalesce(pg_catalog.jsonb_agg(
           pg_catalog.jsonb_build_object('namespace', pg_catalog.to_jsonb(a.namespace), 'key', a.key,
                                         -- (the page's values only: the ranking carries none)
                                         'value', (select i.value from public.langgraph_store_items i
                                                    where i.tenant_id = p_tenant and i.namespace = a.namespace and i.key = a.key),
                                         'createdAt', a.created_at, 'updatedAt', a.updated_at, 'score', a.score)
           order by a.part, a.score desc nulls last, a.ns_rank, a.item_order), '[]'::jsonb)
    into v_result
    from answer a;
  return v_result;
end;
$$;
-- The signature before p_how (re-running this file over an older install).
drop function if exists agentmem.langgraph_store_search(uuid, text[], jsonb, extensions.vector, integer, integer);

-- A read's TTL refresh: the expiring items among p_items (as a read returns them) live
-- their ttl_minutes from now. Marked for agentmem.langgraph_store_bookkeeping, which then
-- keeps updated_at: a refresh is not a write.
create or replace function agentmem.langgraph_store_refresh(p_tenant uuid, p_items jsonb)
returns void
language plpgsql
volatile
set search_path = ''
-- Planned for each call's tenant: a generic plan (from a connection's sixth refresh on)
-- takes the caller for a tenant of a few items, as the column's average says, and found the
-- items by reading every expiring item of the caller (langgraph_store_items_expiring_idx):
-- 40,000 rows to refresh the one item a get returned, where the primary key reads one.
set plan_cache_mode = force_custom_plan
as $$
begin
  perform pg_catalog.set_config('agentmem.store_refresh', 'on', true);
  update public.langgraph_store_items i set expires_at = pg_catalog.now() + i.ttl_minutes * interval '1 minute'
    from pg_catalog.jsonb_array_elements(p_items) r
   where i.tenant_id = p_tenant and i.ttl_minutes is not null
     and i.namespace = agentmem.langgraph_store_labels(r -> 'namespace', 'refresh')
     and i.key = r ->> 'key';
  perform pg_catalog.set_config('agentmem.store_refresh', 'off', true);
end;
$$;

-- How many numbers a vector of the batch holds, before it is built: sent as a JSON array,
-- or as its text ("[0.1,0.2]", what AgentmemStore sends: Postgres then parses the numbers
-- once, where an array's are parsed into JSON numbers and printed back to text first, ~50 µs
-- for 384 integers, ~400 µs for 1,536 decimals). Null for anything else, and for a text
-- longer than that many numbers can be (each at most 24 characters and its comma), so no
-- text of any size is parsed; malformed numbers are then the vector type's own error.
create or replace function agentmem.langgraph_store_vector_length(p jsonb)
returns integer
language plpgsql
immutable
set search_path = ''
as $$
declare
  v_text text;
  v_n    integer;
begin
  case pg_catalog.jsonb_typeof(p)
  when 'array' then
    return pg_catalog.jsonb_array_length(p);
  when 'string' then
    v_text := p operator(pg_catalog.#>>) '{}';
    v_n := pg_catalog.length(v_text) - pg_catalog.length(pg_catalog.replace(v_text, ',', '')) + 1;
    return case when pg_catalog.octet_length(v_text) <= 25 * v_n + 2 then v_n end;
  else
    return null;
  end case;
end;
$$;

-- The writes of a batch (its puts and deletes, in order), for langgraph_store_batch only,
-- which has checked the tenant: as the owner, never for an API role (agentmem.keep_private).
-- Its lookups are primary-key lookups and ranges, planned so whatever the statistics say.
-- The namespace-order lookup in particular: the plan cached for it (a generic one, from a
-- connection's sixth put on) read the table sequentially, or the namespace's whole range
-- through a bitmap and sorted it, where a walk of the primary key stops at the first item:
-- every tenant's items read per put, or a batch of puts into one namespace quadratic.
create or replace function agentmem.langgraph_store_write(p_tenant uuid, p_ops jsonb)
returns void
language plpgsql
volatile
set search_path = ''
set enable_seqscan = off
set enable_bitmapscan = off
as $$
declare
  v_tenant  uuid := p_tenant;
  v_op      jsonb;
  -- In the columns' collation, so that comparisons with them can use the primary key.
  v_ns      text[] collate "C";
  v_key     text collate "C";
  v_dims    integer;
  v_ttl     double precision;
  v_value   jsonb;
  v_text    text;
  v_whole   boolean;
  v_cfgname text;
  v_config  regconfig;
begin
  -- Writes, in order, each namespace under its lock: all of them taken first, in the
  -- order of their lock keys, so two batches never wait for each other in a circle.
  perform pg_advisory_xact_lock(hashtext('agentmem.langgraph_store'), l.k)
     from (select distinct hashtext(v_tenant::text || (e -> 'namespace')::text) as k
             from jsonb_array_elements(p_ops) e where e ->> 'op' = 'put') l
    order by l.k;
  for v_op in select e from jsonb_array_elements(p_ops) e where e ->> 'op' = 'put' loop
    v_ns := agentmem.langgraph_store_labels(v_op -> 'namespace', 'put');
    v_key := v_op ->> 'key';
    if v_key is null then
      raise exception 'put: key must be a string' using errcode = '22023';
    end if;
    v_value := v_op -> 'value';
    if jsonb_typeof(v_value) is distinct from 'object' then
      delete from public.langgraph_store_items i
       where i.tenant_id = v_tenant and i.namespace = v_ns and i.key = v_key;
      continue;
    end if;
    if agentmem.langgraph_store_size(v_ns, v_key) > 2048 then
      raise exception 'put: namespace and key take % bytes (their UTF-8 bytes plus 8 per label); at most 2048',
        agentmem.langgraph_store_size(v_ns, v_key) using errcode = '22023';
    end if;
    if pg_column_size(v_value) > 1048576 / 6 and octet_length(v_value::text) > 1048576 then
      raise exception 'put: the value is % bytes of JSON text; at most 1 MiB (1048576)', octet_length(v_value::text)
        using errcode = '22023';
    end if;
    v_ttl := (v_op ->> 'ttl')::double precision;
    v_text := null;
    -- "text": the document's text, or true: the value's own JSON text.
    v_whole := coalesce((v_op -> 'text') = 'true'::jsonb, false);
    if jsonb_typeof(v_op -> 'text') = 'string' or v_whole then
      v_text := case when v_whole then v_value::text else v_op ->> 'text' end;
      -- A value's indexed texts: at most the value's bound twice over (a field listed
      -- under two paths), which keeps the tsvector within its own limit.
      if octet_length(v_text) > 2097152 then
        raise exception 'put: the indexed text is % bytes; at most 2 MiB (2097152)', octet_length(v_text) using errcode = '22023';
      end if;
      if v_cfgname is distinct from coalesce(v_op ->> 'config', 'english') then
        v_cfgname := coalesce(v_op ->> 'config', 'english');
        v_config := agentmem.langgraph_store_config(v_cfgname);
      end if;
    end if;
    -- An expired item is gone: a put under its key creates a new one.
    delete from public.langgraph_store_items i
     where i.tenant_id = v_tenant and i.namespace = v_ns and i.key = v_key and i.expires_at <= now();
    -- Every living item of a namespace has the namespace's ns_order: the first one found
    -- in the primary key is enough (a scan of the namespace per put would make a batch
    -- quadratic; see the function's settings).
    insert into public.langgraph_store_items as i (tenant_id, namespace, key, value, expires_at, ttl_minutes,
                                                   search_text, search_config, search_vector, ns_order)
    values (v_tenant, v_ns, v_key, v_value,
            now() + v_ttl * interval '1 minute', v_ttl,
            case when not v_whole then v_text end, case when v_text is not null then v_config end,
            case when v_text is not null then to_tsvector(v_config, v_text) end,
            (select l.ns_order from public.langgraph_store_items l
              where l.tenant_id = v_tenant and l.namespace = v_ns
                and (l.expires_at is null or l.expires_at > now())
              order by l.key
              limit 1))
    on conflict (tenant_id, namespace, key) do update
      set value = excluded.value, expires_at = excluded.expires_at, ttl_minutes = excluded.ttl_minutes,
          search_text = excluded.search_text, search_config = excluded.search_config, search_vector = excluded.search_vector;
    delete from public.langgraph_store_vectors v
     where v.tenant_id = v_tenant and v.namespace = v_ns and v.key = v_key;
    if jsonb_typeof(v_op -> 'vectors') = 'array' and jsonb_array_length(v_op -> 'vectors') > 0 then
      v_dims := coalesce(v_dims, agentmem.vector_dimensions('public.langgraph_store_vectors', 'embedding'));
      if exists (select 1 from jsonb_array_elements(v_op -> 'vectors') x
                  where agentmem.langgraph_store_vector_length(x -> 'embedding') is distinct from v_dims) then
        raise exception 'put: an embedding does not have % dimensions (langgraph_store_vectors.embedding)', v_dims
          using errcode = '22023';
      end if;
      if exists (select 1 from jsonb_array_elements(v_op -> 'vectors') x
                  where jsonb_typeof(x -> 'field') <> 'string' or octet_length(x ->> 'field') > 256) then
        raise exception 'put: an indexed field path is not a string of at most 256 bytes' using errcode = '22023';
      end if;
      insert into public.langgraph_store_vectors (tenant_id, namespace, key, field, embedding)
      select v_tenant, v_ns, v_key, x ->> 'field', (x ->> 'embedding')::extensions.vector
        from jsonb_array_elements(v_op -> 'vectors') x
      on conflict (tenant_id, namespace, key, field) do update set embedding = excluded.embedding;
    end if;
  end loop;
end;
$$;

-- langgraph_store_batch: one BaseStore.batch(). p_ops is an array of
--   {"op": "get", "namespace": [..], "key": k, "refresh": bool}
--   {"op": "search", "prefix": [..], "filter": {..}|null, "limit": n, "offset": n,
--    "vector": [..]|"[..]"|null, "refresh": bool, and how to rank (agentmem.langgraph_store_search):
--    "mode": "vector"|"text"|"hybrid" (absent: InMemoryStore's), "query": text,
--    "config": text search configuration, "metric": "cosine"|"l2"|"inner_product",
--    "threshold": n|null, "vectorWeight": n}
--   {"op": "list", "conditions": [..], "maxDepth": n|null}
--   {"op": "stats"}
--   {"op": "put", "namespace": [..], "key": k, "value": {..}|null, "ttl": minutes|null,
--    "vectors": [{"field": path, "embedding": [..]|"[..]"}], "text": document|null, "config": name}
-- (a vector as a JSON array of numbers or as its text: see langgraph_store_vector_length)
-- and the answer an array of as many results: an item {namespace, key, value, createdAt,
-- updatedAt} or null (get), items with "score" (search), every matching namespace cut to
-- maxDepth, distinct (list: the facade sorts and pages them as InMemoryStore does, by the
-- runtime's localeCompare), the caller's counts (stats), null (put). Reads first, then the
-- writes in order.
create or replace function public.langgraph_store_batch(p_ops jsonb)
returns jsonb
language plpgsql
volatile
security definer
set search_path = ''
as $$
declare
  v_tenant  uuid := agentmem.tenant();
  v_op      jsonb;
  v_at      integer;
  v_results jsonb[] := '{}';
  v_result  jsonb;
  -- In the columns' collation, so that comparisons with them can use the primary key.
  v_ns      text[] collate "C";
  v_key     text collate "C";
  v_limit   integer;
  v_offset  integer;
  v_vector  extensions.vector;
  v_dims    integer;
  v_writes  boolean := false;
begin
  if pg_catalog.jsonb_typeof(p_ops) is distinct from 'array' then
    raise exception 'langgraph_store_batch takes an array of operations' using errcode = '22023';
  end if;
  if jsonb_array_length(p_ops) > 10000 then
    raise exception 'a batch holds at most 10000 operations (got %)', jsonb_array_length(p_ops) using errcode = '22023';
  end if;
  -- The JSON text is at least the stored form's size / 6 (a one-byte character escaped as
  -- \u00XX): only a batch that large can pass the bound, and only its text is measured.
  if pg_column_size(p_ops) > 33554432 / 6 and octet_length(p_ops::text) > 33554432 then
    raise exception 'a batch holds at most 32 MiB of JSON text (got % bytes)', octet_length(p_ops::text) using errcode = '22023';
  end if;

  -- Reads, each against the state before this batch's writes.
  for v_op, v_at in select e, i from jsonb_array_elements(p_ops) with ordinality o(e, i) loop
    v_result := null;
    case v_op ->> 'op'
    when 'get' then
      v_ns := agentmem.langgraph_store_labels(v_op -> 'namespace', 'get');
      v_key := v_op ->> 'key';
      select jsonb_build_object('namespace', to_jsonb(i.namespace), 'key', i.key, 'value', i.value,
                                'createdAt', i.created_at, 'updatedAt', i.updated_at),
             case when i.ttl_minutes is not null and (v_op -> 'refresh') = 'true'::jsonb then i.key end
        into v_result, v_key
        from public.langgraph_store_items i
       where i.tenant_id = v_tenant and i.namespace = v_ns and i.key = v_key
         and (i.expires_at is null or i.expires_at > now());
      if v_key is not null then
        perform agentmem.langgraph_store_refresh(v_tenant, jsonb_build_array(v_result));
      end if;
    when 'search' then
      v_ns := agentmem.langgraph_store_labels(v_op -> 'prefix', 'search');
      v_limit := coalesce((v_op ->> 'limit')::integer, 10);
      v_offset := coalesce((v_op ->> 'offset')::integer, 0);
      v_vector := null;
      if coalesce(jsonb_typeof(v_op -> 'vector'), 'null') <> 'null' then
        -- The dimension first: a vector is not built from a list of any length.
        v_dims := coalesce(v_dims, agentmem.vector_dimensions('public.langgraph_store_vectors', 'embedding'));
        if agentmem.langgraph_store_vector_length(v_op -> 'vector') is distinct from v_dims then
          raise exception 'search: the query embedding has % dimensions; langgraph_store_vectors.embedding has %',
            coalesce(agentmem.langgraph_store_vector_length(v_op -> 'vector')::text, 'no valid'), v_dims using errcode = '22023';
        end if;
        v_vector := (v_op ->> 'vector')::extensions.vector;
      end if;
      v_result := agentmem.langgraph_store_search(v_tenant, v_ns, nullif(v_op -> 'filter', 'null'::jsonb), v_vector, v_limit, v_offset, v_op);
      -- (Whether the caller has an expiring item at all: the first in the index of them.
      -- As `exists`, the planner took a sequential scan that stops at the first such item
      -- for the caller that has many, and read every tenant's items stored before it.)
      if (v_op -> 'refresh') = 'true'::jsonb and jsonb_array_length(v_result) > 0
         and coalesce((select true from public.langgraph_store_items e
                        where e.tenant_id = v_tenant and e.ttl_minutes is not null
                        order by e.expires_at limit 1), false) then
        perform agentmem.langgraph_store_refresh(v_tenant, v_result);
      end if;
    when 'list' then
      v_result := agentmem.langgraph_store_list(v_tenant, v_op -> 'conditions', (v_op ->> 'maxDepth')::integer);
    when 'stats' then
      -- PostgresStore's getStats() (every stored item, expired or not until swept), and
      -- the items that will expire and the vectors; the caller's tenant only.
      select jsonb_build_object(
               'totalItems', count(*),
               'expiredItems', count(*) filter (where i.expires_at <= now()),
               'expiringItems', count(*) filter (where i.expires_at > now()),
               'namespaceCount', count(distinct i.namespace),
               'vectorCount', (select count(*) from public.langgraph_store_vectors v where v.tenant_id = v_tenant),
               'oldestItem', min(i.created_at),
               'newestItem', max(i.created_at))
        into v_result
        from public.langgraph_store_items i
       where i.tenant_id = v_tenant;
    when 'put' then
      v_writes := true;
    else
      raise exception 'operation %: unknown op %', v_at, coalesce(v_op ->> 'op', 'null') using errcode = '22023';
    end case;
    v_results := v_results || v_result;
  end loop;

  if v_writes then
    perform agentmem.langgraph_store_write(v_tenant, p_ops);
  end if;
  return to_jsonb(v_results);
end;
$$;

comment on function public.langgraph_store_batch(jsonb) is
  'One LangGraph BaseStore.batch() (AgentmemStore): get / search / list against the state before the batch, then the puts and deletes in order. One request, one transaction, per tenant.';

-- langgraph_store_sweep: deletes expired items (and their vectors): the caller's, or every
-- tenant's for the service role not acting for a user. Returns how many.
create or replace function public.langgraph_store_sweep()
returns integer
language sql
volatile
security definer
set search_path = ''
as $$
  -- Refuse callers without an identity first, whether or not anything has expired.
  select agentmem.tenant();
  with gone as (
    delete from public.langgraph_store_items i
     where i.ttl_minutes is not null and i.expires_at <= now()
       and (agentmem.sees_all_tenants() or i.tenant_id = agentmem.tenant())
    returning 1)
  select count(*)::integer from gone
$$;

comment on function public.langgraph_store_sweep() is
  'Deletes expired LangGraph store items: the caller''s, or every tenant''s for the service role. Returns the count; schedule it with pg_cron.';

-- Grants ----------------------------------------------------------------------------------

select agentmem.expose(
  'agentmem.langgraph_store_number(jsonb)',
  'agentmem.langgraph_store_matches(jsonb, jsonb)',
  'agentmem.langgraph_store_list(uuid, jsonb, integer)',
  'agentmem.langgraph_store_like(text[], text[])',
  'agentmem.langgraph_store_after(text[])',
  'agentmem.langgraph_store_labels(jsonb, text)',
  'agentmem.langgraph_store_size(text[], text)',
  'agentmem.langgraph_store_search(uuid, text[], jsonb, extensions.vector, integer, integer, jsonb)',
  'agentmem.langgraph_store_config(text)',
  'public.langgraph_store_dimensions()',
  'public.langgraph_store_batch(jsonb)',
  'public.langgraph_store_sweep()');
select agentmem.expose_to_service('public.set_langgraph_store_dimensions(integer)', 'public.set_embedding_dimensions(integer)');
-- Called by the batch function only, which runs as the owner.
select agentmem.keep_private('agentmem.langgraph_store_vector_length(jsonb)', 'agentmem.langgraph_store_write(uuid, jsonb)');
-- Called only by langgraph_store_batch, as the owner.
select agentmem.keep_private('agentmem.langgraph_store_bookkeeping()', 'agentmem.langgraph_store_refresh(uuid, jsonb)');

notify pgrst, 'reload schema';
