// supabase-js 2.x against agentmem-gateway, one case per feature of gateway/README.md's
// compatibility table. Every expectation is what PostgREST answers for the fixture in
// tests/fixtures/gateway_conformance.sql, taken from PostgREST's docs (docs/references/…)
// and its test suite (test/spec/Feature/…); the comment on each group names the source.
// Run by tests/gateway/run.sh against `scripts/stack.sh up --test-fixtures`.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { createClient as supabaseClient } from "@supabase/supabase-js";
import ws from "ws";
import { readStackEnv } from "../support/env.mjs";

const env = readStackEnv();
// supabase-js >= 2.80 needs a WebSocket for realtime on Node 20 even when it is unused.
const createClient = (url, key, options = {}) => supabaseClient(url, key, { ...options, realtime: { transport: ws } });
const service = createClient(env.SUPABASE_URL, env.SUPABASE_SERVICE_ROLE_KEY, { auth: { persistSession: false } });
const anon = createClient(env.SUPABASE_URL, env.SUPABASE_ANON_KEY, { auth: { persistSession: false } });
const rest = `${env.SUPABASE_URL}/rest/v1`;
const keyHeaders = { apikey: env.SUPABASE_SERVICE_ROLE_KEY, Authorization: `Bearer ${env.SUPABASE_SERVICE_ROLE_KEY}` };

function ok(res, data, status = 200) {
  assert.equal(res.error, null, `unexpected error ${JSON.stringify(res.error)}`);
  assert.equal(res.status, status);
  if (data !== undefined) assert.deepEqual(res.data, data);
}

function fails(res, status, expected) {
  assert.equal(res.status, status, JSON.stringify(res.error));
  assert.equal(res.data, null);
  for (const [k, v] of Object.entries(expected)) assert.deepEqual(res.error[k], v, `error.${k}`);
}

after(async () => {
  await service.from("conf_tasks").delete().like("title", "conformance%");
});

