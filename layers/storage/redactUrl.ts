/**
 * Redacting a database URL for logs (re-exported by `PgClient.ts`; apart so
 * that the storage layer can report a URL without loading the PostgreSQL
 * driver, which it imports only when the settings ask for PostgreSQL).
 *
 * @since 0.1.0
 */

/**
 * Returns the URL without its password (in the user-info part or a
 * `password` query parameter), for logs and diagnostics. Unparsable input
 * yields `"<invalid url>"` so a secret can never leak through it.
 */
export const redactUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    parsed.password = ""
    parsed.searchParams.delete("password")
    return parsed.toString()
  } catch {
    return "<invalid url>"
  }
}
