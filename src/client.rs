//! The client's own operations (`select`, `insert`, `upsert`, `update`, `delete`, `rpc`):
//! one request each, answered as PostgREST sent it. A capability like the others, planned
//! as a `Step` on top of the transport, which only builds requests and reads answers.
//!
//! A client acting for a user (`actingFor`) has no table operations: it holds the
//! service role, which row-level security does not apply to, and `x-agentmem-tenant`
//! scopes agentmem's functions only, so a table read or write would reach every tenant's
//! rows. Its `rpc` stays, and so do the typed stores, which name the tenant themselves.

use crate::arguments::JsonText;
use crate::error::ErrorReport;
use crate::input;
use crate::op::{Op, Output, Step};
use crate::transport::options::{ReadOptions, RpcOptions, WriteOptions};
use crate::transport::request;
use crate::transport::target::Target;

operations!(
    /// The client's operations (`call`'s `op` for the capability `client`).
    ClientOp,
    /// A client call: the table or function, the payload (rows, a patch or RPC arguments)
    /// and the options, as JSON text, left out where an operation has none.
    ClientCall {
        Select = "select" {
            table: String = "table",
            payload: Option<JsonText> = "payload",
            options: Option<JsonText> = "options",
        } -> "Result<any>",
        Insert = "insert" {
            table: String = "table",
            rows: Option<JsonText> = "rows",
            options: Option<JsonText> = "options",
        } -> "Result<any>",
        Upsert = "upsert" {
            table: String = "table",
            rows: Option<JsonText> = "rows",
            options: Option<JsonText> = "options",
        } -> "Result<any>",
        Update = "update" {
            table: String = "table",
            patch: Option<JsonText> = "patch",
            options: Option<JsonText> = "options",
        } -> "Result<any>",
        Delete = "delete" {
            table: String = "table",
            payload: Option<JsonText> = "payload",
            options: Option<JsonText> = "options",
        } -> "Result<any>",
        Rpc = "rpc" {
            function: String = "function",
            args: Option<JsonText> = "args",
            options: Option<JsonText> = "options",
        } -> "Result<any>",
    }
);

/// Plans a client call: one request.
pub fn plan(target: &Target, call: ClientCall) -> Result<Step, ErrorReport> {
    let t = target;
    let op = call.op();
    let text = JsonText::of;
    let write = |options: &Option<JsonText>| input::options(text(options), WriteOptions::parse);
    let (name, req) = match &call {
        ClientCall::Select { table, options, .. } => {
            (table, request::select(t, table, &input::options(text(options), ReadOptions::parse)?))
        }
        ClientCall::Insert { table, rows, options } => {
            (table, request::insert(t, table, &input::given("rows", text(rows))?, &write(options)?))
        }
        ClientCall::Upsert { table, rows, options } => {
            (table, request::upsert(t, table, &input::given("rows", text(rows))?, &write(options)?))
        }
        ClientCall::Update { table, patch, options } => {
            (table, request::update(t, table, &input::given("patch", text(patch))?, &write(options)?))
        }
        ClientCall::Delete { table, options, .. } => (table, request::delete(t, table, &write(options)?)),
        ClientCall::Rpc { function, args, options } => {
            let args = match input::value("args", text(args))? {
                serde_json::Value::Null => value!({}),
                args => args,
            };
            (function, request::rpc(t, function, &args, &input::options(text(options), RpcOptions::parse)?))
        }
    };
    let req = req?;
    if op != ClientOp::Rpc && t.acting_for.is_some() {
        return Err(acting_for_table(op.as_str(), name));
    }
    Ok(Step::Send(Op::new(req, |decoded| Ok(Step::Done(Output::Response(decoded))))))
}

