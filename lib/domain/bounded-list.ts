import { Either, ParseResult, Schema, SchemaAST as AST } from "effect"
import { countProblems, STOP_AFTER_PROBLEMS } from "./problems.js"

/**
 * A list of at most `max` entries, for input from clients. It is `Schema.Array(item)` with
 * `maxItems(max)` to every reader of the schema (types, the OpenAPI document), but it decodes in
 * the order that keeps a hostile list cheap:
 *
 * - its length is checked first: a list longer than `max` is refused as it is, and none of its
 *   entries is decoded (`Schema.maxItems` checks after every entry was decoded, every failure
 *   collected);
 * - reporting every problem (`errors: "all"`), it stops decoding entries once they have more than
 *   `STOP_AFTER_PROBLEMS` problems: only the first `MAX_PROBLEMS` of a request are listed, and a
 *   list nested in an entry stops the same way, so a request's problems stay a small multiple of
 *   that however its lists nest.
 *
 * The problems read as `Schema.Array(item).pipe(Schema.maxItems(max))`'s: each entry's at its
 * index, `must have at most N entries` at the list, `must be an array` for another JSON type (a
 * `message` annotation of the list takes its place, as it does on an array).
 */
export const boundedList = <A, I>(item: Schema.Schema<A, I, never>, max: number) => {
  const message = `must have at most ${max} entries`
  const asArray = Schema.Array(item).pipe(Schema.maxItems(max, { message: () => message }))
  // The failure of a list that is too long, at its own node: a `message` annotation given to the
  // list (which also lands on its surrogate) must not replace this one.
  const tooLong = Schema.Unknown.annotations({ message: () => message }).ast
  return Schema.declare(
    [item],
    {
      decode: (item) => {
        const decodeItem = ParseResult.decodeUnknownEither(item)
        return (input, options, ast) => decodeList(input, options, ast, max, tooLong, decodeItem)
      },
      encode: (item) => {
        const encode = ParseResult.encodeUnknownEither(Schema.Array(item))
        return (input, options) => encode(input, options)
      }
    },
    { [AST.SurrogateAnnotationId]: asArray.ast }
  )
}

function decodeList<A>(
  input: unknown,
  options: AST.ParseOptions,
  ast: AST.Declaration,
  max: number,
  tooLong: AST.AST,
  decodeItem: (u: unknown, options?: AST.ParseOptions) => Either.Either<A, ParseResult.ParseIssue>
): Either.Either<ReadonlyArray<A>, ParseResult.ParseIssue> {
  if (!Array.isArray(input)) return Either.left(new ParseResult.Type(ast, input, "must be an array"))
  if (input.length > max) {
    return Either.left(new ParseResult.Type(tooLong, input))
  }
  const all = options.errors === "all"
  const output: Array<A> = []
  const issues: Array<ParseResult.ParseIssue> = []
  let problems = 0
  for (let i = 0; i < input.length; i++) {
    const decoded = decodeItem(input[i], options)
    if (Either.isRight(decoded)) {
      output.push(decoded.right)
      continue
    }
    issues.push(new ParseResult.Pointer(i, input, decoded.left))
    if (!all) break
    problems += countProblems(decoded.left)
    if (problems > STOP_AFTER_PROBLEMS) break
  }
  const [first, ...rest] = issues
  return first === undefined ? Either.right(output) : Either.left(new ParseResult.Composite(ast, input, [first, ...rest], output))
}
