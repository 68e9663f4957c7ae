/** True for `postgres://` and `postgresql://` URLs: how `--db` tells PostgreSQL from a SQLite file. */
export const isPostgresUrl = (db: string): boolean => /^postgres(ql)?:\/\//i.test(db)

/**
 * A PostgreSQL URL fit for logs: without its credentials. Here, not beside the PostgreSQL adapter,
 * so that naming the database does not load the PostgreSQL client into a SQLite server.
 */
export const describePostgresUrl = (url: string): string => {
  try {
    const u = new URL(url)
    return `postgres://${u.host}${u.pathname}`
  } catch {
    return "postgres://(unparsable URL)"
  }
}
