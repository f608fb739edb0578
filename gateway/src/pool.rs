//! A small connection pool and the per-request transaction: BEGIN, the request's
//! settings, the statement, then COMMIT or ROLLBACK: one transaction per request, so a
//! failed bulk write leaves nothing behind.

use std::sync::Mutex;

use tokio::sync::Semaphore;
use tokio_postgres::{Client, NoTls, SimpleQueryMessage};

use crate::app::Row;
use crate::error::ApiError;

pub struct Pool {
    url: String,
    idle: Mutex<Vec<Client>>,
    permits: Semaphore,
}

pub enum DbFailure {
    Db(Box<tokio_postgres::error::DbError>),
    Api(ApiError),
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

    /// Runs `setup` and `statement` in one transaction. `decide` sees the result row
    /// before COMMIT and may veto it (singular responses, tx=rollback).
    pub async fn run(
        &self,
        setup: &str,
        statement: &str,
        read_only: bool,
        decide: impl FnOnce(&Row) -> Result<bool, ApiError>,
    ) -> Result<Row, DbFailure> {
        let _permit = self.permits.acquire().await.expect("semaphore never closed");
        let client = self.take().await?;
        let begin = if read_only {
            "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY"
        } else {
            "BEGIN ISOLATION LEVEL READ COMMITTED"
        };
        let result = client.simple_query(&format!("{begin}; {setup}; {statement}")).await;
        let outcome = match result {
            Ok(msgs) => match last_row(&msgs) {
                Some(row) => match decide(&row) {
                    Ok(true) => client.batch_execute("COMMIT").await.map(|_| row).map_err(DbFailure::from),
                    Ok(false) => client.batch_execute("ROLLBACK").await.map(|_| row).map_err(DbFailure::from),
                    Err(e) => {
                        let _ = client.batch_execute("ROLLBACK").await;
                        Err(DbFailure::Api(e))
                    }
                },
                None => {
                    let _ = client.batch_execute("ROLLBACK").await;
                    Err(DbFailure::Connection("the statement returned no row".into()))
                }
            },
            Err(e) => {
                let _ = client.batch_execute("ROLLBACK").await;
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
    })
}
