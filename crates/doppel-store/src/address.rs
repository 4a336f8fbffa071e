//! Where an index is: a file (SQLite, the default) or a PostgreSQL
//! database (`postgres://…` or `postgresql://…`, the team store). No
//! message shows a password: a parsed database names itself through
//! [`PgAddress`]'s `Display`, and any address as the user wrote it goes
//! through [`redacted`] first, the one redaction every output uses.

use std::fmt;
use std::path::{Path, PathBuf};

use super::{Result, StoreError};

/// The URL schemes that name a PostgreSQL database.
const POSTGRES_SCHEMES: [&str; 2] = ["postgres://", "postgresql://"];

/// The extensions of an SQLite index file a store address may name (doppel
/// names its own `.sqlite`; the others are SQLite's usual ones).
pub const INDEX_FILE_EXTENSIONS: [&str; 3] = ["sqlite", "sqlite3", "db"];

/// What a store address may be, for a message refusing another.
const EXPECTED: &str = "a postgres://user@host/db URL (the password in PGPASSWORD or \
                        ~/.pgpass) or an SQLite index file path ending in .sqlite, \
                        .sqlite3 or .db";

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
    /// shown), a path whose name ends in one of [`INDEX_FILE_EXTENSIONS`]
    /// an index file. Anything else (a libpq `key=value` string, a bare
    /// word, another scheme) is refused before a file is made, as is a URL
    /// that does not parse, or any URL in a build without the `postgres`
    /// feature: the error names the address [`redacted`].
    pub fn parse(text: &str) -> Result<StoreAddress> {
        if !POSTGRES_SCHEMES.iter().any(|s| text.starts_with(s)) {
            if is_index_file_name(text) && !looks_like_key_values(text) {
                return Ok(StoreAddress::File(PathBuf::from(text)));
            }
            let hint = if looks_like_key_values(text) {
                "a libpq key=value connection string is not read here; "
            } else {
                ""
            };
            return Err(StoreError::NotAnAddress {
                address: redacted(text),
                expected: format!("{hint}give {EXPECTED}"),
            });
        }
        #[cfg(feature = "postgres")]
        {
            PgAddress::parse(text).map(|a| StoreAddress::Postgres(Box::new(a)))
        }
        #[cfg(not(feature = "postgres"))]
        {
            Err(StoreError::NoPostgres {
                address: redacted(text),
            })
        }
    }
}

/// Whether `text` is a path whose file name ends in one of
/// [`INDEX_FILE_EXTENSIONS`] (any case), with a stem before it.
fn is_index_file_name(text: &str) -> bool {
    let path = Path::new(text);
    let (Some(stem), Some(extension)) = (path.file_stem(), path.extension()) else {
        return false;
    };
    !stem.is_empty()
        && INDEX_FILE_EXTENSIONS
            .iter()
            .any(|e| extension.eq_ignore_ascii_case(e))
}

/// Whether `text` reads as a libpq connection string: its first word is
/// a keyword followed by `=` (`host=…`, `dbname = …`).
fn looks_like_key_values(text: &str) -> bool {
    let text = text.trim_start();
    let key_end = text.find(|c: char| c == '=' || c.is_whitespace());
    key_end.is_some_and(|end| {
        end > 0
            && text[..end]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
            && text[end..].trim_start().starts_with('=')
    })
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

/// What stands for a secret value in [`redacted`] text.
const HIDDEN: &str = "***";

/// `text`, a store address as a user wrote it (a URL, a libpq `key=value`
/// string, a path), with every secret left out, for any message, log line
/// or printout: a URL's `user:password@` shows as `user@`, and the value
/// of every parameter whose name holds `password` (`password`,
/// `sslpassword`; a URL's `?password=…`, percent-encoded names too, or a
/// libpq `password='…'`, quoted or not) as `***`. Other parameters
/// (`passfile`, `sslmode`, `host`) are kept: they name no secret and help
/// find a mistake. A URL's user information is taken to end at its last
/// `@`, so a password holding `@`, `/` or `?` is left out whole.
pub fn redacted(text: &str) -> String {
    let Some((scheme, rest)) = text.split_once("://").filter(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    }) else {
        return hide_values(text, Syntax::KeyValues);
    };
    // Parameters first: a hidden value may hold an `@`.
    let rest = hide_values(rest, Syntax::Url);
    match rest.rfind('@') {
        Some(at) => {
            let user_info = &rest[..at];
            let user_end = user_info.find([':', '@']).unwrap_or(user_info.len());
            format!("{scheme}://{}@{}", &user_info[..user_end], &rest[at + 1..])
        }
        None => format!("{scheme}://{rest}"),
    }
}

