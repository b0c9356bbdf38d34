/**
 * Loads the embedded-database module (PGlite) on first use. PGlite is for a single-process
 * start without DATABASE_URL; the production image leaves it out, so there its absence is
 * explained instead of surfacing as a module-resolution stack trace.
 */
export async function loadEmbedded<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ERR_MODULE_NOT_FOUND' && /@electric-sql\/pglite/.test(e.message)) {
      throw new Error('DATABASE_URL: required here: this installation has no embedded database (PGlite)', { cause: err });
    }
    throw err;
  }
}
