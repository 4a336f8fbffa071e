//! Where an index is: a file (SQLite, the default) or a PostgreSQL
//! database (`postgres://…` or `postgresql://…`, the team store). Its
//! display never shows a password: every message naming a database names
//! it through [`StoreAddress`]'s or [`PgAddress`]'s `Display`.

use std::fmt;
use std::path::PathBuf;

use super::{Result, StoreError};

/// The URL schemes that name a PostgreSQL database.
const POSTGRES_SCHEMES: [&str; 2] = ["postgres://", "postgresql://"];

/// An index's address, as a user gives it (`--store`, `store =` in the
/// configuration).
#[derive(Clone, PartialEq, Eq)]
pub enum StoreAddress {
    /// An SQLite index file.
    File(PathBuf),
    /// A PostgreSQL database.
    #[cfg(feature = "postgres")]
    Postgres(Box<PgAddress>),
}

impl StoreAddress {
    /// `text` as an address: a `postgres://` or `postgresql://` URL is a
    /// database (its password, if any, is kept for connecting and never
    /// shown), anything else a file path. A URL that does not parse, or
    /// any URL in a build without the `postgres` feature, is an error
    /// naming it without its password.
    pub fn parse(text: &str) -> Result<StoreAddress> {
        if !POSTGRES_SCHEMES.iter().any(|s| text.starts_with(s)) {
            return Ok(StoreAddress::File(PathBuf::from(text)));
        }
        #[cfg(feature = "postgres")]
        {
            PgAddress::parse(text).map(|a| StoreAddress::Postgres(Box::new(a)))
        }
        #[cfg(not(feature = "postgres"))]
        {
            Err(StoreError::NoPostgres {
                address: without_password(text),
            })
        }
    }
}

impl From<PathBuf> for StoreAddress {
    /// An index file.
    fn from(path: PathBuf) -> Self {
        StoreAddress::File(path)
    }
}

impl StoreAddress {
    /// Whether this is a database shared by several processes (whose
    /// changes by others a worker follows), not a file.
    pub fn is_shared(&self) -> bool {
        !matches!(self, StoreAddress::File(_))
    }
}

impl fmt::Display for StoreAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreAddress::File(path) => write!(f, "{}", path.display()),
            #[cfg(feature = "postgres")]
            StoreAddress::Postgres(address) => address.fmt(f),
        }
    }
}

impl fmt::Debug for StoreAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StoreAddress({self})")
    }
}

/// A URL's text with the password of its `user:password@` part left out,
/// for a message about a URL that could not be parsed.
pub fn without_password(text: &str) -> String {
    let Some((scheme, rest)) = text.split_once("://") else {
        return text.to_owned();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => {
            let user_info = &rest[..at];
            let user = user_info.split_once(':').map_or(user_info, |(u, _)| u);
            format!("{scheme}://{user}@{}", &rest[at + 1..])
        }
        None => text.to_owned(),
    }
}

/// A PostgreSQL database's address: the client's parsed configuration
/// (user, password, hosts, ports, database, options). `Display` and
/// `Debug` show `postgres://user@host:port/database`, never the password.
#[cfg(feature = "postgres")]
#[derive(Clone)]
pub struct PgAddress {
    config: postgres::Config,
}

#[cfg(feature = "postgres")]
impl PgAddress {
    /// Parse a `postgres://` URL (the client's syntax: percent-encoded
    /// parts, `host=` for a Unix socket folder, `PGPASSWORD`-style
    /// settings in the query).
    ///
    /// The password is the URL's; without one, `PGPASSWORD`'s; without
    /// that, the first matching line of the password file (`PGPASSFILE`,
    /// else `~/.pgpass`; ignored, as libpq does, when others may read
    /// it), as libpq looks for it.
    pub fn parse(text: &str) -> Result<PgAddress> {
        text.parse::<postgres::Config>()
            .map(|config| PgAddress {
                config: with_password(config),
            })
            .map_err(|error| StoreError::Postgres {
                address: without_password(text),
                context: "read the address".into(),
                error,
            })
    }

    /// The client's configuration, to connect with.
    pub fn config(&self) -> &postgres::Config {
        &self.config
    }
}

/// `config` with its password from the environment or the password file
/// when it has none (see [`PgAddress::parse`]).
#[cfg(feature = "postgres")]
fn with_password(mut config: postgres::Config) -> postgres::Config {
    if config.get_password().is_some() {
        return config;
    }
    if let Some(password) = std::env::var_os("PGPASSWORD").filter(|p| !p.is_empty()) {
        config.password(password.as_encoded_bytes());
    } else if let Some(password) = password_file_entry(&config) {
        config.password(password);
    }
    config
}

