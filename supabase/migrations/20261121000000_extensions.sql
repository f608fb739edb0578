-- pgvector, in the `extensions` schema as on every Supabase project (the schema exists
-- there already; locally supabase/local/bootstrap.sql creates it).
create extension if not exists vector with schema extensions;
