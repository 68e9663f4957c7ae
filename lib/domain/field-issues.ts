import { Either, Option, ParseResult, Schema } from "effect"
import * as AST from "effect/SchemaAST"
import { FieldIssue } from "./errors.js"
import { capProblems } from "./problems.js"

/**
 * The one formatter from a decoding failure to the `{path, message}` list callers see: every
 * request decoder (body, query) goes through it, so a mistake reads the same everywhere.
 *
 * Effect reports a union failure once per member. For a request that is noise: a wrong value of a
 * closed set would come back as one "Expected <member>" line per allowed value, and an optional
 * key would add "Expected undefined" (the member that stands for "absent", which a present value
 * can never be). The issue tree is simplified before Effect's own formatter reads it: the
 * "absent" member is dropped, a set of literals becomes one "must be one of ..." issue, and a union
 * that carries its own message answers with that message once.
 */

const literalsOf = (issues: ReadonlyArray<ParseResult.ParseIssue>): Array<AST.LiteralValue> | undefined => {
  const values: Array<AST.LiteralValue> = []
  for (const i of issues) {
    const ast = i._tag === "Type" ? i.ast : undefined
    if (ast === undefined || !AST.isLiteral(ast)) return undefined
    values.push(ast.literal)
  }
  return values
}

const show = (v: AST.LiteralValue): string => (typeof v === "string" ? v : String(v))

/** Members that failed, with nested unions (an optional closed set) already simplified. */
const memberIssues = ({ issues }: ParseResult.Composite): Array<ParseResult.ParseIssue> =>
  ("_tag" in issues ? [issues] : [...issues]).map(simplify)

const isAbsentMember = (i: ParseResult.ParseIssue) => i._tag === "Type" && AST.isUndefinedKeyword(i.ast)

/** A value that matched none of a closed set of literals: the set, once. */
const oneOfIssue = (ast: AST.AST, actual: unknown, values: ReadonlyArray<AST.LiteralValue>) =>
  new ParseResult.Type(ast, actual, `must be one of ${values.map(show).join(", ")}`)

const simplifyUnion = (issue: ParseResult.Composite, union: AST.Union): ParseResult.ParseIssue => {
  // The schema's author named the mistake: one message for the whole union.
  if (Option.isSome(AST.getMessageAnnotation(union))) return new ParseResult.Type(union, issue.actual)
  const all = memberIssues(issue)
  const present = all.filter((i) => !isAbsentMember(i))
  const members = present.length > 0 ? present : all
  const literals = literalsOf(members)
  if (literals !== undefined && literals.length > 1) return oneOfIssue(union, issue.actual, literals)
  const [first, ...rest] = members
  if (first === undefined) return issue
  if (rest.length === 0) return first
  return new ParseResult.Composite(issue.ast, issue.actual, [first, ...rest], issue.output)
}

/** The wrong JSON type where an object, an array or a scalar was expected, in plain words. */
const typeMessage = (ast: AST.AST): string | undefined => {
  switch (ast._tag) {
    case "TypeLiteral":
      return "must be an object"
    case "TupleType":
      return "must be an array"
    case "StringKeyword":
      return "must be a string"
    case "NumberKeyword":
      return "must be a number"
    case "BooleanKeyword":
      return "must be true or false"
    default:
      return undefined
  }
}

const simplify = (issue: ParseResult.ParseIssue): ParseResult.ParseIssue => {
  switch (issue._tag) {
    case "Pointer":
      return new ParseResult.Pointer(issue.path, issue.actual, simplify(issue.issue))
    case "Refinement":
      return new ParseResult.Refinement(issue.ast, issue.actual, issue.kind, simplify(issue.issue))
    case "Transformation":
      return new ParseResult.Transformation(issue.ast, issue.actual, issue.kind, simplify(issue.issue))
    case "Composite": {
      if (AST.isUnion(issue.ast)) return simplifyUnion(issue, issue.ast)
      const [first, ...rest] = memberIssues(issue)
      return first === undefined ? issue : new ParseResult.Composite(issue.ast, issue.actual, [first, ...rest], issue.output)
    }
    case "Type": {
      // Effect's default here spells out the whole expected shape; an annotation still wins.
      const plain = issue.message === undefined && Option.isNone(AST.getMessageAnnotation(issue.ast)) ? typeMessage(issue.ast) : undefined
      return plain === undefined ? issue : new ParseResult.Type(issue.ast, issue.actual, plain)
    }
    default:
      return issue
  }
}

/** `["service_lines", 0, "quantity"]` → `service_lines[0].quantity` */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string => {
  let out = ""
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`
    else out += out === "" ? String(key) : `.${String(key)}`
  }
  return out === "" ? "$" : out
}

/** One entry per mistake, each at its JSON path; a missing key reads "is required". */
export const fieldIssues = (error: ParseResult.ParseError): Array<FieldIssue> => {
  const seen = new Set<string>()
  const out: Array<FieldIssue> = []
  for (const i of ParseResult.ArrayFormatter.formatIssueSync(simplify(error.issue))) {
    const path = formatPath(i.path)
    const message = i._tag === "Missing" ? "is required" : i.message
    const key = `${path}\u0000${message}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push(new FieldIssue({ path, message }))
  }
  return out
}

/**
 * A decoder of client input (a body, a query) with `schema`: every problem at once, each at its
 * path, at most `MAX_PROBLEMS` of them and then `too_many_problems`. Unknown keys are ignored.
 */
export const requestDecoder = <A, I>(schema: Schema.Schema<A, I, never>) => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "ignore" })
  return (input: unknown): Either.Either<A, ReadonlyArray<FieldIssue>> => Either.mapLeft(decode(input), (e) => capProblems(fieldIssues(e)))
}
