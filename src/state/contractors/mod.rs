//! COIA's business rows: contractor leads and the contractors they
//! convert into, each written by one path. The state save's lead upsert lives in
//! [`super::unified`] (same request as the state); this store has the rest.
//!
//! Operations (SQL: supabase/migrations/20261122000600_contractors.sql):
//! - `buildContractorProfile(leadId, profile)` → `rpc/build_contractor_profile`
//! - `convertLead(leadId, account?)` → `rpc/convert_contractor_lead`
//! - `getLead(leadId)` → `GET contractor_leads?id=eq.…`
//! - `contractorForLead(leadId)` → `GET contractors?contractor_lead_id=eq.…`

pub mod codec;

use serde_json::{Map, Value};

pub use codec::{ACCOUNT_FIELDS, Kind, LEAD_FIELDS, StateLead, state_lead};

use super::{Context, Op, StateError, in_tenant, json_op};
use crate::arguments::Arguments;
use crate::error::{ErrorReport, Invalid};
use crate::input;
use crate::transport::options::{ReadOptions, RpcOptions};
use crate::transport::request;

/// What this capability's migration creates ([`crate::migration::Migration`]).
pub const MIGRATION: crate::migration::Migration = (
    "20261122000600_contractors.sql",
    &[
        "contractor_leads",
        "contractors",
        "build_contractor_profile",
        "convert_contractor_lead",
        "agentmem.jsonb_array_union",
        "agentmem.contractor_lead_keep_conversion",
        "agentmem.contractor_only_keys",
        "agentmem.contractor_lead_fields",
        "agentmem.contractor_lead_merge",
        "agentmem.contractor_check_lead_id",
        "agentmem.contractor_check_types",
    ],
);

/// The columns a lead is read with (all but tenant_id, as the RPCs return it).
pub const LEAD_COLUMNS: &str = "id,company_name,contact_name,contact_email,contact_phone,business_address,license_number,years_in_business,employee_count,specialties,certifications,service_areas,project_types,social_links,scores,data_sources,details,discovered_at,converted_to_contractor,converted_at,created_at,updated_at";

/// The columns a contractor is read with.
pub const CONTRACTOR_COLUMNS: &str = "id,contractor_lead_id,company_name,contact_name,contact_email,contact_phone,business_address,license_number,years_in_business,employee_count,specialties,certifications,service_areas,project_types,social_links,availability_status,tier,verified,license_verified,insurance_verified,created_at,updated_at";

/// `ContractorStore` takes no options yet; anything given is a mistake worth reporting.
pub fn check_options(options: &Value) -> Result<Value, Invalid> {
    if !options.is_null() {
        input::only(input::object(options, "options")?, "options", "option", &super::STORE_OPTIONS)?;
    }
    Ok(Value::Object(Map::new()))
}

fn lead_id(v: &Value) -> Result<String, Invalid> {
    input::text(v, "contractorLeadId", 255)
}

/// A row the server sent back, checked to be one (`key` present).
fn row(v: Value, what: &str, key: &str) -> Result<Value, StateError> {
    match v {
        Value::Object(ref m) if m.contains_key(key) => Ok(v),
        other => Err(StateError::Server(format!("expected a {what}, the server sent {}", crate::json::Text(&other)))),
    }
}

/// The row of `table` whose `key` is the lead `lead`, or null.
fn by_lead(
    t: &crate::transport::target::Target,
    lead: &Value,
    table: &'static str,
    columns: &str,
    key: &'static str,
) -> Result<Op, ErrorReport> {
    let id = lead_id(lead)?;
    let read = ReadOptions {
        columns: Some(columns.into()),
        filters: in_tenant(t, vec![value!([key, "eq", id])]),
        maybe_single: true,
        ..Default::default()
    };
    Ok(json_op(request::select(t, table, &read)?, move |v| match v {
        Value::Null => Ok(Value::Null),
        v => row(v, table, key),
    }))
}

operations!(
    /// The operations of `ContractorStore` (`call`'s `op` for the capability `state`).
    Operation,
    /// A call of `ContractorStore`, its arguments as the caller gave them (JSON).
    Call {
        BuildContractorProfile = "buildContractorProfile" {
            contractor_lead_id: Value = "contractorLeadId",
            profile: Value = "profile",
        } -> "ContractorLead",
        ConvertLead = "convertLead" {
            contractor_lead_id: Value = "contractorLeadId",
            account: Value = "account",
        } -> "Contractor",
        GetLead = "getLead" { contractor_lead_id: Value = "contractorLeadId" } -> "ContractorLead | null",
        ContractorForLead = "contractorForLead" { contractor_lead_id: Value = "contractorLeadId" } -> "Contractor | null",
    }
);