describe("reads (tables_views.rst, url_grammar.rst)", () => {
  test("columns, alias, cast, JSON path with its last key as name", async () => {
    ok(await service.from("conf_films").select("id, name:title, year::text, genre:meta->>genre, meta->tags->0").eq("id", 1), [
      { id: 1, name: "Workers Leaving The Lumière Factory In Lyon", year: "1895", genre: "documentary", tags: "short" },
    ]);
  });

  test("operators eq/neq/gt/gte/lt/lte/like/ilike/match/imatch/in/is", async () => {
    const ids = async (q) => (await q.order("id")).data.map((r) => r.id);
    const films = () => service.from("conf_films").select("id");
    assert.deepEqual(await ids(films().gt("year", 1895)), [3, 4]);
    assert.deepEqual(await ids(films().gte("year", 1895).lt("year", 1902)), [1, 3]);
    assert.deepEqual(await ids(films().lte("rating", 6.9).neq("id", 3)), [2]);
    assert.deepEqual(await ids(films().like("title", "*Moon*")), [4]);
    assert.deepEqual(await ids(films().ilike("title", "the %")), [2, 3]);
    assert.deepEqual(await ids(films().match({ director_id: 3, year: 1902 })), [4]);
    assert.deepEqual(await ids(films().filter("title", "imatch", "^the (h|d)")), [2, 3]);
    assert.deepEqual(await ids(films().in("id", [1, 4, 99])), [1, 4]);
    assert.deepEqual(await ids(service.from("conf_cities").select("id").is("country_id", null)), [5]);
    assert.deepEqual(await ids(service.from("conf_cities").select("id").not("country_id", "is", null).lt("id", 3)), [1, 2]);
  });

  test("jsonb contains, or= trees, full-text search on a text column", async () => {
    ok(await service.from("conf_films").select("id").contains("meta", { genre: "music" }), [{ id: 2 }]);
    ok(await service.from("conf_films").select("id").or("year.lt.1895,and(director_id.eq.3,rating.gt.8)").order("id"), [
      { id: 2 },
      { id: 4 },
    ]);
    // PostgREST >= 13 applies to_tsvector to non-tsvector columns (SqlFragment.hs pgFmtField).
    ok(await service.from("conf_films").select("id").textSearch("title", "castle", { config: "english" }), [{ id: 3 }]);
  });

  test("(any)/(all) quantifiers: likeAnyOf, likeAllOf, ilikeAnyOf, eq(any)", async () => {
    const ids = async (q) => (await q.order("id")).data.map((r) => r.id);
    const films = () => service.from("conf_films").select("id");
    assert.deepEqual(await ids(films().likeAnyOf("title", ["*Moon*", "*Castle*"])), [3, 4]);
    assert.deepEqual(await ids(films().likeAllOf("title", ["*The*", "*Lyon"])), [1]);
    assert.deepEqual(await ids(films().ilikeAnyOf("title", ["%moon%", "%sound%"])), [2, 4]);
    assert.deepEqual(await ids(films().ilikeAllOf("title", ["%the%", "%moon%"])), [4]);
    assert.deepEqual(await ids(films().filter("id", "eq(any)", "{2,3}")), [2, 3]);
  });

  test("order with nulls, limit/range, exact count with 206 and Content-Range", async () => {
    ok(await service.from("conf_cities").select("id").order("population", { ascending: false, nullsFirst: true }).limit(2), [
      { id: 5 },
      { id: 1 },
    ]);
    const res = await service.from("conf_cities").select("id", { count: "exact" }).order("id").range(1, 2);
    ok(res, [{ id: 2 }, { id: 3 }], 206);
    assert.equal(res.count, 5);
    const head = await service.from("conf_cities").select("*", { count: "exact", head: true });
    assert.equal(head.error, null);
    assert.equal(head.count, 5);
  });

  test("single/maybeSingle: 406 PGRST116 (SingularSpec.hs)", async () => {
    ok(await service.from("conf_cities").select("name").eq("id", 1).single(), { name: "London" });
    fails(await service.from("conf_cities").select("name").gt("id", 1).single(), 406, {
      code: "PGRST116",
      message: "Cannot coerce the result to a single JSON object",
      details: "The result contains 4 rows",
    });
    ok(await service.from("conf_cities").select("name").eq("id", 99).maybeSingle(), null);
  });

  test("unknown table: 404 PGRST205 with the fuzzy hint (ErrorSpec.hs)", async () => {
    fails(await service.from("conf_film").select(), 404, {
      code: "PGRST205",
      message: "Could not find the table 'public.conf_film' in the schema cache",
      hint: "Perhaps you meant the table 'public.conf_films'",
    });
    fails(await service.from("zzzzzz").select(), 404, { code: "PGRST205", hint: null });
  });

  test("unknown column: 400 42703 from Postgres", async () => {
    fails(await service.from("conf_films").select("nope"), 400, { code: "42703", message: "column conf_films.nope does not exist" });
  });

  test("names and JSON keys as PostgREST's grammar reads them; what it refuses is 400 PGRST100 (QueryParams.hs)", async () => {
    // pJsonPath: `->--` is neither an index (a `-` then digits) nor a key (which may not start with `-`).
    fails(await service.from("conf_films").select("id").eq("meta->--", "x"), 400, {
      code: "PGRST100",
      message: '"failed to parse tree path (meta->--)" (line 1, column 8)',
      details: 'unexpected "-" expecting digit',
      hint: null,
    });
    fails(await service.from("conf_films").select("id").eq("meta->", "x"), 400, {
      code: "PGRST100",
      message: '"failed to parse tree path (meta->)" (line 1, column 7)',
      details: 'unexpected end of input expecting "-", digit or any non reserved character different from: .,>()',
    });
    fails(await service.from("conf_films").select("id").eq("title-", "x"), 400, {
      code: "PGRST100",
      details: "unexpected end of input expecting letter or digit",
    });
    fails(await service.from("conf_films").select("id,meta->--"), 400, {
      code: "PGRST100",
      message: '"failed to parse select parameter (id,meta->--)" (line 1, column 11)',
    });
    fails(await service.from("conf_films").select("id").order("meta->--"), 400, { code: "PGRST100" });
    // Quoted, a key may be anything; keys may hold dashes between other characters; a
    // negative index counts from the end.
    ok(await service.from("conf_films").select("id").eq('meta->>"--"', "x"), []);
    ok(await service.from("conf_films").select("id,last:meta->tags->-1").eq("id", 1), [{ id: 1, last: "short" }]);
    ok(await service.from("conf_films").select("id").eq("meta->>a-b", "x"), []);
  });
});

