// Written by scripts/generate.sh (crates/generate) from the lists of keys the Rust readers of
// options accept (the lists their "is not a known option" messages give); do not edit.
// Each options interface of the .d.ts files declares exactly those keys: a key one side
// has and the other lacks makes its line's type `false`, which `deno check` refuses
// (tests/facades/check.sh). Only checked, never run.
import type * as Main from "../../pkg/unbundled/index.d.ts";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

export const clientOptions: Same<keyof Main.ClientOptions, "url" | "apiKey" | "accessToken" | "fetch" | "timeoutMs" | "retries" | "schema" | "headers" | "actingFor" | "dangerouslyAllowSecretKeyInBrowser"> = true;
export const selectOptions: Same<keyof Main.SelectOptions, "columns" | "filters" | "order" | "limit" | "offset" | "count" | "single" | "maybeSingle" | "head"> = true;
export const writeOptions: Same<keyof Main.WriteOptions | keyof Main.UpsertOptions | keyof Main.FilteredWriteOptions, "returning" | "columns" | "insertColumns" | "count" | "single" | "onConflict" | "ignoreDuplicates" | "missingDefault" | "filters"> = true;
export const rpcOptions: Same<keyof Main.RpcOptions, "idempotent" | "get" | "columns" | "filters" | "order" | "limit" | "offset" | "count" | "single" | "maybeSingle"> = true;
export const memoryToolsOptions: Same<keyof Main.MemoryToolsOptions, "client" | "embed" | "agentId" | "sessionId" | "userId" | "dimensions" | "matchThreshold" | "embedTimeoutMs"> = true;
export const definitionOptions: Same<keyof Main.DefinitionOptions, "strict"> = true;
export const storeOptions: Same<keyof Main.StoreOptions, "client"> = true;
export const unifiedStateManagerOptions: Same<keyof Main.UnifiedStateManagerOptions, "client" | "fields" | "extraFields" | "skipEmpty" | "namespace" | "contractorLeads"> = true;
export const workflowStateStoreOptions: Same<keyof Main.WorkflowStateStoreOptions, "client" | "removedFields"> = true;
