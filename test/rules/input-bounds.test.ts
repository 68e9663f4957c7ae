import { describe, expect, test } from "bun:test"
import { Effect, Either, JSONSchema, ParseResult, Schema } from "effect"
import { boundedList } from "../../lib/domain/bounded-list.js"
import { EncounterCreate, MAX_SERVICE_LINES } from "../../lib/domain/encounter-input.js"
import { FieldIssue } from "../../lib/domain/errors.js"
import { fieldIssues, requestDecoder } from "../../lib/domain/field-issues.js"
import { isEmailAddress } from "../../lib/domain/primitives.js"
import { capProblems, countProblems, MAX_MESSAGE_LENGTH, MAX_PROBLEMS, STOP_AFTER_PROBLEMS } from "../../lib/domain/problems.js"
import { validateEncounterCreate } from "../../lib/domain/validate.js"
import { decodeWebhookEndpointCreate } from "../../lib/domain/webhook.js"
import { InvalidBody, problemBody, toProblem } from "../../server/problem.js"
import { decodeQuery } from "../../server/route.js"
import { validPayload } from "../support/payloads.js"

/** An entry schema that counts how many entries were decoded. */
const counted = () => {
  const seen = { count: 0 }
  const item = Schema.String.pipe(
    Schema.filter((s) => {
      seen.count++
      return s === "ok" || "must be ok"
    })
  )
  return { seen, item }
}

const lines = (r: Either.Either<unknown, ParseResult.ParseError>) => (Either.isLeft(r) ? fieldIssues(r.left).map((i) => `${i.path}: ${i.message}`) : [])
const decodeAll = <A, I>(schema: Schema.Schema<A, I, never>) => Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "ignore" })
const created = (input: unknown): ReadonlyArray<FieldIssue> => Either.match(validateEncounterCreate(input), { onLeft: (l) => l, onRight: () => [] })

describe("a bounded list checks its length before its entries", () => {
  test("longer than its limit: one problem at the list, not one entry decoded", () => {
    const { seen, item } = counted()
    const r = decodeAll(Schema.Struct({ xs: boundedList(item, 5) }))({ xs: Array(500_000).fill("bad") })
    expect(lines(r)).toEqual(["xs: must have at most 5 entries"])
    expect(seen.count).toBe(0)
  })

  test("within its limit it reads as Schema.Array with maxItems: each entry at its index, the same values", () => {
    const { item } = counted()
    const bounded = decodeAll(Schema.Struct({ xs: boundedList(item, 5) }))
    const plain = decodeAll(Schema.Struct({ xs: Schema.Array(item).pipe(Schema.maxItems(5)) }))
    for (const xs of [["ok", "bad", "ok", "worse"], ["ok", 3], [], ["ok"], "nope", { 0: "ok" }, null]) {
      expect(lines(bounded({ xs }))).toEqual(lines(plain({ xs })))
      expect(Either.getOrUndefined(bounded({ xs }))).toEqual(Either.getOrUndefined(plain({ xs })))
    }
    expect(lines(bounded({ xs: "nope" }))).toEqual(["xs: must be an array"])
  })

  test("a message given to the list replaces 'must be an array', never the length problem", () => {
    const Xs = Schema.Struct({ xs: boundedList(Schema.String, 2).annotations({ message: () => "must be an array of names" }) })
    expect(lines(decodeAll(Xs)({ xs: 1 }))).toEqual(["xs: must be an array of names"])
    expect(lines(decodeAll(Xs)({ xs: ["a", "b", "c"] }))).toEqual(["xs: must have at most 2 entries"])
  })

  test("stops decoding entries once they have more than STOP_AFTER_PROBLEMS problems; with errors first, at the first", () => {
    const { seen, item } = counted()
    const r = decodeAll(boundedList(item, 1000))(Array(1000).fill("bad"))
    expect(lines(r).length).toBe(STOP_AFTER_PROBLEMS + 1)
    expect(seen.count).toBe(STOP_AFTER_PROBLEMS + 1)
    seen.count = 0
    expect(Either.isLeft(Schema.decodeUnknownEither(boundedList(item, 1000))(Array(1000).fill("bad")))).toBe(true)
    expect(seen.count).toBe(1)
  })

  test("nested lists stop too: a thousand by a thousand failing entries decode a few hundred", () => {
    const { seen, item } = counted()
    const r = decodeAll(boundedList(boundedList(item, 1000), 1000))(Array(1000).fill(Array(1000).fill("bad")))
    expect(lines(r).length).toBeLessThan(3 * STOP_AFTER_PROBLEMS)
    expect(seen.count).toBeLessThan(3 * STOP_AFTER_PROBLEMS)
  })

  test("the OpenAPI document sees an array with maxItems; encoding works", () => {
    const Item = Schema.Struct({ a: Schema.NumberFromString }).annotations({ identifier: "Item" })
    expect(JSONSchema.make(boundedList(Item, 7))).toEqual(JSONSchema.make(Schema.Array(Item).pipe(Schema.maxItems(7))))
    expect(Schema.encodeSync(boundedList(Item, 7))([{ a: 1 }])).toEqual([{ a: "1" }])
  })
})

