import { Either, Schema } from "effect"
import type { TableDef } from "../../ports/tables.js"
import { compileCheckWithout, compileDecoder } from "./decode.js"
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
const LAZY_JSON = 3

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
  // Lazy JSON columns: their values' own decoders, and the checks of the rest of the row.
  const lazy = lazyDecoders(def, ast)
  const restCheck = lazy.size === 0 ? undefined : compileCheckWithout(ast, new Set(lazy.keys()))
  // Per column, what reading it takes: a JSON parse (now, or when first read), a number from
  // PostgreSQL's BIGINT text, or nothing.
  const kinds = columns.map((c) => (lazy.has(c) ? LAZY_JSON : json.has(c) ? JSON_COLUMN : bigint.has(c) ? SEQUENCE : PLAIN))
  const special = kinds.flatMap((k, i) => (k === PLAIN ? [] : [i]))
  /** A column's value as read; a lazy column's text stays text (the caller notes it). */
  const valueOf = (kind: number | undefined, v: unknown): unknown =>
    kind === SEQUENCE ? (v !== null && v !== undefined ? Number(v) : v) : kind === JSON_COLUMN && typeof v === "string" ? JSON.parse(v) : v
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
      // The lazy columns answered as text (SQLite's; PostgreSQL answers JSON parsed), by index.
      let later: Array<number> | undefined
      if (prefix === undefined) {
        // The row holds exactly the table's columns (a read of this table). It is the driver's fresh
        // object, read once: its JSON and sequence columns are converted in place.
        input = row as Record<string, unknown>
        for (const i of special) {
          const c = columns[i]!
          const v = input[c]
          input[c] = valueOf(kinds[i], v)
          if (kinds[i] === LAZY_JSON && typeof v === "string") (later ??= []).push(i)
        }
      } else {
        // A joined row: this table's columns are the ones named with `prefix`.
        input = {}
        for (let i = 0; i < columns.length; i++) {
          const v = row[prefix + columns[i]!]
          input[columns[i]!] = valueOf(kinds[i], v)
          if (kinds[i] === LAZY_JSON && typeof v === "string") (later ??= []).push(i)
        }
      }
      if (later !== undefined) {
        // The rest of the row checked now; each lazy column parsed and checked when first read.
        if (restCheck !== undefined && restCheck(input)) {
          for (const i of later) parseOnRead(input, columns[i]!, lazy.get(columns[i]!)!, String(input[columns[i]!]), def.name)
          return input as A
        }
        // A row the quick checks refuse goes through the whole schema, every column parsed now.
        for (const i of later) input[columns[i]!] = JSON.parse(String(input[columns[i]!]))
      }
      const decoded = decodeRecord(input)
      if (Either.isLeft(decoded)) throw new RowDecodeError(def.name, decoded.left)
      return decoded.right
    }
  }
}

type ValueDecoder = (u: unknown) => Either.Either<unknown, unknown>

/** The decoders of a table's lazy columns' values, by column. */
const lazyDecoders = <S extends Schema.Schema.AnyNoContext>(def: TableDef<S>, ast: Schema.Schema.AnyNoContext["ast"]): ReadonlyMap<string, ValueDecoder> =>
  new Map(
    (def.lazy ?? []).map((column) => {
      if (!def.json.includes(column)) throw new Error(`table ${def.name}: lazy column ${column} is not a JSON column`)
      const property = ast._tag === "TypeLiteral" ? ast.propertySignatures.find((p) => p.name === column) : undefined
      if (property === undefined) throw new Error(`table ${def.name}: no column ${column}`)
      return [column, compileDecoder(Schema.make(property.type))] as const
    })
  )

/**
 * Makes `column` of `row` a property that parses `text` and checks it the first time it is read
 * (then holds the value as an ordinary property). A stored value that fails its check throws
 * `RowDecodeError` there, as the row's decoding would have.
 */
const parseOnRead = (row: Record<string, unknown>, column: string, decode: ValueDecoder, text: string, table: string): void => {
  Object.defineProperty(row, column, {
    configurable: true,
    enumerable: true,
    get: () => {
      const decoded = decode(JSON.parse(text))
      if (Either.isLeft(decoded)) throw new RowDecodeError(table, decoded.left)
      Object.defineProperty(row, column, { configurable: true, enumerable: true, writable: true, value: decoded.right })
      return decoded.right
    }
  })
}
