use super::*;
use doppel_store::StoreError;

fn sqlite(code: i32) -> IndexError {
    IndexError::Store(StoreError::Sqlite {
        path: "index.sqlite".into(),
        context: "commit update".into(),
        error: rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None),
    })
}

#[test]
fn index_errors_are_reported_by_what_can_be_done_about_them() {
    let kind = |e: &IndexError| WorkerError::from_index(e, None).kind;
    assert_eq!(
        kind(&sqlite(rusqlite::ffi::SQLITE_FULL)),
        ErrorKind::StorageFull
    );
    assert_eq!(kind(&sqlite(rusqlite::ffi::SQLITE_BUSY)), ErrorKind::Busy);
    assert_eq!(kind(&sqlite(rusqlite::ffi::SQLITE_LOCKED)), ErrorKind::Busy);
    assert_eq!(kind(&sqlite(rusqlite::ffi::SQLITE_IOERR)), ErrorKind::Index);
    let gone = IndexError::Unavailable {
        root: "/gone".into(),
    };
    assert_eq!(kind(&gone), ErrorKind::FolderUnavailable);
    let e = WorkerError::from_index(&sqlite(rusqlite::ffi::SQLITE_FULL), Some("keep a.txt"));
    assert!(
        e.message.starts_with("keep a.txt: index index.sqlite"),
        "{e}"
    );
    assert_eq!(e.kind.as_str(), "storage-full");
}
