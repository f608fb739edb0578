//! The client's own operations (`select`, `insert`, `upsert`, `update`, `delete`, `rpc`):
//! one request each, answered as PostgREST sent it. A capability like the others, planned
//! as a `Step` on top of the transport, which only builds requests and reads answers.

use crate::error::ErrorReport;
use crate::input;
use crate::op::{Op, Output, Step};
use crate::transport::options::{ReadOptions, RpcOptions, WriteOptions};
use crate::transport::request;
use crate::transport::target::Target;

/// Plans `op` on the table or function `name`; `payload` (rows, a patch or RPC arguments)
/// and `options` are JSON text, `None` when not given.
pub fn plan(
    target: &Target,
    op: &str,
    name: &str,
    payload: Option<&str>,
    options: Option<&str>,
) -> Result<Step, ErrorReport> {
    let t = target;
    let req = match op {
        "select" => request::select(t, name, &input::options(options, ReadOptions::parse)?),
        "insert" => {
            request::insert(t, name, &input::given("rows", payload)?, &input::options(options, WriteOptions::parse)?)
        }
        "upsert" => {
            request::upsert(t, name, &input::given("rows", payload)?, &input::options(options, WriteOptions::parse)?)
        }
        "update" => {
            request::update(t, name, &input::given("patch", payload)?, &input::options(options, WriteOptions::parse)?)
        }
        "delete" => request::delete(t, name, &input::options(options, WriteOptions::parse)?),
        "rpc" => {
            let args = match input::value("args", payload)? {
                serde_json::Value::Null => value!({}),
                args => args,
            };
            request::rpc(t, name, &args, &input::options(options, RpcOptions::parse)?)
        }
        other => {
            return Err(ErrorReport::invalid_input("op", format!("unknown operation {}", crate::error::Quoted(other))));
        }
    }?;
    Ok(Step::Send(Op::new(req, |decoded| Ok(Step::Done(Output::Response(decoded))))))
}
