// Written by scripts/generate.sh from the files of src/memory/tools (a tool is a file, with its
// `TOOL`); do not edit. The tools keep the order they were added in: a new one comes last.

mod context;
mod create;
mod delete;
mod search;
mod update;

/// The memory tools, in the order of their definitions.
pub const TOOLS: &[Definition] = &[create::TOOL, search::TOOL, update::TOOL, delete::TOOL, context::TOOL];

/// What a model is told of each tool of [`TOOLS`], in that order, as one JSON array.
pub const DEFINITIONS: &str =
    json_array!(create::DEFINITION, search::DEFINITION, update::DEFINITION, delete::DEFINITION, context::DEFINITION);
