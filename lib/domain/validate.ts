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

/** True when `u` nests deeper than `limit` (walked with an explicit stack, never recursion). */
export const nestsDeeperThan = (u: unknown, limit: number): boolean => {
  const stack: Array<[unknown, number]> = [[u, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (typeof node !== "object" || node === null) continue
    if (depth > limit) return true
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1])
    }
  }
  return false
}

/** The vendor treats a `null` optional as absent: drop null-valued keys (a required key then reads as missing). */
export const dropNulls = (u: unknown): unknown => {
  if (Array.isArray(u)) return u.map(dropNulls)
  if (!isObject(u)) return u
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(u)) {
    const v = u[key]
    if (v !== null) out[key] = dropNulls(v)
  }
  return out
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
  if (nestsDeeperThan(input, MAX_DEPTH)) {
    return Either.left([new FieldIssue({ path: "$", message: `nests deeper than ${MAX_DEPTH} levels` })])
  }
  const cleaned = dropNulls(input)
  const decoded = decode(cleaned)
  const issues = Either.isLeft(decoded) ? fieldIssues(decoded.left) : []
  const seen = new Set(issues.map((i) => `${i.path}\u0000${i.message}`))
  for (const i of crossFieldIssues(cleaned)) {
    if (!seen.has(`${i.path}\u0000${i.message}`)) issues.push(i)
  }
  if (issues.length > 0 || Either.isLeft(decoded)) return Either.left(capProblems(issues))
  return Either.right(decoded.right)
}
