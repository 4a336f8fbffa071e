//! The client side of a Ballista cluster: a session on the scheduler at
//! `host:port` that knows the read functions, and the listing sent with the
//! plan (a table of values per partition, so every executor reads its
//! share: each document's path and entry as listed).

use std::sync::Arc;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use datafusion::common::ScalarValue;
use datafusion::execution::SessionStateBuilder;
use datafusion::logical_expr::{col, lit, Expr, LogicalPlanBuilder, ScalarUDF};
use datafusion::prelude::{DataFrame, SessionConfig, SessionContext};

use crate::read_stage::{Kind, ReadFunction, Readable, Row};
use crate::ClusterError;

/// A session on the scheduler at `address` (`host:port`), its plans cut
/// in `partitions` and batches of at most `batch_files` documents.
pub async fn context(
    address: &str,
    partitions: usize,
    batch_files: usize,
) -> Result<SessionContext, ClusterError> {
    // Ballista connects only when a plan runs, and then says the address
    // in its error: whether anything answers there is asked first.
    let answers = tokio::time::timeout(
        std::time::Duration::from_secs(20),
        tokio::net::TcpStream::connect(address),
    )
    .await;
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
