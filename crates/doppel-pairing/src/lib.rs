//! Pairing: candidate tables that propose pairs without comparing all of
//! them, the kept pairs with every algorithm's score, the library that
//! verifies candidates and judges pairs under live thresholds, and the
//! clustering of judged pairs, each cluster's keeper first (`keeper`).
//! Built on the engine; knows nothing of files.

pub mod boilerplate;
pub mod candidates;
pub mod cluster;
pub mod keeper;
pub mod library;
pub mod pairs;
