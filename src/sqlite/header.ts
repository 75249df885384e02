/**
 * The fixed 100-byte header of a SQLite database file (https://www.sqlite.org/fileformat2.html#the_database_header):
 * only what reading an image needs.
 */

const MAGIC = 'SQLite format 3\0';

/** The page size a header declares, or undefined when the bytes are not a SQLite database header. */
export function headerPageSize(bytes: Uint8Array): number | undefined {
  if (bytes.length < 100 || Buffer.from(bytes.buffer, bytes.byteOffset, 16).toString('latin1') !== MAGIC) return undefined;
  const raw = (bytes[16] << 8) | bytes[17];
  const size = raw === 1 ? 65536 : raw;
  return isPageSize(size) ? size : undefined;
}

/** A power of two from 512 to 65536, the page sizes SQLite writes. */
export function isPageSize(size: number): boolean {
  return size >= 512 && size <= 65536 && (size & (size - 1)) === 0;
}

/** Whether the header says the database is in WAL mode (file format versions 2 at offsets 18 and 19). */
export function isWalMode(bytes: Uint8Array): boolean {
  return bytes.length >= 20 && bytes[18] === 2 && bytes[19] === 2;
}

/**
 * Marks an in-memory image as a rollback-journal database (versions 1), so that the SQLite that opens it reads it as
 * it is and looks for no `-wal` or `-shm` of its own: the WAL has already been applied to the image.
 */
export function markRollbackMode(image: Uint8Array): void {
  if (isWalMode(image)) {
    image[18] = 1;
    image[19] = 1;
  }
}