describe("resource embedding (resource_embedding.rst)", () => {
  test("many-to-one is an object, one-to-many an array", async () => {
    ok(await service.from("conf_films").select("title, conf_directors(id, last_name)").in("id", [1, 2]).order("id"), [
      { title: "Workers Leaving The Lumière Factory In Lyon", conf_directors: { id: 2, last_name: "Lumière" } },
      { title: "The Dickson Experimental Sound Film", conf_directors: { id: 1, last_name: "Dickson" } },
    ]);
    ok(await service.from("conf_directors").select("last_name, conf_films(title)").eq("id", 3).order("id", { referencedTable: "conf_films" }), [
      { last_name: "Méliès", conf_films: [{ title: "The Haunted Castle" }, { title: "A Trip to the Moon" }] },
    ]);
  });

  test("many-to-many through the junction table, and one-to-one", async () => {
    ok(await service.from("conf_actors").select("first_name, conf_films(title)").eq("id", 2).order("id", { referencedTable: "conf_films" }), [
      { first_name: "Georges", conf_films: [{ title: "The Haunted Castle" }, { title: "A Trip to the Moon" }] },
    ]);
    ok(await service.from("conf_films").select("id, conf_technical_specs(camera)").in("id", [1, 2]).order("id"), [
      { id: 1, conf_technical_specs: { camera: "Cinématographe" } },
      { id: 2, conf_technical_specs: null },
    ]);
  });

  test("aliases and nested embedding", async () => {
    ok(await service.from("conf_films").select("title, director:conf_directors(last_name), cast:conf_roles(character, actor:conf_actors(first_name))").eq("id", 3).order("actor_id", { referencedTable: "cast" }), [
      {
        title: "The Haunted Castle",
        director: { last_name: "Méliès" },
        cast: [
          { character: "Woman", actor: { first_name: "Jehanne" } },
          { character: "Mephistopheles", actor: { first_name: "Georges" } },
        ],
      },
    ]);
  });

  test("embedded filters, order, limit and offset leave the parents alone", async () => {
    ok(await service.from("conf_countries").select("name, conf_cities(name)").order("id").eq("conf_cities.name", "London"), [
      { name: "United Kingdom", conf_cities: [{ name: "London" }] },
      { name: "United States", conf_cities: [] },
      { name: "Atlantis", conf_cities: [] },
    ]);
    ok(await service.from("conf_countries").select("name, conf_cities(name)").eq("id", 2).order("name", { referencedTable: "conf_cities", ascending: false }).limit(1, { referencedTable: "conf_cities" }), [
      { name: "United States", conf_cities: [{ name: "New York" }] },
    ]);
    ok(await service.from("conf_countries").select("name, conf_cities(name)").eq("id", 1).order("id", { referencedTable: "conf_cities" }).range(1, 1, { referencedTable: "conf_cities" }), [
      { name: "United Kingdom", conf_cities: [{ name: "Manchester" }] },
    ]);
    ok(await service.from("conf_countries").select("name, conf_cities(name)").eq("id", 1).or("name.eq.Manchester,population.gt.5000000", { referencedTable: "conf_cities" }).order("id", { referencedTable: "conf_cities" }), [
      { name: "United Kingdom", conf_cities: [{ name: "London" }, { name: "Manchester" }] },
    ]);
  });

  test("!inner filters the parents, and counts them", async () => {
    const res = await service.from("conf_films").select("title, conf_actors!inner(first_name)", { count: "exact" }).eq("conf_actors.first_name", "Jehanne");
    ok(res, [{ title: "The Haunted Castle", conf_actors: [{ first_name: "Jehanne" }] }]);
    assert.equal(res.count, 1);
  });

  test("null filtering on embeds and empty embeds", async () => {
    ok(await service.from("conf_films").select("title, conf_actors()").eq("conf_actors.first_name", "Jehanne").not("conf_actors", "is", null), [
      { title: "The Haunted Castle" },
    ]);
    ok(await service.from("conf_films").select("id, conf_nominations()").is("conf_nominations", null).order("id"), [
      { id: 1 },
      { id: 2 },
      { id: 3 },
    ]);
  });

  test("hints: foreign key name, column; ambiguity is 300 PGRST201", async () => {
    ok(await service.from("conf_orders").select("name, billing:conf_addresses!billing(name), shipping:conf_addresses!shipping_address_id(name)").eq("id", 1), [
      { name: "Personal Water Filter", billing: { name: "32 Glenlake Dr" }, shipping: { name: "30 Glenlake Dr" } },
    ]);
    fails(await service.from("conf_orders").select("*, conf_addresses(*)"), 300, {
      code: "PGRST201",
      message: "Could not embed because more than one relationship was found for 'conf_orders' and 'conf_addresses'",
      details: [
        {
          cardinality: "many-to-one",
          embedding: "conf_orders with conf_addresses",
          relationship: "billing using conf_orders(billing_address_id) and conf_addresses(id)",
        },
        {
          cardinality: "many-to-one",
          embedding: "conf_orders with conf_addresses",
          relationship: "shipping using conf_orders(shipping_address_id) and conf_addresses(id)",
        },
      ],
      hint: "Try changing 'conf_addresses' to one of the following: 'conf_addresses!billing', 'conf_addresses!shipping'. Find the desired relationship in the 'details' key.",
    });
  });

  test("no relationship: 400 PGRST200", async () => {
    fails(await service.from("conf_films").select("title, conf_countries(*)"), 400, {
      code: "PGRST200",
      message: "Could not find a relationship between 'conf_films' and 'conf_countries' in the schema cache",
      details: "Searched for a foreign key relationship between 'conf_films' and 'conf_countries' in the schema 'public', but no matches were found.",
    });
    fails(await service.from("conf_orders").select("conf_addresses!nope(*)"), 400, {
      code: "PGRST200",
      details: "Searched for a foreign key relationship between 'conf_orders' and 'conf_addresses' using the hint 'nope' in the schema 'public', but no matches were found.",
    });
  });

  test("spreads: to-one lifts columns, to-many makes correlated arrays", async () => {
    ok(await service.from("conf_films").select("title, ...conf_directors(director_first_name:first_name, director_last_name:last_name)").eq("id", 1), [
      { title: "Workers Leaving The Lumière Factory In Lyon", director_first_name: "Louis", director_last_name: "Lumière" },
    ]);
    ok(await service.from("conf_directors").select("first_name, ...conf_films(film_titles:title, film_years:year)").eq("id", 3).order("year", { referencedTable: "conf_films" }), [
      { first_name: "Georges", film_titles: ["The Haunted Castle", "A Trip to the Moon"], film_years: [1896, 1902] },
    ]);
  });

  test("top-level order by a to-one column; to-many is 400 PGRST118, unselected 400 PGRST108", async () => {
    ok(await service.from("conf_films").select("id, conf_directors(last_name)").order("conf_directors(last_name)", { ascending: false }).order("id"), [
      { id: 3, conf_directors: { last_name: "Méliès" } },
      { id: 4, conf_directors: { last_name: "Méliès" } },
      { id: 1, conf_directors: { last_name: "Lumière" } },
      { id: 2, conf_directors: { last_name: "Dickson" } },
    ]);
    fails(await service.from("conf_directors").select("id, conf_films(title)").order("conf_films(title)"), 400, {
      code: "PGRST118",
      message: "A related order on 'conf_films' is not possible",
      details: "'conf_directors' and 'conf_films' do not form a many-to-one or one-to-one relationship",
    });
    fails(await service.from("conf_films").select("id").eq("conf_actors.first_name", "x"), 400, {
      code: "PGRST108",
      message: "'conf_actors' is not an embedded resource in this request",
      hint: "Verify that 'conf_actors' is included in the 'select' query parameter.",
    });
  });

  test("computed relationships (functions on a row type)", async () => {
    ok(await service.from("conf_employees").select("name, conf_supervisees(name), conf_supervisor(name)").eq("id", 2), [
      { name: "Johnson", conf_supervisees: [], conf_supervisor: { name: "Taylor" } },
    ]);
    ok(await service.from("conf_employees").select("name, conf_supervisees(name)").eq("id", 1).order("id", { referencedTable: "conf_supervisees" }), [
      { name: "Taylor", conf_supervisees: [{ name: "Johnson" }, { name: "Miller" }] },
    ]);
  });

  test("aggregates are off by default: 400 PGRST123 (aggregate_functions.rst)", async () => {
    fails(await service.from("conf_films").select("year.sum()"), 400, { code: "PGRST123", message: "Use of aggregate functions is not allowed" });
  });
});

