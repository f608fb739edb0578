//! A small connection pool and the per-request transaction: the request's settings and
//! its statement in one transaction, so a failed bulk write leaves nothing behind, sent as
//! one message, so it costs one round trip.

use std::sync::Mutex;

use tokio::sync::Semaphore;
use tokio_postgres::{Client, NoTls, SimpleQueryMessage};

use crate::shape::Row;

pub struct Pool {
    url: String,
    idle: Mutex<Vec<Client>>,
    permits: Semaphore,
}

pub enum DbFailure {
    Db(Box<tokio_postgres::error::DbError>),
    Connection(String),
}

impl From<tokio_postgres::Error> for DbFailure {
    fn from(e: tokio_postgres::Error) -> Self {
        match e.as_db_error() {
            Some(db) => DbFailure::Db(Box::new(db.clone())),
            None => DbFailure::Connection(e.to_string()),
        }
    }
}

pub async fn connect(url: &str) -> Result<Client, tokio_postgres::Error> {
    let (client, connection) = tokio_postgres::connect(url, NoTls).await?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    client.batch_execute("SET standard_conforming_strings = on").await?;
    Ok(client)
}

impl Pool {
    pub fn new(url: String, size: usize) -> Pool {
        Pool { url, idle: Mutex::new(Vec::new()), permits: Semaphore::new(size) }
    }

    pub async fn query_text(&self, sql: &str) -> Result<Option<String>, DbFailure> {
        let _permit = self.permits.acquire().await.expect("semaphore never closed");
        let client = self.take().await?;
        let out = client.simple_query(sql).await;
        let text = match out {
            Ok(msgs) => msgs.iter().rev().find_map(|m| match m {
                SimpleQueryMessage::Row(r) => Some(r.get(0).map(str::to_owned)),
                _ => None,
            }),
            Err(e) => {
                self.give_back(client);
                return Err(e.into());
            }
        };
        self.give_back(client);
        Ok(text.flatten())
    }

    async fn take(&self) -> Result<Client, DbFailure> {
        let existing = self.idle.lock().expect("pool lock").pop();
        match existing {
            Some(c) if !c.is_closed() => Ok(c),
            _ => connect(&self.url).await.map_err(|e| DbFailure::Connection(e.to_string())),
        }
    }

    fn give_back(&self, client: Client) {
        if !client.is_closed() {
            self.idle.lock().expect("pool lock").push(client);
        }
    }

    /// Runs `setup`, `statement` and the optional `veto` check in one transaction, sent as
    /// ONE simple-query message, so a request costs a single Postgres round trip (PostgREST
    /// pipelines its statements for the same reason). Without explicit BEGIN the message is
    /// an implicit transaction: Postgres commits it at the end, or rolls it back by itself
    /// when any statement fails, so even failures need no second round trip. `veto` is a
    /// statement that raises (e.g. a singular response that did not get exactly one row);
    /// `rollback` ends the transaction with ROLLBACK instead (an allowed `tx=rollback`), the
    /// one case that needs an explicit block and, after an error, a second message.
    pub async fn run(
        &self,
        setup: &str,
        statement: &str,
        read_only: bool,
        veto: Option<&str>,
        rollback: bool,
    ) -> Result<Row, DbFailure> {
        let _permit = self.permits.acquire().await.expect("semaphore never closed");
        let client = self.take().await?;
        let mode = if read_only { "READ COMMITTED READ ONLY" } else { "READ COMMITTED" };
        let veto = veto.map(|v| format!("; {v}")).unwrap_or_default();
        let sql = if rollback {
            format!("BEGIN ISOLATION LEVEL {mode}; {setup}; {statement}{veto}; ROLLBACK")
        } else {
            format!("SET TRANSACTION ISOLATION LEVEL {mode}; {setup}; {statement}{veto}")
        };
        let outcome = match client.simple_query(&sql).await {
            Ok(msgs) => last_row(&msgs).ok_or_else(|| DbFailure::Connection("the statement returned no row".into())),
            Err(e) => {
                if rollback {
                    let _ = client.batch_execute("ROLLBACK").await;
                }
                Err(e.into())
            }
        };
        self.give_back(client);
        outcome
    }
}

fn last_row(msgs: &[SimpleQueryMessage]) -> Option<Row> {
    let row = msgs.iter().rev().find_map(|m| match m {
        SimpleQueryMessage::Row(r) => Some(r),
        _ => None,
    })?;
    let text = |name: &str| row.try_get(name).ok().flatten().map(str::to_owned);
    let int = |name: &str| text(name).and_then(|t| t.parse::<i64>().ok());
    Some(Row {
        total: int("total_result_set"),
        page_total: int("page_total").unwrap_or(0),
        body: text("body"),
        guc_headers: text("response_headers"),
        guc_status: text("response_status"),
        inserted: int("response_inserted"),
        location: text("location"),
    })
}