pub fn plan(op: &str, args: &mut dyn Arguments, cx: &Context) -> Result<Op, ErrorReport> {
    check_options(cx.options)?;
    let t = cx.target;
    // Both writes are safe to resend: a profile merge applied twice is the same lead, and a
    // lead converts once (the repeat returns its contractor).
    let idempotent = RpcOptions { idempotent: true, ..Default::default() };
    Ok(match Call::read(super::op_of("ContractorStore", op)?, args)? {
        Call::BuildContractorProfile { contractor_lead_id, profile } => {
            let id = lead_id(&contractor_lead_id)?;
            let profile = codec::profile(&profile)?;
            let args = value!({ "p_contractor_lead_id": id, "p_profile": profile });
            json_op(request::rpc(t, "build_contractor_profile", &args, &idempotent)?, |v| {
                row(v, "contractor lead", "id")
            })
        }
        Call::ConvertLead { contractor_lead_id, account } => {
            let id = lead_id(&contractor_lead_id)?;
            let account = codec::account(&account)?;
            let args = value!({ "p_contractor_lead_id": id, "p_account": account });
            json_op(request::rpc(t, "convert_contractor_lead", &args, &idempotent)?, |v| {
                row(v, "contractor", "contractor_lead_id")
            })
        }
        Call::GetLead { contractor_lead_id } => by_lead(t, &contractor_lead_id, "contractor_leads", LEAD_COLUMNS, "id")?,
        Call::ContractorForLead { contractor_lead_id } => {
            by_lead(t, &contractor_lead_id, "contractors", CONTRACTOR_COLUMNS, "contractor_lead_id")?
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::target::Target;
    use serde_json::json;

    fn run(op: &str, args: &[Value]) -> Result<Op, ErrorReport> {
        let t = Target::new("https://x.supabase.co", "anon-key", None).unwrap();
        plan(op, &mut crate::arguments::Values::new(args), &Context { target: &t, options: &Value::Null, now_ms: 1.0 })
    }

    fn body(op: &Op) -> Value {
        serde_json::from_str(op.request.body.as_deref().unwrap()).unwrap()
    }

    #[test]
    fn writes_are_one_idempotent_rpc_each_with_coerced_input() {
        let op = run(
            "buildContractorProfile",
            &[json!("landing-abc123def456"), json!({"company_name": "Acme", "years_in_business": "15", "website": "https://a.test", "scores": {"q": 80.4}})],
        )
        .unwrap();
        assert_eq!(op.request.method, "POST");
        assert!(op.request.url.ends_with("/rest/v1/rpc/build_contractor_profile"), "{}", op.request.url);
        assert!(op.request.idempotent);
        assert_eq!(
            body(&op),
            json!({"p_contractor_lead_id": "landing-abc123def456", "p_profile": {"company_name": "Acme", "years_in_business": 15, "scores": {"q": 80}, "details": {"website": "https://a.test"}}})
        );
        assert_eq!(op.finish(json!({"id": "landing-abc123def456"})).unwrap()["id"], json!("landing-abc123def456"));

        let op = run("convertLead", &[json!("lead-1")]).unwrap();
        assert!(op.request.url.ends_with("/rpc/convert_contractor_lead"));
        assert!(op.request.idempotent, "a resend returns the contractor the first attempt made");
        assert_eq!(body(&op), json!({"p_contractor_lead_id": "lead-1", "p_account": {}}));
        let op = run("convertLead", &[json!("lead-1"), json!({"tier": 2, "availability_status": "busy"})]).unwrap();
        assert_eq!(body(&op)["p_account"], json!({"tier": 2, "availability_status": "busy"}));
    }

    #[test]
    fn reads_are_one_get_in_the_callers_tenant() {
        let op = run("getLead", &[json!("lead-1")]).unwrap();
        assert_eq!(op.request.method, "GET");
        assert!(op.request.url.contains("/rest/v1/contractor_leads?"), "{}", op.request.url);
        assert!(op.request.url.contains("id=eq.lead-1"), "{}", op.request.url);
        assert!(!op.request.url.contains("tenant_id"), "anon has no tenant to filter by");
        assert_eq!(op.finish(Value::Null).unwrap(), Value::Null);

        let mut t = Target::new("https://x.supabase.co", "sb_secret_x", None).unwrap();
        t.act_for("3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b").unwrap();
        let op =
            plan("contractorForLead", &mut crate::arguments::Values::new(&[json!("lead-1")]), &Context { target: &t, options: &Value::Null, now_ms: 1.0 })
                .unwrap();
        assert!(op.request.url.contains("/rest/v1/contractors?"), "{}", op.request.url);
        assert!(op.request.url.contains("tenant_id=eq.3f2b8a9e-1c4d-4e5f-9a0b-1c2d3e4f5a6b"), "{}", op.request.url);
        assert!(op.request.url.contains("contractor_lead_id=eq.lead-1"), "{}", op.request.url);
    }

    #[test]
    fn bad_input_is_refused_before_any_request() {
        let field = |r: Result<Op, ErrorReport>| r.unwrap_err().field.unwrap_or_default();
        assert_eq!(field(run("buildContractorProfile", &[json!(""), json!({})])), "contractorLeadId");
        assert_eq!(field(run("buildContractorProfile", &[json!("x".repeat(256)), json!({})])), "contractorLeadId");
        assert_eq!(field(run("buildContractorProfile", &[json!("l"), Value::Null])), "profile");
        assert_eq!(
            field(run("buildContractorProfile", &[json!("l"), json!({"employee_count": "a dozen"})])),
            "profile.employee_count"
        );
        assert_eq!(field(run("convertLead", &[json!(7)])), "contractorLeadId");
        assert_eq!(field(run("convertLead", &[json!("l"), json!({"verified": true})])), "account.verified");
        assert_eq!(field(run("getLead", &[Value::Null])), "contractorLeadId");
        assert_eq!(field(run("deleteLead", &[json!("l")])), "op");
        let t = Target::new("https://x.supabase.co", "anon-key", None).unwrap();
        let e = plan("getLead", &mut crate::arguments::Values::new(&[json!("l")]), &Context { target: &t, options: &json!({"x": 1}), now_ms: 1.0 })
            .unwrap_err();
        assert_eq!(e.field.as_deref(), Some("options.x"));
    }

    #[test]
    fn answers_that_are_not_rows_are_server_errors() {
        let op = run("convertLead", &[json!("l")]).unwrap();
        assert_eq!(op.finish(json!({"id": "x"})).unwrap_err().code, crate::error::ErrorCode::Server);
        let op = run("buildContractorProfile", &[json!("l"), json!({})]).unwrap();
        assert_eq!(op.finish(Value::Null).unwrap_err().code, crate::error::ErrorCode::Server);
    }
}
