import { Either, type Schema } from "effect"
import type { TableDef } from "../../ports/tables.js"
import { compileDecoder } from "./decode.js"
import { type Row, type SqlValue, toSqlValue } from "./dialect.js"

/**
 * A table's row codec, derived from its definition: the columns in order, a record encoded as
 * their parameters, and a row decoded back through the table's domain schema (JSON columns parsed
 * first, database-generated sequence numbers and other BIGINT columns read as numbers: PostgreSQL
 * answers BIGINT as text).
 */
export interface Codec<A> {
  readonly table: string
  readonly columns: ReadonlyArray<string>
  /** The columns an insert writes (all but the generated ones). */
  readonly insertColumns: ReadonlyArray<string>
  readonly encodeColumn: (column: string, value: unknown) => SqlValue
  /** The insert columns' parameters (a record of this table, or of its insertable part). */
  readonly encode: (record: Readonly<Record<string, unknown>>) => ReadonlyArray<SqlValue>
  /**
   * Decodes a row of exactly this table's columns or, with `prefix`, this table's columns of a
   * joined row (named `prefix` + column; `""` for unaliased ones among others); throws on a bad row.
   */
  readonly decode: (row: Row, prefix?: string) => A
}

export class RowDecodeError extends Error {
  constructor(
    readonly table: string,
    override readonly cause: unknown
  ) {
    super(`a stored ${table} row does not match its schema`)
  }
}

const PLAIN = 0
const JSON_COLUMN = 1
const SEQUENCE = 2

export const codecOf = <S extends Schema.Schema.AnyNoContext>(def: TableDef<S>): Codec<Schema.Schema.Type<S>> => {
  type A = Schema.Schema.Type<S>
  const ast = def.record.ast
  const columns =
    ast._tag === "TypeLiteral" ? ast.propertySignatures.map((p) => String(p.name)) : []
  if (columns.length === 0) throw new Error(`table ${def.name}: its record must be a struct`)
  const json = new Set<string>(def.json)
  const generated = new Set<string>(def.generated)
  const bigint = new Set<string>([...def.generated, ...(def.bigint ?? [])])
  const insertColumns = columns.filter((c) => !generated.has(c))
  const decodeRecord = compileDecoder<A, unknown>(def.record)
  // Per column, what reading it takes: a JSON parse, a number from PostgreSQL's BIGINT text, or nothing.
  const kinds = columns.map((c) => (json.has(c) ? JSON_COLUMN : bigint.has(c) ? SEQUENCE : PLAIN))
  const special = kinds.flatMap((k, i) => (k === PLAIN ? [] : [i]))
  const encodeColumn = (column: string, value: unknown): SqlValue =>
    json.has(column) ? (value === null || value === undefined ? null : JSON.stringify(value)) : toSqlValue(value)
  return {
    table: def.name,
    columns,
    insertColumns,
    encodeColumn,
    encode: (record) => insertColumns.map((c) => encodeColumn(c, record[c])),
    decode: (row, prefix) => {
      let input: Record<string, unknown>
      if (prefix === undefined) {
        // The row holds exactly the table's columns (a read of this table). It is the driver's fresh
        // object, read once: its JSON and sequence columns are converted in place.
        input = row as Record<string, unknown>
        for (const i of special) {
          const c = columns[i]!
          const v = input[c]
          input[c] = kinds[i] === JSON_COLUMN ? (typeof v === "string" ? JSON.parse(v) : v) : v !== null && v !== undefined ? Number(v) : v
        }
      } else {
        // A joined row: this table's columns are the ones named with `prefix`.
        input = {}
        for (let i = 0; i < columns.length; i++) {
          const v = row[prefix + columns[i]!]
          const kind = kinds[i]
          input[columns[i]!] = kind === JSON_COLUMN && typeof v === "string" ? JSON.parse(v) : kind === SEQUENCE && v !== null && v !== undefined ? Number(v) : v
        }
      }
      const decoded = decodeRecord(input)
      if (Either.isLeft(decoded)) throw new RowDecodeError(def.name, decoded.left)
      return decoded.right
    }
  }
}
