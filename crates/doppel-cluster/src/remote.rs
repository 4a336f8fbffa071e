//! The client side of a Ballista cluster: a session on the scheduler at
//! `host:port` that knows the read functions, the listing sent with the
//! plan (a table of values per partition, so every executor reads its
//! share: each document's path and entry as listed), and whether the
//! scheduler has an executor to run it ([`executors`]).

use std::sync::Arc;
use std::time::Duration;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use datafusion::common::ScalarValue;
use datafusion::execution::SessionStateBuilder;
use datafusion::logical_expr::{col, lit, Expr, LogicalPlanBuilder, ScalarUDF};
use datafusion::prelude::{DataFrame, SessionConfig, SessionContext};

use crate::read_stage::{Kind, ReadFunction, Readable, Row};
use crate::ClusterError;

/// How long a question to the scheduler may take to be answered.
const ANSWER_WITHIN: Duration = Duration::from_secs(20);

/// A session on the scheduler at `address` (`host:port`), its plans cut
/// in `partitions` and batches of at most `batch_files` documents.
pub async fn context(
    address: &str,
    partitions: usize,
    batch_files: usize,
) -> Result<SessionContext, ClusterError> {
    // Ballista connects only when a plan runs, and then says the address
    // in its error: whether anything answers there is asked first.
    let answers =
        tokio::time::timeout(ANSWER_WITHIN, tokio::net::TcpStream::connect(address)).await;
    if !matches!(answers, Ok(Ok(_))) {
        return Err(ClusterError::Unreachable);
    }
    let config = SessionConfig::new_with_ballista()
        .with_target_partitions(partitions)
        .with_batch_size(batch_files.max(1));
    let state = SessionStateBuilder::new()
        .with_default_features()
        .with_config(config)
        .with_scalar_functions(
            Kind::ALL
                .map(|kind| Arc::new(ScalarUDF::from(ReadFunction::reading(kind, Readable::Any))))
                .to_vec(),
        )
        .build();
    SessionContext::remote_with_state(&format!("df://{address}"), state)
        .await
        .map_err(|_| ClusterError::Unreachable)
}

/// The listing's paths as the plan's own values: a table of values per
/// partition of `dealt`, their union the listing, so each partition is a
/// task of its own on whichever executor has room. (One table of values
/// repartitioned by a hash of the path is not that: DataFusion plans the
/// repartition away, and one task read everything.)
pub fn listing(
    context: &SessionContext,
    dealt: Vec<Vec<Vec<&Row<'_>>>>,
) -> Result<DataFrame, ClusterError> {
    let mut union: Option<LogicalPlanBuilder> = None;
    for share in dealt.into_iter().filter(|share| !share.is_empty()) {
        let rows: Vec<Vec<Expr>> = share
            .into_iter()
            .flatten()
            .map(|row| {
                let binary = |bytes: &[u8]| lit(ScalarValue::Binary(Some(bytes.to_vec())));
                vec![binary(row.doc.as_bytes()), binary(&row.entry)]
            })
            .collect();
        let partition = LogicalPlanBuilder::values(rows)?
            .project(vec![
                col("column1").alias("path"),
                col("column2").alias("entry"),
            ])?
            .build()?;
        union = Some(match union {
            None => LogicalPlanBuilder::from(partition),
            Some(before) => before.union(partition)?,
        });
    }
    let plan = union
        .ok_or(ClusterError::Malformed("an empty listing"))?
        .build()?;
    Ok(DataFrame::new(context.state(), plan))
}

/// Whether a scheduler has an executor to run a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Executors {
    /// At least one (as many as it was configured to need) is alive.
    Ready,
    /// None is: a job sent now waits until one joins.
    None,
    /// It did not say (it cannot be reached, or predates the question).
    Unknown,
}

/// Whether the scheduler at `address` has an executor to run a job, as
/// its `/readyz` says (Ballista's readiness: 200 with at least
/// `min_ready_executors` alive, 503 without). A job queued on a scheduler
/// no executor ever joined waits for one forever, which no gRPC call
/// tells the client, so this is how a scan knows it waits.
pub async fn executors(address: &str) -> Executors {
    match readiness(address).await {
        Some(hyper::StatusCode::OK) => Executors::Ready,
        Some(hyper::StatusCode::SERVICE_UNAVAILABLE) => Executors::None,
        _ => Executors::Unknown,
    }
}

/// The status `GET /readyz` is answered with at `address`, if it is
/// within [`ANSWER_WITHIN`].
async fn readiness(address: &str) -> Option<hyper::StatusCode> {
    use http_body_util::Empty;
    use hyper::body::Bytes;
    let asked = async {
        let stream = tokio::net::TcpStream::connect(address).await.ok()?;
        let io = hyper_util::rt::TokioIo::new(stream);
        let (mut sender, connection) = hyper::client::conn::http1::handshake(io).await.ok()?;
        // The connection is driven beside the request, and ends with it.
        tokio::spawn(connection);
        let request = hyper::Request::get("/readyz")
            .header(hyper::header::HOST, address)
            .body(Empty::<Bytes>::new())
            .ok()?;
        let response = sender.send_request(request).await.ok()?;
        Some(response.status())
    };
    tokio::time::timeout(ANSWER_WITHIN, asked).await.ok()?
}