describe("at most MAX_PROBLEMS problems, then too_many_problems", () => {
  const issues = (n: number) => Array.from({ length: n }, (_, i) => new FieldIssue({ path: `xs[${i}]`, message: "is wrong" }))

  test("up to the cap a list is answered as it is; past it, 100 and one entry stating how many were found", () => {
    expect(capProblems(issues(MAX_PROBLEMS))).toEqual(issues(MAX_PROBLEMS))
    const cut = capProblems(issues(1234))
    expect(cut.length).toBe(MAX_PROBLEMS + 1)
    expect(cut.slice(0, MAX_PROBLEMS)).toEqual(issues(MAX_PROBLEMS))
    expect(cut[MAX_PROBLEMS]).toEqual(
      new FieldIssue({ path: "$", message: "at least 1234 problems were found; the first 100 are listed", code: "too_many_problems" })
    )
    expect(capProblems(cut)).toBe(cut)
  })

  test("a message quoting a large value is cut", () => {
    const [long] = capProblems([new FieldIssue({ path: "d", message: `Expected null, actual ${"1,".repeat(100_000)}` })])
    expect(long!.message.length).toBe(MAX_MESSAGE_LENGTH + 1)
  })

  test("a union's failure counts once, as it is listed", () => {
    const r = ParseResult.decodeUnknownEither(Schema.Struct({ a: Schema.Union(Schema.Number, Schema.Boolean), b: Schema.String }), { errors: "all" })({ a: "x", b: 1 })
    expect(Either.isLeft(r) && countProblems(r.left)).toBe(2)
  })

  test("the code appears in problem+json only where it is set", () => {
    const body = problemBody(toProblem(new InvalidBody({ errors: capProblems(issues(150)) })), "rid")
    expect(body.errors?.[0]).toEqual({ path: "xs[0]", message: "is wrong" })
    expect(body.errors?.[MAX_PROBLEMS]).toEqual({ path: "$", message: "at least 150 problems were found; the first 100 are listed", code: "too_many_problems" })
    expect(body.detail).toBe("More than 100 problems in the request body; the first 100 are listed")
    const plain = problemBody(toProblem(new InvalidBody({ errors: issues(150) })), "rid")
    expect(plain.errors?.length).toBe(MAX_PROBLEMS + 1)
  })

  test("request decoders cap: a query, a webhook body", async () => {
    const Q = Schema.Struct(Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`p${i}`, Schema.NumberFromString])))
    const failed = await Effect.runPromise(Effect.flip(decodeQuery(Q)(new URLSearchParams(Array.from({ length: 150 }, (_, i) => [`p${i}`, "x"])))))
    expect(failed.errors.length).toBe(MAX_PROBLEMS + 1)
    expect(failed.errors[MAX_PROBLEMS]!.code).toBe("too_many_problems")
    expect(Either.match(requestDecoder(Q)({}), { onLeft: (l) => l.length, onRight: () => 0 })).toBe(MAX_PROBLEMS + 1)
    const hooks = decodeWebhookEndpointCreate({ event_types: Array(100).fill("nope") })
    expect(Either.isLeft(hooks) && hooks.left[MAX_PROBLEMS]?.code).toBe("too_many_problems")
  })

  test("a repeated query parameter becomes an array, in order", async () => {
    const Q = Schema.Struct({ t: Schema.Array(Schema.String), one: Schema.String })
    const q = await Effect.runPromise(decodeQuery(Q)(new URLSearchParams("t=a&one=x&t=b&t=c")))
    expect(q).toEqual({ t: ["a", "b", "c"], one: "x" })
  })
})

