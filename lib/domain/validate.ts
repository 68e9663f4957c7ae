import { Either, Schema } from "effect"
import { EncounterCreate, MAX_DIAGNOSIS_POINTERS, MAX_SERVICE_LINES } from "./encounter-input.js"
import { FieldIssue } from "./errors.js"
import { fieldIssues } from "./field-issues.js"
import { capProblems, STOP_AFTER_PROBLEMS } from "./problems.js"

export { fieldIssues, formatPath } from "./field-issues.js"

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)
const isAbsent = (u: unknown) => u === undefined || u === null

/**
 * The rules that span fields. They read the raw input defensively, so they report alongside the
 * field-level problems instead of waiting for those to be fixed first. A list past its limit is
 * not walked (the schema refuses its length), and the walk stops well past the problems a request
 * is told (`STOP_AFTER_PROBLEMS`).
 */
export const crossFieldIssues = (input: unknown): Array<FieldIssue> => {
  if (!isObject(input)) return []
  const issues: Array<FieldIssue> = []
  const issue = (path: string, message: string) => issues.push(new FieldIssue({ path, message }))

  if (input.responsible_party === "INSURANCE_PAY" && isAbsent(input.subscriber_primary)) {
    issue("subscriber_primary", "is required when responsible_party is INSURANCE_PAY")
  }
  if (!isAbsent(input.service_facility) && !isAbsent(input.service_facility_id)) {
    issue("service_facility_id", "must not be sent together with service_facility")
  }
  const diagnosisCount = Array.isArray(input.diagnoses) ? input.diagnoses.length : undefined
  const lines = input.service_lines
  if (Array.isArray(lines) && lines.length <= MAX_SERVICE_LINES) {
    const lineIds = new Set<string>()
    lines.forEach((line, i) => {
      if (!isObject(line) || issues.length > STOP_AFTER_PROBLEMS) return
      const pointers = line.diagnosis_pointers
      if (Array.isArray(pointers) && pointers.length <= MAX_DIAGNOSIS_POINTERS) {
        if (pointers.length === 0) {
          issue(`service_lines[${i}].diagnosis_pointers`, "must have at least one entry")
        }
        const seen = new Set<number>()
        pointers.forEach((p, j) => {
          if (typeof p !== "number" || !Number.isInteger(p) || p < 0) return
          if (seen.has(p)) issue(`service_lines[${i}].diagnosis_pointers[${j}]`, "repeats an earlier pointer")
          seen.add(p)
          if (diagnosisCount !== undefined && p >= diagnosisCount) {
            issue(
              `service_lines[${i}].diagnosis_pointers[${j}]`,
              `points to no diagnosis: diagnoses has ${diagnosisCount} entries, pointers are zero-based`
            )
          }
        })
      }
      if (typeof line.external_id === "string") {
        if (lineIds.has(line.external_id)) issue(`service_lines[${i}].external_id`, "must be unique within the encounter")
        lineIds.add(line.external_id)
      }
    })
  }
  return issues
}

/** The deepest nesting the create shape has is 6; anything far deeper is refused before it is walked. */
export const MAX_DEPTH = 32

/** True when `u` nests deeper than `limit`: a walk whose recursion stops at the limit, so any depth is safe. */
export const nestsDeeperThan = (u: unknown, limit: number): boolean => deeperThan(u, 0, limit)

const deeperThan = (u: unknown, depth: number, limit: number): boolean => {
  if (typeof u !== "object" || u === null) return false
  if (depth > limit) return true
  const children = Array.isArray(u) ? u : Object.values(u)
  for (let i = 0; i < children.length; i++) {
    const child: unknown = children[i]
    if (typeof child === "object" && child !== null && deeperThan(child, depth + 1, limit)) return true
  }
  return false
}

const TOO_DEEP: unique symbol = Symbol("too deep")
const DROPPED: unique symbol = Symbol("dropped")

/**
 * The vendor treats a `null` optional as absent: `u` without its null-valued keys (a required key
 * then reads as missing), or `TOO_DEEP` when it nests deeper than `limit`. One walk, whose
 * recursion the limit bounds. What holds no null is shared, not copied: a body of a few hundred
 * thousand small objects is walked in milliseconds.
 */
const withoutNulls = (u: unknown, depth: number, limit: number): unknown => {
  if (typeof u !== "object" || u === null) return u
  if (depth > limit) return TOO_DEEP
  if (Array.isArray(u)) {
    let copy: Array<unknown> | undefined
    for (let i = 0; i < u.length; i++) {
      const v: unknown = u[i]
      const w = withoutNulls(v, depth + 1, limit)
      if (w === TOO_DEEP) return TOO_DEEP
      if (copy === undefined && w !== v) copy = u.slice(0, i)
      copy?.push(w)
    }
    return copy ?? u
  }
  const record: Record<string, unknown> = isObject(u) ? u : {}
  const keys = Object.keys(record)
  let copy: Record<string, unknown> | undefined
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const v = record[key]
    const w = v === null ? DROPPED : withoutNulls(v, depth + 1, limit)
    if (w === TOO_DEEP) return TOO_DEEP
    if (copy === undefined && w !== v) {
      copy = {}
      for (let j = 0; j < i; j++) copy[keys[j]!] = record[keys[j]!]
    }
    if (copy !== undefined && w !== DROPPED) copy[key] = w
  }
  return copy ?? u
}

const decode = Schema.decodeUnknownEither(EncounterCreate, { errors: "all", onExcessProperty: "ignore" })

/**
 * Validates a create payload against every rule at once: field types and formats, vocabularies,
 * required nested fields, and the cross-field rules. Unknown keys are dropped from the result
 * (they stay in the stored raw request). At most `MAX_PROBLEMS` problems are answered, then one
 * `too_many_problems` entry (`capProblems`); a list longer than its limit is one problem, its
 * entries unchecked.
 */
export const validateEncounterCreate = (input: unknown): Either.Either<EncounterCreate, ReadonlyArray<FieldIssue>> => {
  if (!isObject(input)) {
    return Either.left([new FieldIssue({ path: "$", message: "must be a JSON object" })])
  }
  const cleaned = withoutNulls(input, 0, MAX_DEPTH)
  if (cleaned === TOO_DEEP) {
    return Either.left([new FieldIssue({ path: "$", message: `nests deeper than ${MAX_DEPTH} levels` })])
  }
  const decoded = decode(cleaned)
  const issues = Either.isLeft(decoded) ? fieldIssues(decoded.left) : []
  const seen = new Set(issues.map((i) => `${i.path}\u0000${i.message}`))
  for (const i of crossFieldIssues(cleaned)) {
    if (!seen.has(`${i.path}\u0000${i.message}`)) issues.push(i)
  }
  if (issues.length > 0 || Either.isLeft(decoded)) return Either.left(capProblems(issues))
  return Either.right(decoded.right)
}
