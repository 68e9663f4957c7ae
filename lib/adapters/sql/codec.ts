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
  const restCheck = def.lazy === undefined || def.lazy.length === 0 ? undefined : compileCheckWithout(ast, new Set<string>(def.lazy))
  // Per column, what reading it takes: a JSON parse, a number from PostgreSQL's BIGINT text, or nothing.
  const kinds = columns.map((c) => (json.has(c) ? JSON_COLUMN : bigint.has(c) ? SEQUENCE : PLAIN))
  const special = kinds.flatMap((k, i) => (k === PLAIN ? [] : [i]))
  const lazy = lazyColumns(def, ast)
  const parseLater = new Set(lazy.map((l) => l.column))
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
      // The texts of lazy columns, left unparsed (JSON columns answered as text: SQLite's).
      let later: Array<readonly [LazyColumn, string]> | undefined
      if (prefix === undefined) {
        // The row holds exactly the table's columns (a read of this table). It is the driver's fresh
        // object, read once: its JSON and sequence columns are converted in place.
        input = row as Record<string, unknown>
        for (const i of special) {
          const c = columns[i]!
          const v = input[c]
          if (kinds[i] === JSON_COLUMN && typeof v === "string" && parseLater.has(c)) (later ??= []).push([lazyOf(lazy, c), v])
          else input[c] = kinds[i] === JSON_COLUMN ? (typeof v === "string" ? JSON.parse(v) : v) : v !== null && v !== undefined ? Number(v) : v
        }
      } else {
        // A joined row: this table's columns are the ones named with `prefix`.
        input = {}
        for (let i = 0; i < columns.length; i++) {
          const c = columns[i]!
          const v = row[prefix + c]
          const kind = kinds[i]
          if (kind === JSON_COLUMN && typeof v === "string" && parseLater.has(c)) (later ??= []).push([lazyOf(lazy, c), v])
          input[c] = kind === JSON_COLUMN && typeof v === "string" ? (parseLater.has(c) ? v : JSON.parse(v)) : kind === SEQUENCE && v !== null && v !== undefined ? Number(v) : v
        }
      }
      if (later !== undefined) {
        // The rest of the row checked now; each lazy column parsed and checked when first read.
        if (restCheck !== undefined && restCheck(input)) {
          for (const [column, text] of later) parseOnRead(input, column, text, def.name)
          return input as A
        }
        // A row the quick checks refuse goes through the whole schema, every column parsed now.
        for (const [column, text] of later) input[column.column] = JSON.parse(text)
      }
      const decoded = decodeRecord(input)
      if (Either.isLeft(decoded)) throw new RowDecodeError(def.name, decoded.left)
      return decoded.right
    }
  }
}

/** A lazy JSON column and its value's decoder. */
interface LazyColumn {
  readonly column: string
  readonly decode: (u: unknown) => Either.Either<unknown, unknown>
}

const lazyColumns = <S extends Schema.Schema.AnyNoContext>(def: TableDef<S>, ast: Schema.Schema.AnyNoContext["ast"]): ReadonlyArray<LazyColumn> =>
  (def.lazy ?? []).map((column) => {
    if (!def.json.includes(column)) throw new Error(`table ${def.name}: lazy column ${column} is not a JSON column`)
    const property = ast._tag === "TypeLiteral" ? ast.propertySignatures.find((p) => p.name === column) : undefined
    if (property === undefined) throw new Error(`table ${def.name}: no column ${column}`)
    return { column, decode: compileDecoder(Schema.make(property.type)) }
  })

const lazyOf = (lazy: ReadonlyArray<LazyColumn>, column: string): LazyColumn => {
  const found = lazy.find((l) => l.column === column)
  if (found === undefined) throw new Error(`no lazy column ${column}`)
  return found
}

/**
 * Makes `column` of `row` a property that parses `text` and checks it the first time it is read
 * (then holds the value as an ordinary property). A stored value that fails its check throws
 * `RowDecodeError` there, as the row's decoding would have.
 */
const parseOnRead = (row: Record<string, unknown>, column: LazyColumn, text: string, table: string): void => {
  Object.defineProperty(row, column.column, {
    configurable: true,
    enumerable: true,
    get: () => {
      const decoded = column.decode(JSON.parse(text))
      if (Either.isLeft(decoded)) throw new RowDecodeError(table, decoded.left)
      Object.defineProperty(row, column.column, { configurable: true, enumerable: true, writable: true, value: decoded.right })
      return decoded.right
    }
  })
}
