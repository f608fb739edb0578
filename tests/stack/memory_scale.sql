-- TEST ONLY: data and measurements for tests/stack/memory_scale_test.sh (and the larger
-- bench/memory_scale.sh), in a scratch database that holds the migrations.
--
-- Deterministic clustered vectors made in SQL: every tenant has 8 topics (cluster centres,
-- pseudo-random unit-ish vectors), and a memory is its topic's centre plus two noise
-- vectors picked by its number (997 x 101 combinations, so no two memories of a tenant are
-- equal). pgvector adds vectors in C, so 100,000 memories take seconds.

create schema if not exists scale;

create or replace function scale.pseudo(p_seed double precision, p_dims integer, p_scale double precision)
returns extensions.vector
language sql
immutable
as $$
  select array_agg((2 * (h - floor(h)) - 1) * p_scale order by j)::extensions.vector
    from (select j, abs(sin(p_seed * 12.9898 + j * 78.233) * 43758.5453) as h from generate_series(1, p_dims) j) x
$$;

create table if not exists scale.centres (c integer primary key, v extensions.vector);
create table if not exists scale.noise_a (n integer primary key, v extensions.vector);
create table if not exists scale.noise_b (n integer primary key, v extensions.vector);

-- p_topics topic centres, and the two noise tables, of the embedding column's dimension.
create or replace function scale.prepare(p_topics integer)
returns void
language sql
as $$
  insert into scale.centres select c, scale.pseudo(c + 0.5, public.agent_memory_dimensions(), 1) from generate_series(0, p_topics - 1) c
    on conflict do nothing;
  insert into scale.noise_a select n, scale.pseudo(n + 10000.25, public.agent_memory_dimensions(), 0.35) from generate_series(0, 996) n
    on conflict do nothing;
  insert into scale.noise_b select n, scale.pseudo(n + 20000.75, public.agent_memory_dimensions(), 0.15) from generate_series(0, 100) n
    on conflict do nothing;
$$;

-- The embedding of memory p_i of the tenant whose topics start at p_topic0.
create or replace function scale.embedding(p_topic0 integer, p_i integer)
returns extensions.vector
language sql
stable
as $$
  select c.v operator(extensions.+) a.v operator(extensions.+) b.v
    from scale.centres c, scale.noise_a a, scale.noise_b b
   where c.c = p_topic0 + p_i % 8 and a.n = p_i % 997 and b.n = (p_i / 997) % 101
$$;

-- p_count memories of tenant p_user (topics from p_topic0): agents agent-0..agent-(p_agents-1)
-- round robin, except that p_rare of them belong to agent "rare"; 1% are decisions (the
-- rare type), 5% expired; importance in tiers.
create or replace function scale.load(p_user uuid, p_topic0 integer, p_count integer, p_agents integer, p_rare integer)
returns void
language sql
as $$
  insert into public.agent_memories (user_id, agent_id, content, memory_type, importance_score, embedding, expires_at)
  select p_user,
         case when i < p_rare then 'rare' else 'agent-' || (i % p_agents) end,
         'memory ' || i || ' of topic ' || (p_topic0 + i % 8),
         case when i % 100 = 7 then 'decision' when i % 3 = 0 then 'preference' else 'fact' end,
         (array[0.3, 0.5, 0.6, 0.7, 0.9])[1 + i % 5],
         scale.embedding(p_topic0, i),
         case when i % 20 = 19 then now() - interval '1 day' end
    from generate_series(0, p_count - 1) i
$$;

-- A query vector: near topic p_topic (a strong match for its tenant) with its own noise.
create or replace function scale.query(p_topic integer, p_n integer)
returns extensions.vector
language sql
stable
as $$
  select c.v operator(extensions.+) scale.pseudo(p_n + 30000.5, extensions.vector_dims(c.v), 0.3) from scale.centres c where c.c = p_topic
$$;

-- The exact answer: the best p_k of the tenant's memories that pass the filters, by a scan
-- that uses no index (the reference the function is held to).
create or replace function scale.exact(p_user uuid, p_q extensions.vector, p_agent text, p_types text[], p_k integer)
returns uuid[]
language plpgsql
as $$
declare
  v uuid[];
begin
  set local enable_indexscan = off;
  set local enable_bitmapscan = off;
  set local enable_indexonlyscan = off;
  select array_agg(id order by d, id) into v
    from (select m.id, m.embedding operator(extensions.<=>) p_q as d
            from public.agent_memories m
           where m.user_id = p_user and m.embedding is not null
             and (p_agent is null or m.agent_id = p_agent)
             and (p_types is null or m.memory_type = any (p_types))
             and (m.expires_at is null or m.expires_at > now())
           order by 2, 1 limit p_k) x;
  reset enable_indexscan;
  reset enable_bitmapscan;
  reset enable_indexonlyscan;
  return coalesce(v, '{}');
end;
$$;

create table if not exists scale.cases (
  name text primary key, agent text, types text[]
);
create table if not exists scale.results (
  label text, name text, q integer, ms double precision, returned integer, expected integer, recall double precision
);
grant usage on schema scale to authenticated;
grant select on all tables in schema scale to authenticated;
grant insert, delete on scale.results to authenticated;

-- Runs p_queries queries of each case as the caller (a signed-in user: role and claims set
-- by the caller), strong matches (its own topics) and weak ones (other tenants' topics)
-- alternating; times each call of search_agent_memories and compares it with scale.exact.
create or replace function scale.run(p_label text, p_user uuid, p_topic0 integer, p_queries integer, p_k integer,
                                     p_record boolean, p_only text default null, p_from integer default 0)
returns void
language plpgsql
as $$
declare
  c record;
  q integer;
  v_q extensions.vector;
  v_t0 timestamptz;
  v_ms double precision;
  v_got uuid[];
  v_exact uuid[];
begin
  for c in select * from scale.cases where p_only is null or name = p_only order by name loop
    for q in p_from .. p_from + p_queries - 1 loop
      v_q := scale.query(case when q % 2 = 0 then p_topic0 + q % 8 else p_topic0 + 8 + q end, q);
      v_t0 := clock_timestamp();
      select array_agg(s.id order by s.ordinality) into v_got
        from public.search_agent_memories(v_q, c.agent, -1, p_k, c.types, p_record) with ordinality s;
      v_ms := extract(epoch from clock_timestamp() - v_t0) * 1000;
      v_exact := scale.exact(p_user, v_q, c.agent, c.types, p_k);
      insert into scale.results values (p_label, c.name, q, v_ms, coalesce(cardinality(v_got), 0), cardinality(v_exact),
        case when cardinality(v_exact) = 0 then 1
             else (select count(*) from unnest(v_got) g where g = any (v_exact))::double precision / cardinality(v_exact) end);
    end loop;
  end loop;
end;
$$;
grant execute on all functions in schema scale to authenticated;

-- Seconds a statement takes (for the bench's insert cost).
create or replace function scale.timed(p_sql text)
returns double precision
language plpgsql
as $$
declare
  t0 timestamptz := clock_timestamp();
begin
  execute p_sql;
  return extract(epoch from clock_timestamp() - t0);
end;
$$;