describe("computed fields (computed_fields.rst)", () => {
  test("select, filter and order on a function of the row type", async () => {
    ok(await service.from("conf_people").select("id, conf_full_name").order("conf_full_name", { ascending: false }), [
      { id: 1, conf_full_name: "Samuel Beckett" },
      { id: 2, conf_full_name: "James Joyce" },
    ]);
    ok(await service.from("conf_people").select("first_name").textSearch("conf_full_name", "Beckett"), [{ first_name: "Samuel" }]);
  });
});

describe("functions (functions.rst)", () => {
  test("POST with named arguments and defaults; scalar results are bare JSON", async () => {
    ok(await service.rpc("conf_add", { a: 2, b: 3 }), 5);
    ok(await service.rpc("conf_add", { a: 2 }), 3);
  });

  test("GET: arguments vs filters on the result", async () => {
    ok(await service.rpc("conf_films_of", { director: 3 }, { get: true }).gt("year", 1900).select("title"), [{ title: "A Trip to the Moon" }]);
    ok(await service.rpc("conf_add", { a: 1, b: 1 }, { get: true }), 2);
  });

  test("HEAD with count answers the count, not a silent 204", async () => {
    const res = await service.rpc("conf_films_of", { director: 3 }, { head: true, count: "exact" }).gt("year", 1900);
    assert.equal(res.error, null);
    assert.equal(res.status, 200);
    assert.equal(res.count, 1);
  });

  test("embedding on a function returning a table's rows (function_embed)", async () => {
    ok(await service.rpc("conf_films_of", { director: 2 }).select("title, conf_directors(last_name)"), [
      { title: "Workers Leaving The Lumière Factory In Lyon", conf_directors: { last_name: "Lumière" } },
    ]);
  });

  test("unknown function or arguments: 404 PGRST202 with PostgREST's details and hint", async () => {
    fails(await service.rpc("conf_add", { a: 1, c: 2 }), 404, {
      code: "PGRST202",
      message: "Could not find the function public.conf_add(a, c) in the schema cache",
      details: "Searched for the function public.conf_add with parameters a, c or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.",
      hint: "Perhaps you meant to call the function public.conf_add(a, b)",
    });
    fails(await service.rpc("conf_films_of", { directr: 1 }, { get: true }), 404, {
      code: "PGRST202",
      message: "Could not find the function public.conf_films_of(directr) in the schema cache",
      details: "Searched for the function public.conf_films_of with parameter directr, but no matches were found in the schema cache.",
    });
  });

  test("RAISE SQLSTATE 'PGRST' sets status, headers and the error body (errors.rst)", async () => {
    const res = await fetch(`${rest}/rpc/conf_teapot`, { method: "POST", headers: { ...keyHeaders, "Content-Type": "application/json" }, body: "{}" });
    assert.equal(res.status, 402);
    assert.equal(res.headers.get("x-powered-by"), "Nerd Rage");
    assert.deepEqual(await res.json(), { code: "123", message: "Payment Required", details: "Quota exceeded", hint: "Upgrade your plan" });
    fails(await service.rpc("conf_bad_raise"), 500, {
      code: "PGRST121",
      message: "Could not parse JSON in the \"RAISE SQLSTATE 'PGRST'\" error",
      details: "Invalid JSON value for MESSAGE: 'not json'",
    });
  });

  test("a volatile function over GET is read-only: 405 25006", async () => {
    fails(await service.rpc("conf_write", {}, { get: true }), 405, { code: "25006" });
  });
});

