/**
 * A value built on its first use and kept: for what a module would otherwise build when it is loaded (zod schemas,
 * tables) though most threads that load it never use it. Each pool thread loads every module of the worker's bundle,
 * and building a schema costs more than compiling its code.
 */
export function onFirstUse<T>(build: () => T): () => T {
  let built = false;
  let value: T;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value;
  };
}
