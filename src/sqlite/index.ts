// SQLite stores read whole and never written: the database and its WAL as a new reader sees them (re-exports only).
export { openSqliteStore, type Row, type SqliteStore } from './database.js';
export { readDatabaseSnapshot, type DatabaseSnapshot } from './snapshot.js';
export { applyWal, type WalApplied, type WalOutcome } from './wal.js';
export { releaseSnapshot, storeSnapshot, withStoreSnapshots } from './snapshot-scope.js';
