import { ParseResult, SchemaAST as AST } from "effect"
import { FieldIssue } from "./errors.js"

/**
 * How many problems one request is told. Validation reports every problem at once, but a hostile
 * body can hold a million of them: past this many the list is cut, and one more entry with the
 * code `too_many_problems` says how many were found.
 */
export const MAX_PROBLEMS = 100

/**
 * Where a list stops checking its entries (`boundedList`): once they have more problems than
 * this, well past `MAX_PROBLEMS`, the problems listed are those a full check would list first.
 */
export const STOP_AFTER_PROBLEMS = 2 * MAX_PROBLEMS

export const TOO_MANY_PROBLEMS = "too_many_problems"

/**
 * The longest message a problem keeps. Every message this service writes is shorter (the longest
 * lists a vocabulary of a few hundred values); a message of Effect's own that quotes the value it
 * refused ("Expected null, actual ...") is cut here, so the answer does not echo a large value.
 */
export const MAX_MESSAGE_LENGTH = 4096

const bounded = (issue: FieldIssue): FieldIssue =>
  issue.message.length <= MAX_MESSAGE_LENGTH ? issue : new FieldIssue({ ...issue, message: `${issue.message.slice(0, MAX_MESSAGE_LENGTH)}…` })

/**
 * The first `MAX_PROBLEMS` problems and, when there were more, the entry that says how many were
 * found. Found is a lower bound: a list stops checking its entries past `STOP_AFTER_PROBLEMS`.
 * A list cut already is answered as it is.
 */
export const capProblems = (issues: ReadonlyArray<FieldIssue>): ReadonlyArray<FieldIssue> => {
  if (issues.length <= MAX_PROBLEMS) return issues.every((i) => i.message.length <= MAX_MESSAGE_LENGTH) ? issues : issues.map(bounded)
  if (issues.length === MAX_PROBLEMS + 1 && issues[MAX_PROBLEMS]?.code === TOO_MANY_PROBLEMS) return issues
  return [
    ...issues.slice(0, MAX_PROBLEMS).map(bounded),
    new FieldIssue({
      path: "$",
      message: `at least ${issues.length} problems were found; the first ${MAX_PROBLEMS} are listed`,
      code: TOO_MANY_PROBLEMS
    })
  ]
}

/** True when `issues` is a cut list (its last entry says how many more there were). */
export const isCapped = (issues: ReadonlyArray<FieldIssue>): boolean => issues[issues.length - 1]?.code === TOO_MANY_PROBLEMS

/**
 * The problems a decoding failure holds, counted without formatting them: one per leaf of the
 * issue tree, one per failed union (`fieldIssues` lists a union's failure at least once). It only
 * decides when a list may stop checking its entries.
 */
export const countProblems = (issue: ParseResult.ParseIssue): number => {
  switch (issue._tag) {
    case "Pointer":
    case "Refinement":
    case "Transformation":
      return countProblems(issue.issue)
    case "Composite": {
      if (AST.isUnion(issue.ast)) return 1
      const issues = issue.issues
      if ("_tag" in issues) return countProblems(issues)
      let n = 0
      for (const i of issues) n += countProblems(i)
      return n
    }
    default:
      return 1
  }
}
