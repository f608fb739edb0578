//! A small connection pool and the per-request transaction: BEGIN, the request's settings,
//! its statement, the optional veto and COMMIT, pipelined so a request costs one round trip.

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use futures_util::future::join_all;
use tokio::sync::Semaphore;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, NoTls, SimpleQueryMessage, Statement};

use crate::shape::Row;
use crate::sql::Sql;
use crate::statements::{Plan, Statements};

pub struct Pool {
    url: String,
    idle: Mutex<Vec<Conn>>,
    permits: Semaphore,
    /// Bumped by every schema reload; a connection whose statements were prepared under an
    /// older one drops them when it is next taken.
    generation: AtomicU64,
}

struct Conn {
    client: Client,
    statements: Statements,
    generation: u64,
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
        Pool { url, idle: Mutex::new(Vec::new()), permits: Semaphore::new(size), generation: AtomicU64::new(0) }
    }

    pub fn forget_statements(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    pub async fn query_text(&self, sql: &str) -> Result<Option<String>, DbFailure> {
        let _permit = self.permits.acquire().await.expect("semaphore never closed");
        let conn = self.take().await?;
        let out = conn.client.simple_query(sql).await;
        self.give_back(conn);
        let text = out?.iter().rev().find_map(|m| match m {
            SimpleQueryMessage::Row(r) => Some(r.get(0).map(str::to_owned)),
            _ => None,
        });
        Ok(text.flatten())
    }

    async fn take(&self) -> Result<Conn, DbFailure> {
        let existing = self.idle.lock().expect("pool lock").pop();
        let generation = self.generation.load(Ordering::Relaxed);
        match existing {
            Some(mut c) if !c.client.is_closed() => {
                if c.generation != generation {
                    c.statements.clear();
                    c.generation = generation;
                }
                Ok(c)
            }
            _ => match connect(&self.url).await {
                Ok(client) => Ok(Conn { client, statements: Statements::default(), generation }),
                Err(e) => Err(DbFailure::Connection(e.to_string())),
            },
        }
    }

    fn give_back(&self, conn: Conn) {
        if !conn.client.is_closed() {
            self.idle.lock().expect("pool lock").push(conn);
        }
    }

    /// Runs `setup`, `statement` and the optional `veto` check in one transaction, all sent
    /// before any answer is awaited, so a request costs a single Postgres round trip
    /// (PostgREST pipelines its statements for the same reason). When a statement fails,
    /// Postgres skips the rest of its messages and the statements after it fail as the
    /// transaction is aborted, and COMMIT then rolls back: even failures need no second
    /// round trip. `veto` is a statement that raises (e.g. a singular response that did not
    /// get exactly one row); `rollback` ends with ROLLBACK instead (an allowed `tx=rollback`).
    pub async fn run(
        &self,
        setup: &Sql,
        statement: &Sql,
        read_only: bool,
        veto: Option<&str>,
        rollback: bool,
    ) -> Result<Row, DbFailure> {
        let _permit = self.permits.acquire().await.expect("semaphore never closed");
        let mut conn = self.take().await?;
        let begin = if read_only {
            "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY"
        } else {
            "BEGIN ISOLATION LEVEL READ COMMITTED"
        };
        let end = if rollback { "ROLLBACK" } else { "COMMIT" };
        let veto = veto.map(Sql::bare);
        let mut steps = vec![setup, statement];
        steps.extend(veto.as_ref());
        let mut outcome = conn.pipeline(begin, &steps, end).await;
        if outcome.as_ref().err().is_some_and(StepError::stale_statement) {
            // The failed transaction was rolled back; once more, preparing afresh.
            conn.statements.clear();
            outcome = conn.pipeline(begin, &steps, end).await;
        }
        self.give_back(conn);
        let mut results = outcome.map_err(|e| DbFailure::from(e.error))?;
        last_row(&results.swap_remove(1)).ok_or_else(|| DbFailure::Connection("the statement returned no row".into()))
    }
}

/// A statement's failure, and whether it ran a prepared statement.
struct StepError {
    error: tokio_postgres::Error,
    prepared: bool,
}

impl StepError {
    /// The prepared statement itself is stale: the server no longer has it (tokio-postgres
    /// names them `s<n>`), or its result type changed under it. The same SQLSTATEs raised by
    /// the SQL it runs are the client's.
    fn stale_statement(&self) -> bool {
        let Some(db) = self.error.as_db_error().filter(|_| self.prepared) else { return false };
        match *db.code() {
            SqlState::INVALID_SQL_STATEMENT_NAME => db
                .message()
                .strip_prefix("prepared statement \"s")
                .and_then(|m| m.strip_suffix("\" does not exist"))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())),
            SqlState::FEATURE_NOT_SUPPORTED => db.message() == "cached plan must not change result type",
            _ => false,
        }
    }
}