describe("create validation stays bounded", () => {
  test("service_lines past its limit is one problem: no entry is checked, no cross-field rule walks it", () => {
    const lines = Array(MAX_SERVICE_LINES + 1).fill({ diagnosis_pointers: [] })
    expect(created(validPayload("x", { service_lines: lines }))).toEqual([
      new FieldIssue({ path: "service_lines", message: `must have at most ${MAX_SERVICE_LINES} entries` })
    ])
  })

  test("a line's diagnosis_pointers past four: one problem, its pointers not walked", () => {
    const line = { procedure_code: "99213", quantity: "1", units: "UN", diagnosis_pointers: Array(1000).fill(7) }
    expect(created(validPayload("x", { service_lines: [line] }))).toEqual([
      new FieldIssue({ path: "service_lines[0].diagnosis_pointers", message: "must have at most 4 entries" })
    ])
  })

  test("200 empty lines: the first 100 problems in order, then too_many_problems", () => {
    const found = created(validPayload("x", { service_lines: Array(MAX_SERVICE_LINES).fill({}) }))
    expect(found.length).toBe(MAX_PROBLEMS + 1)
    expect(found.slice(0, 4).map((i) => i.path)).toEqual([
      "service_lines[0].diagnosis_pointers",
      "service_lines[0].procedure_code",
      "service_lines[0].quantity",
      "service_lines[0].units"
    ])
    expect(found[MAX_PROBLEMS]!.code).toBe("too_many_problems")
    expect(found.slice(0, MAX_PROBLEMS).every((i) => i.code === undefined)).toBe(true)
  })

  test("the first 100 are those a full check lists first", () => {
    // Every list of the payload with problems in its entries, within its limits.
    const payload = validPayload("x", {
      diagnoses: Array(50).fill({ code_type: "ABK" }),
      service_lines: Array(30).fill({ units: "UN" }),
      billing_notes: Array(40).fill({})
    })
    const full = Schema.decodeUnknownEither(EncounterCreate, { errors: "all", onExcessProperty: "ignore" })(payload)
    const all = Either.isLeft(full) ? fieldIssues(full.left) : []
    expect(all.length).toBeGreaterThan(MAX_PROBLEMS)
    expect(created(payload).slice(0, MAX_PROBLEMS)).toEqual(all.slice(0, MAX_PROBLEMS))
  })

  test("nulls are dropped at any depth; a body without any is used as it is", () => {
    const payload = validPayload("x", { metadata: { a: null, b: [{ c: null, d: 1 }] }, referral_number: null })
    const r = validateEncounterCreate(payload)
    expect(Either.isRight(r) && r.right.metadata).toEqual({ b: [{ d: 1 }] })
    expect(Either.isRight(r) && "referral_number" in r.right).toBe(false)
    expect(payload.referral_number).toBeNull()
  })

  test("half a million numbers or objects, and deep nesting, are refused in milliseconds", () => {
    const cases: Array<[unknown, string]> = [
      [validPayload("x", { diagnoses: Array(500_000).fill(1) }), "diagnoses"],
      [validPayload("x", { service_lines: Array(340_000).fill({}) }), "service_lines"],
      [validPayload("x", { clinical_notes: Array(340).fill({ category: "x", notes: Array(1000).fill({}) }) }), "$"]
    ]
    for (const [payload, path] of cases) {
      const started = performance.now()
      const found = created(payload)
      expect(performance.now() - started).toBeLessThan(500)
      expect(found.length).toBeLessThanOrEqual(MAX_PROBLEMS + 1)
      expect(found[found.length - 1]!.path).toBe(path)
    }
    const deep = JSON.parse('{"metadata":'.repeat(30_000) + "1" + "}".repeat(30_000))
    expect(created(deep)).toEqual([new FieldIssue({ path: "$", message: "nests deeper than 32 levels" })])
  })
})

describe("email addresses in one pass", () => {
  const pattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
  test("accepts what the pattern accepts", () => {
    for (const s of ["a@b.c", "a@b..c", "a@.b.c", "a@b.", "@b.c", "a@b", "a b@c.d", "a@b@c.d", "ab@cd.ef.gh", "é@ü.x", "a@b.c\n", "a.b@c", "a@bc.", "a@b.c "]) {
      expect(isEmailAddress(s)).toBe(pattern.test(s))
    }
  })

  test("a long domain of dots is linear (the pattern took minutes at the body limit)", () => {
    const started = performance.now()
    expect(isEmailAddress(`a@${"a.".repeat(500_000)}@`)).toBe(false)
    expect(performance.now() - started).toBeLessThan(100)
  })
})
