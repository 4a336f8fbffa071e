//! Live changes on PostgreSQL: every write transaction that changes what
//! another process shows sends `NOTIFY` on the collection's channel
//! ([`channel_name`]) with a payload `"<change> <sender>"`, delivered to
//! the listeners when it commits; and [`PgStore::listen`] starts a thread
//! with a connection of its own that `LISTEN`s there and reports each
//! change another sender made ([`LiveEvent::Changed`]), when it first
//! listens ([`LiveEvent::Listening`]), and when its
//! connection is lost and back ([`LiveEvent::Lost`], [`LiveEvent::Back`]),
//! reconnecting by itself.
//!
//! The channel is named by the schema the store's tables are in and the
//! collection's id, which fits the 63 bytes an identifier may have,
//! whatever the folder's path. Channels are the whole database's, while
//! ids are each schema's: named by the id alone, collection 1 of one
//! schema heard collection 1 of every other. The sender is a token of the store that wrote (the
//! process id and a counter), so a store ignores its own writes but two
//! workers in one process still hear each other.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, NoTls};

use super::PgStore;
use crate::live::{Change, Listener, LiveEvent};
use crate::{PgAddress, Result};

/// How long a listener waits for a notification before it looks whether
/// it was asked to stop: how late it stops, and at most how late it
/// notices a lost connection.
const POLL: Duration = Duration::from_millis(200);

/// The longest wait between two attempts to reconnect.
const MAX_RECONNECT_DELAY: Duration = Duration::from_secs(2);

/// The channel of the collection with this id in `schema`.
pub(super) fn channel_name(schema: &str, collection: i64) -> String {
    let schema = xxhash_rust::xxh3::xxh3_64(schema.as_bytes());
    format!("doppel_{schema:016x}_{collection}")
}

/// A token naming one store among every writer of the database.
pub(super) fn sender_token() -> String {
    static STORES: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}.{}",
        std::process::id(),
        STORES.fetch_add(1, Ordering::Relaxed)
    )
}

/// The payload announcing `change` from `sender`.
fn payload(change: Change, sender: &str) -> String {
    format!("{change} {sender}")
}

/// The change a payload announces, unless `own` sent it (or it is not
/// one of ours).
fn change_of(payload: &str, own: &str) -> Option<Change> {
    let (word, sender) = payload.split_once(' ')?;
    (sender != own).then(|| Change::parse(word)).flatten()
}

/// Announce `change` on a collection's `channel`, on `client` (inside a
/// transaction, it is delivered when the transaction commits).
pub(super) fn notify(
    client: &mut impl postgres::GenericClient,
    channel: &str,
    sender: &str,
    change: Change,
) -> std::result::Result<(), postgres::Error> {
    client
        .execute(
            "SELECT pg_notify($1, $2)",
            &[&channel, &payload(change, sender)],
        )
        .map(drop)
}

impl PgStore {
    /// Announce `change` to the other processes on the collection, as
    /// its own statement (after a write committed on its own).
    pub(super) fn announce(&self, change: Change) -> Result<()> {
        notify(&mut *self.client(), &self.channel, &self.sender, change)
            .map_err(self.fail(format_args!("announce a change of {change}")))
    }

    /// Start listening for the changes other processes make to this
    /// collection ([`crate::Store::listen`]): `report` gets
    /// each, and returns `false` to stop. The listener connects on its own
    /// thread, so an unreachable server is reported there
    /// ([`LiveEvent::Lost`]), not here.
    pub(super) fn follow(
        &self,
        report: impl FnMut(LiveEvent) -> bool + Send + 'static,
    ) -> Listener {
        let stop = Arc::new(AtomicBool::new(false));
        let listening = Listening {
            address: self.address.clone(),
            channel: self.channel.clone(),
            own: self.sender.clone(),
            stop: stop.clone(),
        };
        let spawned = std::thread::Builder::new()
            .name("doppel-listener".into())
            .spawn(move || listening.run(report));
        if let Err(error) = spawned {
            tracing::error!(%error, "cannot start the listener");
        }
        Listener { stop }
    }
}

