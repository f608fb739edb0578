//! PostgREST over `fetch`: request building (pure), response decoding (pure), the retry
//! loop over an injected HTTP implementation, and the RLS credential helpers.

pub mod client;
pub mod config;
pub mod credentials;
pub mod encode;
pub mod filter;
pub mod options;
pub mod request;
pub mod response;
pub mod target;

use crate::error::{ErrorCode, ErrorReport, Invalid};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TransportError {
    /// Bad arguments, caught before anything was sent.
    #[error(transparent)]
    InvalidInput(#[from] Invalid),
    /// The server answered with an error (already classified).
    #[error("{}", .0.message)]
    Response(ErrorReport),
    /// Credentials that cannot stand for anyone (a user token that is not a JWT): the
    /// same `unauthorized` the server would answer, caught before sending.
    #[error("{message}")]
    Unauthorized { field: String, message: String },
    #[error("the request to {origin} did not finish within {timeout_ms} ms (timeoutMs)")]
    Timeout { origin: String, timeout_ms: u32 },
    #[error("could not reach {origin} ({message}): is the url right and the server up?")]
    Network { origin: String, message: String },
}

impl TransportError {
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        TransportError::InvalidInput(Invalid::new(field, message))
    }

    pub fn report(&self) -> ErrorReport {
        match self {
            TransportError::InvalidInput(e) => e.clone().into(),
            TransportError::Unauthorized { field, message } => {
                ErrorReport { field: Some(field.clone()), ..ErrorReport::new(ErrorCode::Unauthorized, message.clone()) }
            }
            TransportError::Response(r) => r.clone(),
            TransportError::Timeout { .. } => ErrorReport::new(ErrorCode::Timeout, self.to_string()),
            TransportError::Network { .. } => ErrorReport::new(ErrorCode::Network, self.to_string()),
        }
    }
}

impl From<TransportError> for ErrorReport {
    fn from(e: TransportError) -> Self {
        e.report()
    }
}

/// `scheme://host[:port]` of a URL, for messages: where a request went, never its query
/// (which may carry filter values).
pub fn origin(url: &str) -> &str {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    let end = url[after_scheme..].find(['/', '?', '#']).map_or(url.len(), |i| after_scheme + i);
    &url[..end]
}