describe("writes (tables_views.rst, preferences.rst)", () => {
  test("insert returning a representation with an embedding", async () => {
    ok(await service.from("conf_tasks").insert({ title: "conformance 1", status: "doing" }).select("title, status, priority"), [
      { title: "conformance 1", status: "doing", priority: 3 },
    ], 201);
    ok(await service.from("conf_cities").insert({ id: 100, name: "Leeds", country_id: 1 }).select("name, conf_countries(name)").single(), {
      name: "Leeds",
      conf_countries: { name: "United Kingdom" },
    }, 201);
    ok(await service.from("conf_cities").delete().eq("id", 100).select("name"), [{ name: "Leeds" }]);
  });

  test("bulk insert with defaultToNull: false applies column defaults (Prefer: missing=default)", async () => {
    ok(await service.from("conf_tasks").insert([{ title: "conformance 2", status: "done" }, { title: "conformance 3" }], { defaultToNull: false }).select("title, status, priority"), [
      { title: "conformance 2", status: "done", priority: 3 },
      { title: "conformance 3", status: "todo", priority: 3 },
    ], 201);
    // Without it the missing key is NULL, which the NOT NULL column refuses.
    fails(await service.from("conf_tasks").insert([{ title: "conformance 4", status: "done" }, { title: "conformance 5" }]), 400, { code: "23502" });
  });

  test("upsert, update and delete with counts", async () => {
    const { data } = await service.from("conf_tasks").insert({ title: "conformance 6" }).select("id").single();
    ok(await service.from("conf_tasks").upsert({ id: data.id, title: "conformance 6b", status: "todo", priority: 1 }).select("title, priority"), [
      { title: "conformance 6b", priority: 1 },
    ]);
    const upd = await service.from("conf_tasks").update({ status: "done" }, { count: "exact" }).eq("id", data.id);
    ok(upd, null, 204);
    assert.equal(upd.count, 1);
    ok(await service.from("conf_tasks").delete().eq("id", data.id).select("status"), [{ status: "done" }]);
  });

  test("Prefer: tx=rollback is ignored under the default db-tx-end=commit", async () => {
    const res = await fetch(`${rest}/conf_tasks`, {
      method: "POST",
      headers: { ...keyHeaders, "Content-Type": "application/json", Prefer: "tx=rollback, return=minimal" },
      body: JSON.stringify({ title: "conformance rollback probe" }),
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("preference-applied"), "return=minimal");
    const { data } = await service.from("conf_tasks").select("title").eq("title", "conformance rollback probe");
    assert.equal(data.length, 1, "the insert was committed");
  });

  // postgrest-js has no PUT and no return=headers-only, so these go through fetch.
  const put = (path, body, prefer) =>
    fetch(`${rest}/${path}`, {
      method: "PUT",
      headers: { ...keyHeaders, "Content-Type": "application/json", ...(prefer ? { Prefer: prefer } : {}) },
      body: JSON.stringify(body),
    });
  const pgrstError = (code, message) => ({ code, details: null, hint: null, message });

  test("PUT upserts one row by its primary key: 201, then 200, 204 without a representation (tables_views.rst, UpsertSpec.hs)", async () => {
    let res = await put("conf_tasks?id=eq.9001&select=id,title,priority", { id: 9001, title: "conformance put", priority: 1 }, "return=representation");
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("preference-applied"), "return=representation");
    assert.equal(res.headers.get("content-range"), null);
    assert.deepEqual(await res.json(), [{ id: 9001, title: "conformance put", priority: 1 }]);
    res = await put("conf_tasks?id=eq.9001&select=title,priority", [{ id: 9001, title: "conformance put 2", priority: 2 }], "return=representation");
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), [{ title: "conformance put 2", priority: 2 }]);
    res = await put("conf_tasks?id=eq.9001", { id: 9001, title: "conformance put 3" });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("content-type"), null);
    assert.equal(await res.text(), "");
    ok(await service.from("conf_tasks").select("title, priority").eq("id", 9001), [{ title: "conformance put 3", priority: 2 }]);
  });

  test("PUT refusals: PGRST105, PGRST114, PGRST115 (Error.hs, UpsertSpec.hs)", async () => {
    const body = { id: 9002, title: "conformance put refused" };
    for (const path of ["conf_tasks?title=eq.x", "conf_tasks?id=not.eq.9002", "conf_tasks?id=in.(9002)", "conf_tasks?and=(id.eq.9002)"]) {
      const res = await put(path, body);
      assert.equal(res.status, 405, path);
      assert.deepEqual(await res.json(), pgrstError("PGRST105", "Filters must include all and only primary key columns with 'eq' operators"), path);
    }
    for (const path of ["conf_tasks?id=eq.9002&limit=1", "conf_tasks?id=eq.9002&offset=1"]) {
      const res = await put(path, body);
      assert.equal(res.status, 400, path);
      assert.deepEqual(await res.json(), pgrstError("PGRST114", "limit/offset querystring parameters are not allowed for PUT"), path);
    }
    const res = await put("conf_tasks?id=eq.9003", body);
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), pgrstError("PGRST115", "Payload values do not match URL in primary key column(s)"));
    ok(await service.from("conf_tasks").select("id").in("id", [9002, 9003]), []);
  });

  test("Prefer: return=headers-only answers 201 with a Location and no body (preferences.rst, InsertSpec.hs)", async () => {
    const res = await fetch(`${rest}/conf_tasks?select=title`, {
      method: "POST",
      headers: { ...keyHeaders, "Content-Type": "application/json", Prefer: "return=headers-only" },
      body: JSON.stringify({ id: 9004, title: "conformance located" }),
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("location"), "/conf_tasks?id=eq.9004");
    assert.equal(res.headers.get("content-range"), "*/*");
    assert.equal(res.headers.get("preference-applied"), "return=headers-only");
    assert.equal(res.headers.get("content-type"), null);
    assert.equal(await res.text(), "");
    const back = await fetch(`${rest}${res.headers.get("location")}&select=title`, { headers: keyHeaders });
    assert.deepEqual(await back.json(), [{ title: "conformance located" }]);
    // Bulk inserts get no Location.
    const bulk = await fetch(`${rest}/conf_tasks`, {
      method: "POST",
      headers: { ...keyHeaders, "Content-Type": "application/json", Prefer: "return=headers-only" },
      body: JSON.stringify([{ title: "conformance bulk 1" }, { title: "conformance bulk 2" }]),
    });
    assert.equal(bulk.status, 201);
    assert.equal(bulk.headers.get("location"), null);
  });

  test("anon without a grant: 401 42501", async () => {
    fails(await anon.from("conf_cities").insert({ id: 101, name: "X" }), 401, { code: "42501" });
  });
});

