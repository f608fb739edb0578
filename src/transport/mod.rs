//! PostgREST over `fetch`: request building (pure), response decoding (pure), the retry
//! loop over an injected HTTP implementation, and the RLS credential helpers.

pub mod client;
pub mod credentials;
pub mod encode;
pub mod request;
pub mod response;

use crate::error::{ErrorCode, ErrorReport};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TransportError {
    /// Bad arguments, caught before anything was sent.
    #[error("{message}")]
    InvalidInput { field: String, message: String },
    /// The server answered with an error (already classified).
    #[error("{}", .0.message)]
    Response(ErrorReport),
    #[error("the request did not finish within {timeout_ms} ms")]
    Timeout { timeout_ms: u32 },
    #[error("the request failed before a response arrived: {0}")]
    Network(String),
}

impl TransportError {
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        TransportError::InvalidInput { field: field.into(), message: message.into() }
    }

    pub fn report(&self) -> ErrorReport {
        match self {
            TransportError::InvalidInput { field, message } => {
                ErrorReport::invalid_input(field.clone(), message.clone())
            }
            TransportError::Response(r) => r.clone(),
            TransportError::Timeout { .. } => ErrorReport::new(ErrorCode::Timeout, self.to_string()),
            TransportError::Network(_) => ErrorReport::new(ErrorCode::Network, self.to_string()),
        }
    }
}

impl From<TransportError> for ErrorReport {
    fn from(e: TransportError) -> Self {
        e.report()
    }
}