/// Why a client acting for a user may not `op` the table `name`, and what to use instead.
fn acting_for_table(op: &str, name: &str) -> ErrorReport {
    ErrorReport::invalid_input(
        "actingFor",
        format!(
            "{op} on the table {} is refused acting for a user: the service role bypasses row-level security and \
             would reach every user's rows; use agentmem's stores or client.rpc()",
            crate::error::Quoted(name)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    // {"role":"service_role"}
    const SERVICE: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjE5ODM4MTI5OTYsImlzcyI6InN1cGFiYXNlLWRlbW8iLCJyb2xlIjoic2VydmljZV9yb2xlIn0.sig";
    const USER_ID: &str = "0f0e0d0c-0000-4000-8000-00000000000a";

    fn acting() -> Target {
        let mut t = Target::new("https://x.co", SERVICE, None).unwrap();
        t.act_for(USER_ID).unwrap();
        t
    }

    /// A call as the facade makes it: `[name, payload, options]`, each text or not given.
    fn plan(
        t: &Target,
        op: &str,
        name: &str,
        payload: Option<&str>,
        options: Option<&str>,
    ) -> Result<Step, ErrorReport> {
        let given = |v: Option<&str>| v.map_or(serde_json::Value::Null, |v| serde_json::Value::String(v.into()));
        let args = [serde_json::Value::String(name.into()), given(payload), given(options)];
        let op = crate::boundary::named("op", "operation", op)?;
        super::plan(t, ClientCall::read(op, &mut crate::arguments::Values::new(&args))?)
    }

    fn request(step: Step) -> crate::transport::request::HttpRequest {
        match step {
            Step::Send(op) => op.request,
            other => panic!("not a request: {other:?}"),
        }
    }

    #[test]
    fn a_client_acting_for_a_user_has_no_table_operations() {
        let t = acting();
        for (op, payload, options) in [
            ("select", None, None),
            ("select", None, Some(r#"{"head":true,"count":"exact"}"#)),
            ("insert", Some(r#"{"a":1}"#), None),
            ("upsert", Some(r#"[{"a":1}]"#), Some(r#"{"onConflict":["a"]}"#)),
            ("update", Some(r#"{"a":1}"#), Some(r#"{"filters":[["id","eq",1]]}"#)),
            ("delete", None, Some(r#"{"filters":[["id","eq",1]]}"#)),
        ] {
            let e = plan(&t, op, "agent_memories", payload, options).unwrap_err();
            assert_eq!((e.code, e.field.as_deref()), (ErrorCode::InvalidInput, Some("actingFor")), "{op}");
            assert!(
                e.message.starts_with(&format!("{op} on the table \"agent_memories\" is refused acting for a user")),
                "{}",
                e.message
            );
            assert!(e.message.contains("agentmem's stores or client.rpc()"), "{}", e.message);
        }
        assert_eq!(plan(&t, "drop", "x", None, None).unwrap_err().field.as_deref(), Some("op"));
    }

    #[test]
    fn rpcs_act_for_the_user_and_the_plain_service_role_keeps_its_tables() {
        let rpc = request(plan(&acting(), "rpc", "search_agent_memories", Some("{}"), None).unwrap());
        assert_eq!(rpc.header("x-agentmem-tenant"), Some(USER_ID));
        let service = Target::new("https://x.co", SERVICE, None).unwrap();
        for op in ["select", "delete"] {
            let req =
                request(plan(&service, op, "agent_memories", None, Some(r#"{"filters":[["id","eq",1]]}"#)).unwrap());
            assert_eq!(req.header("x-agentmem-tenant"), None, "{op}");
        }
        let user = Target::new(
            "https://x.co",
            "anon",
            Some("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIwZjBlMGQwYy0wMDAwLTQwMDAtODAwMC0wMDAwMDAwMDAwMDEiLCJyb2xlIjoiYXV0aGVudGljYXRlZCJ9.sig"),
        )
        .unwrap();
        assert!(
            plan(&user, "select", "agent_memories", None, None).is_ok(),
            "a signed-in user's table calls run under RLS"
        );
    }
}