describe("media types (resource_representation.rst, RawOutputTypesSpec)", () => {
  test("csv() answers text/csv with a header row", async () => {
    ok(await service.from("conf_cities").select("id, name, population").lt("id", 4).order("id").csv(), 'id,name,population\n1,London,9000000\n2,Manchester,550000\n3,"Los Angeles",3900000');
  });

  test("stripNulls() drops null fields", async () => {
    ok(await service.from("conf_cities").select("id, population, country_id").gt("id", 3).order("id").stripNulls(), [
      { id: 4, population: 8300000, country_id: 2 },
      { id: 5 },
    ]);
  });

  test("an unsupported Accept (explain, with db-plan-enabled off) is 406 PGRST107", async () => {
    const res = await service.from("conf_cities").select().explain();
    assert.equal(res.status, 406);
    assert.equal(res.error.code, "PGRST107");
    assert.match(res.error.message, /^None of these media types are available: application\/vnd\.pgrst\.plan/);
  });
});

describe("URLs and auth (url_grammar.rst, auth.rst)", () => {
  test('raw > and " in the query string, as curl users write them', async () => {
    const url = new URL(rest);
    const path = `${url.pathname}/conf_films?select=id&meta->>genre=eq.music&meta=cs.{"genre":"music"}`;
    const raw = await new Promise((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\napikey: ${env.SUPABASE_SERVICE_ROLE_KEY}\r\nConnection: close\r\n\r\n`);
      });
      let data = "";
      socket.on("data", (d) => (data += d));
      socket.on("end", () => resolve(data));
      socket.on("error", reject);
    });
    assert.match(raw, /^HTTP\/1\.1 200/);
    assert.match(raw, /\[\{"id":2\}\]$/);
  });

  test("no OpenAPI document: the root answers PostgREST's openapi-mode=disabled error", async () => {
    const res = await fetch(`${rest}/`, { headers: keyHeaders });
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { code: "PGRST126", details: null, hint: null, message: "Root endpoint metadata is disabled" });
  });

  test("a JWT signed with another key: 401 PGRST301 with PostgREST's details (ErrorSpec.hs)", async () => {
    const bad = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.e30.XmNK3GpH3Ys_7wsYBfq4C3M6goz71I7dTgUkuIa5lyQ";
    const client = createClient(env.SUPABASE_URL, env.SUPABASE_ANON_KEY, {
      auth: { persistSession: false },
      global: { headers: { Authorization: `Bearer ${bad}` } },
    });
    fails(await client.from("conf_cities").select(), 401, {
      code: "PGRST301",
      message: "No suitable key or wrong key type",
      details: "None of the keys was able to decode the JWT",
    });
  });
});
