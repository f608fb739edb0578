//! delete_memory: deletes one memory by id.

use super::*;

pub const FIELDS: &[&str] = &["memory_id"];

#[derive(Debug)]
struct Delete {
    id: String,
}

pub fn parse(f: &Object, _: &Settings) -> Result<Box<dyn Tool>, Invalid> {
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