/// Free `text` (a parser's message quoting a line of the configuration)
/// with every store address in it [`redacted`]: each word holding `://`
/// (words end at whitespace and quotes), and every secret `key=value`.
pub fn redacted_in(text: &str) -> String {
    let is_break = |c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`');
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let word_end = rest.find(is_break).unwrap_or(rest.len());
        let word = &rest[..word_end];
        if word.contains("://") {
            out.push_str(&redacted(word));
        } else {
            out.push_str(word);
        }
        rest = &rest[word_end..];
        if let Some(c) = rest.chars().next() {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    hide_values(&out, Syntax::KeyValues)
}

/// How parameters are written: a URL's query (`?a=1&b=2`, a value ends
/// at `&`) or a libpq string (`a=1 b='two words'`, a value ends at
/// whitespace unless quoted, `\` escapes).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Syntax {
    Url,
    KeyValues,
}

/// Whether a parameter of this name holds a secret.
fn is_secret(name: &str) -> bool {
    name.to_ascii_lowercase().contains("password")
}

/// `text` with the value of each secret parameter replaced by [`HIDDEN`].
fn hide_values(text: &str, syntax: Syntax) -> String {
    let starts_name = |before: Option<char>| match before {
        None => true,
        Some(c) if c.is_whitespace() => true,
        Some(c) => syntax == Syntax::Url && matches!(c, '?' | '&'),
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut before: Option<char> = None;
    while let Some(c) = rest.chars().next() {
        if starts_name(before) && !c.is_whitespace() {
            if let Some((name, after)) = secret_name(rest, syntax) {
                out.push_str(name);
                out.push('=');
                out.push_str(HIDDEN);
                rest = skip_value(after, syntax);
                before = Some('=');
                continue;
            }
        }
        out.push(c);
        before = Some(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// When `text` begins with a secret parameter's name and its `=`: the
/// name as written and what follows the `=`.
fn secret_name(text: &str, syntax: Syntax) -> Option<(&str, &str)> {
    let end = text.find(|c: char| {
        c == '=' || c.is_whitespace() || (syntax == Syntax::Url && matches!(c, '&' | '?'))
    })?;
    let name = &text[..end];
    let after = match syntax {
        Syntax::Url => text[end..].strip_prefix('=')?,
        Syntax::KeyValues => text[end..].trim_start().strip_prefix('=')?,
    };
    let secret = match syntax {
        Syntax::Url => is_secret(&percent_decoded(name)),
        Syntax::KeyValues => is_secret(name),
    };
    secret.then_some((name, after))
}

/// What follows a secret parameter's value.
fn skip_value(text: &str, syntax: Syntax) -> &str {
    match syntax {
        Syntax::Url => text.find(['&', '#']).map_or("", |end| &text[end..]),
        Syntax::KeyValues => {
            let text = text.trim_start();
            let (quoted, body) = match text.strip_prefix('\'') {
                Some(body) => (true, body),
                None => (false, text),
            };
            let mut chars = body.char_indices();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        chars.next();
                    }
                    '\'' if quoted => return &body[i + 1..],
                    c if !quoted && c.is_whitespace() => return &body[i..],
                    _ => {}
                }
            }
            ""
        }
    }
}

/// `text` with its `%XX` escapes decoded (lossily), to compare a URL's
/// parameter name as the client reads it.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
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
                address: redacted(text),
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
            redacted("postgres://alice:s3cret@db.example:65536x/lib"),
            "postgres://alice@db.example:65536x/lib"
        );
        assert_eq!(
            redacted("postgresql://db.example/lib?user=a"),
            "postgresql://db.example/lib?user=a"
        );
    }

    #[test]
    fn redaction_hides_every_secret_and_keeps_the_rest() {
        for (text, shown) in [
            (
                "postgres://doppel@h/library?password=s3cret&sslmode=bogus",
                "postgres://doppel@h/library?password=***&sslmode=bogus",
            ),
            (
                "postgres://h/l?sslmode=require&sslpassword=s3cret",
                "postgres://h/l?sslmode=require&sslpassword=***",
            ),
            // The client decodes parameter names.
            (
                "postgres://h/l?pass%77ord=s3cret",
                "postgres://h/l?pass%77ord=***",
            ),
            // A password holding `@`, `/`, `?` or `:` is left out whole.
            ("postgres://u:s3/c?r:e@t@h:1/l", "postgres://u@h:1/l"),
            (
                "postgres://u@h/l?password=s3@cret",
                "postgres://u@h/l?password=***",
            ),
            (
                "host=/run/pg password=s3cret dbname=library",
                "host=/run/pg password=*** dbname=library",
            ),
            (
                "dbname=l password = 's3 \\' cret' user=u",
                "dbname=l password=*** user=u",
            ),
            ("sslpassword=s3\\ cret", "sslpassword=***"),
            ("passfile=/home/u/.pgpass", "passfile=/home/u/.pgpass"),
            (
                "/var/lib/doppel/index.sqlite",
                "/var/lib/doppel/index.sqlite",
            ),
        ] {
            assert_eq!(redacted(text), shown, "{text}");
        }
    }

    #[test]
    fn an_address_is_a_url_or_an_index_file_and_nothing_else() {
        for file in ["index.sqlite", "a/b.DB", "/var/x.sqlite3"] {
            assert!(
                matches!(StoreAddress::parse(file), Ok(StoreAddress::File(_))),
                "{file}"
            );
        }
        for other in [
            "library",
            ".sqlite",
            "state/index",
            "mysql://h/l",
            "host=/run/pg password=s3cret dbname=l.db",
        ] {
            let error = StoreAddress::parse(other).unwrap_err().to_string();
            assert!(error.contains(".sqlite"), "{error}");
            assert!(!error.contains("s3cret"), "{error}");
        }
        let error = StoreAddress::parse("host=h password=s3cret")
            .unwrap_err()
            .to_string();
        assert!(error.contains("libpq key=value"), "{error}");
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