/// A listener thread's settings.
struct Listening {
    address: PgAddress,
    channel: String,
    own: String,
    stop: Arc<AtomicBool>,
}

impl Listening {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Connect, listen, report; after a lost connection, reconnect with a
    /// doubling delay. Ends when stopped or when `report` says so.
    fn run(self, mut report: impl FnMut(LiveEvent) -> bool) {
        let (mut lost, mut first) = (false, true);
        let mut delay = POLL;
        while !self.stopped() {
            match self.connect() {
                Ok(mut client) => {
                    delay = POLL;
                    let listening = if lost {
                        tracing::info!(address = %self.address, "listening again");
                        Some(LiveEvent::Back)
                    } else {
                        first.then_some(LiveEvent::Listening)
                    };
                    first = false;
                    if listening.is_some_and(|event| !report(event)) {
                        return;
                    }
                    let Some(error) = self.follow(&mut client, &mut report) else {
                        return;
                    };
                    tracing::warn!(address = %self.address, %error, "listener lost");
                    lost = true;
                    if !report(LiveEvent::Lost(self.address.to_string())) {
                        return;
                    }
                }
                Err(error) => {
                    tracing::debug!(address = %self.address, %error, "listener cannot connect");
                    if !lost {
                        lost = true;
                        if !report(LiveEvent::Lost(self.address.to_string())) {
                            return;
                        }
                    }
                    self.sleep(delay);
                    delay = (delay * 2).min(MAX_RECONNECT_DELAY);
                }
            }
        }
    }

    fn connect(&self) -> std::result::Result<Client, postgres::Error> {
        let mut client = self.address.config().connect(NoTls)?;
        client.batch_execute(&format!("LISTEN {}", self.channel))?;
        Ok(client)
    }

    /// Report the notifications `client` receives until the connection
    /// fails (its error) or the listener is stopped (`None`).
    fn follow(
        &self,
        client: &mut Client,
        report: &mut impl FnMut(LiveEvent) -> bool,
    ) -> Option<postgres::Error> {
        while !self.stopped() {
            {
                let mut notifications = client.notifications();
                let mut waiting = notifications.timeout_iter(POLL);
                loop {
                    match waiting.next() {
                        Ok(Some(note)) => {
                            let Some(change) = change_of(note.payload(), &self.own) else {
                                continue;
                            };
                            if !report(LiveEvent::Changed(change)) {
                                return None;
                            }
                        }
                        Ok(None) => break,
                        Err(error) => return Some(error),
                    }
                }
            }
            // A connection the server closed without a word is noticed
            // by asking it something.
            if client.is_closed() {
                return client.simple_query("").err();
            }
        }
        None
    }

    /// Sleep `delay`, waking early when stopped.
    fn sleep(&self, delay: Duration) {
        let end = std::time::Instant::now() + delay;
        while !self.stopped() {
            let left = end.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return;
            }
            std::thread::sleep(left.min(POLL));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_hears_every_change_but_its_own() {
        let own = "17.0";
        assert_eq!(
            change_of(&payload(Change::Decisions, "17.1"), own),
            Some(Change::Decisions)
        );
        assert_eq!(
            change_of(&payload(Change::Documents, "18.0"), own),
            Some(Change::Documents)
        );
        assert_eq!(change_of(&payload(Change::Boilerplate, own), own), None);
        assert_eq!(change_of("something else", own), None);
    }

    #[test]
    fn a_channel_name_is_an_identifier_whatever_the_collection() {
        let schema = "a schema named at length, \"quoted\", with ünïcode".repeat(4);
        let name = channel_name(&schema, i64::MAX);
        assert!(name.len() <= 63, "{name}");
        assert!(name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'));
    }

    #[test]
    fn the_same_collection_id_in_two_schemas_has_two_channels() {
        assert_ne!(channel_name("team_a", 1), channel_name("team_b", 1));
        assert_ne!(channel_name("team_a", 1), channel_name("team_a", 2));
    }
}
