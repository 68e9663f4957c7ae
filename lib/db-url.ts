/** True for `postgres://` and `postgresql://` URLs: how `--db` tells PostgreSQL from a SQLite file. */
export const isPostgresUrl = (db: string): boolean => /^postgres(ql)?:\/\//i.test(db)