enum Reply {
    Prepared(Statement),
    Rows(Vec<tokio_postgres::Row>),
}

/// A request in the pipeline, with the index of its step (None for BEGIN and COMMIT).
type Pending<'a> = Pin<Box<dyn Future<Output = (Option<usize>, Result<Reply, tokio_postgres::Error>)> + Send + 'a>>;

impl Conn {
    /// Sends `begin`, every step and `end` before awaiting any answer (tokio-postgres writes
    /// the requests of futures polled together back to back). `begin` and `end` are never
    /// prepared: a prepared statement gone missing (DEALLOCATE in a function) must fail
    /// inside the transaction, never keep it from opening (the steps would run outside it)
    /// or from ending.
    async fn pipeline(
        &mut self,
        begin: &'static str,
        steps: &[&Sql],
        end: &'static str,
    ) -> Result<Vec<Vec<tokio_postgres::Row>>, StepError> {
        let plans: Vec<Plan> = steps.iter().map(|s| self.statements.plan(&s.text)).collect();
        let params: Vec<Vec<&(dyn ToSql + Sync)>> =
            steps.iter().map(|s| s.params.iter().map(|p| p as &(dyn ToSql + Sync)).collect()).collect();
        let typed: Vec<Vec<(&(dyn ToSql + Sync), Type)>> =
            params.iter().map(|ps| ps.iter().map(|p| (*p, Type::TEXT)).collect()).collect();
        let types: Vec<Vec<Type>> = steps.iter().map(|s| vec![Type::TEXT; s.params.len()]).collect();
        let (client, typed, params, types) = (&self.client, &typed, &params, &types);
        let simple = |text: &'static str| -> Pending {
            Box::pin(async move { (None, client.batch_execute(text).await.map(|()| Reply::Rows(Vec::new()))) })
        };
        let mut pending: Vec<Pending> = vec![simple(begin)];
        for (i, plan) in plans.iter().enumerate() {
            let text = steps[i].text.as_str();
            let unnamed = || -> Pending {
                Box::pin(async move { (Some(i), client.query_typed(text, &typed[i]).await.map(Reply::Rows)) })
            };
            match plan {
                Plan::Cached(statement) => {
                    let params = &params[i];
                    pending.push(Box::pin(
                        async move { (Some(i), client.query(statement, params).await.map(Reply::Rows)) },
                    ));
                }
                Plan::Prepare => {
                    let types = &types[i];
                    pending.push(Box::pin(async move {
                        (Some(i), client.prepare_typed(text, types).await.map(Reply::Prepared))
                    }));
                    pending.push(unnamed());
                }
                Plan::Unnamed => pending.push(unnamed()),
            }
        }
        pending.push(simple(end));
        let replies = join_all(pending).await;
        self.settle(steps, &plans, replies)
    }

    /// Keeps what was prepared and returns each step's rows, or the first failure in the
    /// order sent: the later ones only report the aborted transaction.
    fn settle(
        &mut self,
        steps: &[&Sql],
        plans: &[Plan],
        replies: Vec<(Option<usize>, Result<Reply, tokio_postgres::Error>)>,
    ) -> Result<Vec<Vec<tokio_postgres::Row>>, StepError> {
        let mut rows: Vec<Vec<tokio_postgres::Row>> = steps.iter().map(|_| Vec::new()).collect();
        let mut failure = None;
        for (step, reply) in replies {
            match (step, reply) {
                // Kept even when the transaction failed: prepared statements outlive it.
                (Some(i), Ok(Reply::Prepared(statement))) => self.statements.keep(&steps[i].text, statement),
                (Some(i), Ok(Reply::Rows(r))) => rows[i] = r,
                (None, Ok(_)) => {}
                (step, Err(error)) => {
                    let prepared = step.is_some_and(|i| matches!(plans[i], Plan::Cached(_)));
                    failure.get_or_insert(StepError { error, prepared });
                }
            }
        }
        failure.map_or(Ok(rows), Err)
    }
}

fn last_row(rows: &[tokio_postgres::Row]) -> Option<Row> {
    let row = rows.last()?;
    let text = |name: &str| row.try_get::<_, Option<String>>(name).ok().flatten();
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