/// The password the password file holds for `config`'s first host, port,
/// database and user (defaults as libpq's: port 5432, the login name, the
/// database named after the user; a Unix socket is `localhost`).
#[cfg(feature = "postgres")]
fn password_file_entry(config: &postgres::Config) -> Option<String> {
    use postgres::config::Host;
    use postgres_secrets::PgPass;
    let path = PgPass::locate()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).ok()?.permissions().mode();
        if mode & 0o077 != 0 {
            tracing::warn!(
                path = %path.display(),
                "password file ignored: others may read it (chmod 0600 it)"
            );
            return None;
        }
    }
    let file = match PgPass::open(&path) {
        Ok(file) => file,
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "password file unreadable");
            return None;
        }
    };
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(name)) => name.clone(),
        Some(Host::Unix(_)) | None => "localhost".to_owned(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config
        .get_user()
        .map(str::to_owned)
        .or_else(|| std::env::var("USER").ok())?;
    let database = config.get_dbname().unwrap_or(&user).to_owned();
    let found = file
        .query()
        .hostname(host)
        .ok()?
        .port(port)
        .ok()?
        .database(database)
        .ok()?
        .username(user)
        .ok()?
        .find()
        .ok()??;
    Some(found.password)
}

#[cfg(feature = "postgres")]
impl PartialEq for PgAddress {
    fn eq(&self, other: &Self) -> bool {
        format!("{:?}", self.config) == format!("{:?}", other.config)
    }
}

#[cfg(feature = "postgres")]
impl Eq for PgAddress {}

#[cfg(feature = "postgres")]
impl fmt::Display for PgAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use postgres::config::Host;
        let config = &self.config;
        write!(f, "postgres://")?;
        if let Some(user) = config.get_user() {
            write!(f, "{user}@")?;
        }
        let hosts = config.get_hosts();
        let ports = config.get_ports();
        for (i, host) in hosts.iter().enumerate() {
            if i > 0 {
                write!(f, ",")?;
            }
            match host {
                Host::Tcp(name) => write!(f, "{name}")?,
                Host::Unix(folder) => write!(f, "{}", folder.display())?,
            }
            // One port for every host, or one per host.
            if let Some(port) = ports.get(i).or(ports.first()) {
                write!(f, ":{port}")?;
            }
        }
        if hosts.is_empty() {
            write!(f, "localhost")?;
        }
        write!(f, "/{}", config.get_dbname().unwrap_or(""))
    }
}

#[cfg(feature = "postgres")]
impl fmt::Debug for PgAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PgAddress({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_a_file_and_shows_as_given() {
        let address = StoreAddress::parse("/var/lib/doppel/index.sqlite").unwrap();
        assert_eq!(
            address,
            StoreAddress::File(PathBuf::from("/var/lib/doppel/index.sqlite"))
        );
        assert_eq!(address.to_string(), "/var/lib/doppel/index.sqlite");
    }

    #[test]
    fn an_unparsable_urls_message_leaves_its_password_out() {
        assert_eq!(
            without_password("postgres://alice:s3cret@db.example:65536x/lib"),
            "postgres://alice@db.example:65536x/lib"
        );
        assert_eq!(
            without_password("postgresql://db.example/lib?user=a"),
            "postgresql://db.example/lib?user=a"
        );
    }

    #[cfg(feature = "postgres")]
    #[test]
    fn a_postgres_url_shows_user_host_port_and_database_but_never_the_password() {
        for url in [
            "postgres://alice:s3cret@db.example:6543/library",
            "postgresql://alice:s3cret@db.example:6543/library",
        ] {
            let address = StoreAddress::parse(url).unwrap();
            assert_eq!(
                address.to_string(),
                "postgres://alice@db.example:6543/library"
            );
            assert!(!format!("{address:?}").contains("s3cret"));
        }
        let socket = StoreAddress::parse("postgres://curator@%2Ftmp%2Fpg:54329/doppel").unwrap();
        assert_eq!(
            socket.to_string(),
            "postgres://curator@/tmp/pg:54329/doppel"
        );
    }

    #[cfg(feature = "postgres")]
    #[test]
    fn a_bad_postgres_url_is_an_error_without_its_password() {
        let error = StoreAddress::parse("postgres://alice:s3cret@db.example:notaport/lib")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("postgres://alice@db.example:notaport/lib"),
            "{error}"
        );
        assert!(!error.contains("s3cret"), "{error}");
    }

    #[cfg(not(feature = "postgres"))]
    #[test]
    fn without_the_feature_a_postgres_url_says_so() {
        let error = StoreAddress::parse("postgres://alice:s3cret@db/lib")
            .unwrap_err()
            .to_string();
        assert!(error.contains("built without PostgreSQL"), "{error}");
        assert!(!error.contains("s3cret"), "{error}");
    }
}
