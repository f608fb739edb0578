//! delete_memory: deletes one memory by id.

use super::*;

const FIELDS: &[&str] = &["memory_id"];

/// The tool as a model calls it.
pub const TOOL: Definition = Definition {
    name: "delete_memory",
    fields: FIELDS,
    parse,
    migration: None,
};

/// What a model is told of it.
pub const DEFINITION: &str = r#"{
  "description": "Forget a memory that is wrong or obsolete, or that the user asks you to forget.",
  "input_schema": {
    "type": "object",
    "properties": {
      "memory_id": {
        "description": "The id of the memory to delete.",
        "format": "uuid",
        "type": "string"
      }
    },
    "required": [
      "memory_id"
    ],
    "additionalProperties": false
  }
}"#;

#[derive(Debug)]
struct Delete {
    id: String,
}

fn parse(f: &Object, _: &Settings) -> Result<Box<dyn Tool>, Invalid> {
    Ok(Box::new(Delete { id: required_uuid(f, "memory_id")? }))
}

impl Tool for Delete {
    fn rpc(&self, _: &Settings, _: Value) -> Rpc {
        Rpc {
            function: "delete_agent_memory",
            args: value!({ "p_memory_id": self.id }),
            idempotent: true,
            columns: None,
        }
    }

    fn result(&self, data: Value) -> Result<Value, MemoryError> {
        if data != Value::Bool(true) {
            return Err(MemoryError::NotFound(self.id.clone()));
        }
        Ok(value!({ "success": true, "deleted": self.id }))
    }
}
