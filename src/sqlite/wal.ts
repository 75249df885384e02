/**
 * SQLite's write-ahead log, applied to a database image in memory as SQLite's own recovery reads it
 * (https://www.sqlite.org/fileformat2.html#the_write_ahead_log, src/wal.c `walIndexRecover`):
 * - a 32-byte header: magic 0x377f0682 or 0x377f0683 (its last bit gives the byte order of the checksums), format
 *   version 3007000, page size, checkpoint sequence, two salts and a checksum of the first 24 bytes. A header that
 *   fails any of these makes the log empty, as it does for SQLite;
 * - then frames of a 24-byte header (page number, database size in pages after a commit or 0, the two salts, a
 *   cumulative checksum) and one page. A frame is valid when its salts are the header's and its checksum, carried
 *   on from the previous frame, matches; the first invalid frame ends the log;
 * - only frames up to the last valid commit frame (non-zero database size) count: the frames after it belong to a
 *   transaction that has not committed (or was cut off by a crash) and are left out. (SQLite rewrites a page such a
 *   transaction already spilled in place and chains the checksums again only at its commit, so its frames often fail
 *   the checksum early: left out either way.)
 */

const WAL_HEADER = 32;
const FRAME_HEADER = 24;
const WAL_VERSION = 3007000;

export interface WalApplied {
  /** The database as a reader sees it after the last committed transaction in the log. */
  image: Uint8Array;
  /** Frames of committed transactions applied. */
  committedFrames: number;
  /** Valid frames after the last commit (an open or interrupted transaction), left out. */
  uncommittedFrames: number;
}

export type WalOutcome = { ok: true; value: WalApplied } | { ok: false; reason: string };

/**
 * Applies the committed frames of `wal` to `main` (the database file's bytes) and returns the resulting image; the
 * inputs are not modified. `pageSize` is the database's (undefined when the file is empty: the log's own then).
 */
export function applyWal(main: Uint8Array, wal: Uint8Array | undefined, pageSize: number | undefined): WalOutcome {
  const unchanged: WalOutcome = { ok: true, value: { image: main, committedFrames: 0, uncommittedFrames: 0 } };
  if (wal === undefined || wal.length < WAL_HEADER) return unchanged;
  const view = new DataView(wal.buffer, wal.byteOffset, wal.byteLength);
  const magic = view.getUint32(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) return unchanged;
  const bigEndian = (magic & 1) === 1;
  if (view.getUint32(4) !== WAL_VERSION) return unchanged;
  const walPageSize = view.getUint32(8);
  let sums = checksum(view, 0, 24, bigEndian, 0, 0);
  if (sums[0] !== view.getUint32(24) || sums[1] !== view.getUint32(28)) return unchanged;
  if (pageSize !== undefined && walPageSize !== pageSize)
    return { ok: false, reason: `its WAL has pages of ${walPageSize} bytes and the database of ${pageSize}` };
  const salt1 = view.getUint32(16);
  const salt2 = view.getUint32(20);
  const frameSize = FRAME_HEADER + walPageSize;
  // Page number -> offset of its latest committed copy in the log.
  const committed = new Map<number, number>();
  const pending = new Map<number, number>();
  let committedFrames = 0;
  let pendingFrames = 0;
  let size: number | undefined;
  for (let at = WAL_HEADER; at + frameSize <= wal.length; at += frameSize) {
    const page = view.getUint32(at);
    const dbSize = view.getUint32(at + 4);
    if (page === 0 || view.getUint32(at + 8) !== salt1 || view.getUint32(at + 12) !== salt2) break;
    sums = checksum(view, at, 8, bigEndian, sums[0], sums[1]);
    sums = checksum(view, at + FRAME_HEADER, walPageSize, bigEndian, sums[0], sums[1]);
    if (sums[0] !== view.getUint32(at + 16) || sums[1] !== view.getUint32(at + 20)) break;
    pending.set(page, at + FRAME_HEADER);
    pendingFrames++;
    if (dbSize !== 0) {
      for (const [p, offset] of pending) committed.set(p, offset);
      committedFrames += pendingFrames;
      pending.clear();
      pendingFrames = 0;
      size = dbSize;
    }
  }
  if (size === undefined) return { ok: true, value: { ...unchanged.value, uncommittedFrames: pendingFrames } };
  const image = new Uint8Array(size * walPageSize);
  image.set(main.subarray(0, Math.min(main.length, image.length)));
  for (const [page, offset] of committed) {
    if (page > size) continue;
    image.set(wal.subarray(offset, offset + walPageSize), (page - 1) * walPageSize);
  }
  return { ok: true, value: { image, committedFrames, uncommittedFrames: pendingFrames } };
}

/** SQLite's WAL checksum (wal.c `walChecksumBytes`) over `length` bytes (a multiple of 8), carried on from s1, s2. */
function checksum(view: DataView, offset: number, length: number, bigEndian: boolean, s1: number, s2: number): [number, number] {
  let a = s1;
  let b = s2;
  const littleEndian = !bigEndian;
  for (let i = offset; i < offset + length; i += 8) {
    a = (a + view.getUint32(i, littleEndian) + b) >>> 0;
    b = (b + view.getUint32(i + 4, littleEndian) + a) >>> 0;
  }
  return [a, b];
}
