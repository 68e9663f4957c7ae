import { Either, ParseResult, type Schema, SchemaAST as AST } from "effect"

type Check = (u: unknown) => boolean

/**
 * A row decoder compiled from a record schema. Rows are decoded on every read (a list page is a
 * hundred of them), and Effect's general decoder costs several times the row's JSON parse. When
 * every node of the schema only checks (strings, numbers, literals, brands and other refinements,
 * declarations such as `StoredPayload`, structs, arrays, unions of these), this walks the schema's
 * AST once into plain checks, with the schema's own refinement filters and declaration guards, and
 * a row that passes them is its own decoded value (nothing transforms it). A schema with any other
 * node, and any row that fails a check, is decoded by Effect's decoder: the result and the error
 * are always the schema's own.
 */
export const compileDecoder = <A, I>(schema: Schema.Schema<A, I>): ((u: unknown) => Either.Either<A, ParseResult.ParseError>) => {
  const full = ParseResult.decodeUnknownEither(schema)
  const decodeFully = (u: unknown) => Either.mapLeft(full(u), (issue) => new ParseResult.ParseError({ issue }))
  const check = compile(schema.ast)
  if (check === undefined) return decodeFully
  // A value that passes the checks compiled from the schema is an A, unchanged.
  const isA = (u: unknown): u is A => check(u)
  return (u) => (isA(u) ? Either.right(u) : decodeFully(u))
}

/**
 * The checks of a struct schema's AST without the named properties: whether the rest of a value
 * is the struct's (a value that passes is unchanged by decoding); undefined when some node of the
 * rest may transform its value.
 */
export const compileCheckWithout = (ast: AST.AST, without: ReadonlySet<string>): Check | undefined =>
  ast._tag === "TypeLiteral"
    ? compile(new AST.TypeLiteral(ast.propertySignatures.filter((p) => !without.has(String(p.name))), ast.indexSignatures))
    : undefined

/** The checks of one node; undefined when the node may transform its value (or is not known here). */
const compile = (ast: AST.AST): Check | undefined => {
  switch (ast._tag) {
    case "StringKeyword":
      return (u) => typeof u === "string"
    case "NumberKeyword":
      return (u) => typeof u === "number"
    case "BooleanKeyword":
      return (u) => typeof u === "boolean"
    case "UndefinedKeyword":
      return (u) => u === undefined
    case "UnknownKeyword":
    case "AnyKeyword":
      return () => true
    case "Literal": {
      const literal = ast.literal
      return (u) => u === literal
    }
    case "Union": {
      if (ast.types.every((t) => t._tag === "Literal")) {
        const literals = new Set<unknown>(ast.types.map((t) => (t._tag === "Literal" ? t.literal : undefined)))
        return (u) => literals.has(u)
      }
      const members = ast.types.map(compile)
      if (members.some((m) => m === undefined)) return undefined
      const checks = members.filter((m): m is Check => m !== undefined)
      return (u) => checks.some((c) => c(u))
    }
    case "Refinement": {
      const from = compile(ast.from)
      if (from === undefined) return undefined
      const refinement = ast
      return (u) => from(u) && refinement.filter(u, {}, refinement)._tag === "None"
    }
    case "Declaration": {
      if (ast.typeParameters.length > 0) return undefined
      const decode = ast.decodeUnknown()
      const declaration = ast
      return (u) => {
        const result = decode(u, {}, declaration)
        // A guard-only declaration answers synchronously and hands back its input.
        return Either.isEither(result) && Either.isRight(result) && result.right === u
      }
    }
    case "TupleType": {
      const rest = ast.rest[0]
      if (ast.elements.length > 0 || ast.rest.length !== 1 || rest === undefined) return undefined
      const item = compile(rest.type)
      if (item === undefined) return undefined
      return (u) => Array.isArray(u) && u.every(item)
    }
    case "TypeLiteral": {
      if (ast.indexSignatures.length > 0) return undefined
      const props: Array<{ readonly name: PropertyKey; readonly optional: boolean; readonly check: Check }> = []
      for (const p of ast.propertySignatures) {
        const check = compile(p.type)
        if (check === undefined) return undefined
        props.push({ name: p.name, optional: p.isOptional, check })
      }
      return (u) => {
        if (typeof u !== "object" || u === null || Array.isArray(u)) return false
        for (const p of props) {
          const v: unknown = Reflect.get(u, p.name)
          if (v === undefined && p.optional) continue
          if (!p.check(v)) return false
        }
        return true
      }
    }
    default:
      return undefined
  }
}
