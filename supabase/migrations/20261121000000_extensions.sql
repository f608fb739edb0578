-- Extensions.
--
-- Creates: the pgvector extension (`vector`), in the `extensions` schema as on every
--          Supabase project.
-- Needs:   the schema `extensions` (Supabase has it; locally supabase/local/bootstrap.sql
--          creates it).
--
-- Re-runnable, like every agentmem SQL file (see 20261121000100_tenancy.sql).
create extension if not exists vector with schema extensions;
