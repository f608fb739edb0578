// Types of agentmem-supabase/ids, which the main entry re-exports: these helpers behave the same
// from either entry, so they are declared once.

export * from "./errors.js";

/** A UUID string, or one of RFC 9562's well-known namespaces (Python's `uuid.NAMESPACE_*`). */
export type UuidNamespace = "dns" | "url" | "oid" | "x500" | (string & {});

/** `uuid.uuid5(namespace, name)`, byte-identical to Python for any Unicode name. */
export declare function uuid5(name: string, namespace: UuidNamespace): string;
/** `uuid5` over many names with one namespace; errors name the offending index. */
export declare function uuid5Batch(names: string[], namespace: UuidNamespace): string[];
/**
 * COIA's unified-memory conversation id for a contractor lead:
 * `uuid5(contractorLeadId, namespace)`, namespace `00000000-0000-0000-0000-000000000001`
 * unless given.
 */
export declare function conversationId(contractorLeadId: string, namespace?: UuidNamespace | null): string;

/** What LangGraph reads from `config.configurable`. */
export interface ThreadConfig {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id?: string;
}

// Generated from agentmem's Rust declaration CoiaFlow; do not edit.
export type CoiaFlow = "chat" | "research" | "intelligence" | "landing" | "bidcard";

/**
 * COIA's LangGraph config for an entry flow. `id` is the contractor_lead_id
 * or session id; `landing` and `bidcard` mint `landing-{12 hex}` / `bidcard-{12 hex}` when
 * it is absent, the other flows require it.
 */
export declare function coiaThread(flow: CoiaFlow, id?: string | null): ThreadConfig;
/** `cim-{dealId}-{cimId}`; the deal id is written as a lowercase UUID. */
export declare function cimThreadId(dealId: string, cimId: string): string;
/** `supervisor-{dealId}-{timestampMs}`. */
export declare function supervisorThreadId(dealId: string, timestampMs: number): string;

export type ParsedThreadId =
  | { kind: "cim"; dealId: string; cimId: string }
  | { kind: "supervisor"; dealId: string; timestampMs: number }
  | { kind: "landing"; token: string }
  | { kind: "bidcard"; token: string }
  | { kind: "other" };

/** Takes apart the exact shapes the builders produce; anything else is `{ kind: "other" }`. */
export declare function parseThreadId(threadId: string): ParsedThreadId;
/**
 * Exactly what SQL `extract_deal_id_from_thread(thread_id)` returns: the deal
 * UUID, or `null` (uppercase hex, malformed UUIDs, other prefixes, `null` input).
 */
export declare function extractDealId(threadId: string | null): string | null;
