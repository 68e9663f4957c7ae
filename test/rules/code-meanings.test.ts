import { describe, expect, test } from "bun:test"
import { categoryOf, type CodeMeaning, CodeMeanings, denialCodes, meaningOfCauseCode, TaskCategories } from "../../lib/domain/code-meanings.js"

describe("code meanings", () => {
  test("a cause code names its list; CARC codes carry their group; unknown codes and lists have no meaning", () => {
    expect(meaningOfCauseCode("carc:CO-16")?.text).toBe("Claim/service lacks information or has submission/billing error(s).")
    expect(meaningOfCauseCode("stc_status:562")).toEqual({ text: "Entity's National Provider Identifier (NPI).", category: "provider_identifier" })
    expect(meaningOfCauseCode("ik4:7")?.category).toBe("invalid_code")
    expect(meaningOfCauseCode("carc:CO-99999")).toBeUndefined()
    expect(meaningOfCauseCode("nope:1")).toBeUndefined()
    expect(meaningOfCauseCode("16")).toBeUndefined()
  })

  test("the category is the first code's that makes one; none makes other", () => {
    expect(categoryOf(["ik5:5", "ik4:8"])).toBe("invalid_date")
    expect(categoryOf(["stc_category:A7", "stc_status:33"])).toBe("invalid_information")
    expect(categoryOf(["stc_status:21"])).toBe("other")
    expect(categoryOf([])).toBe("other")
  })

  test("a denial's codes: what the biller can fix before patient responsibility", () => {
    expect(denialCodes([{ group: "PR", reason: "1" }, { group: "CO", reason: "97" }])).toEqual(["carc:CO-97", "carc:PR-1"])
    expect(categoryOf(denialCodes([{ group: "PR", reason: "1" }, { group: "CO", reason: "29" }]))).toBe("timely_filing")
  })

  test("the task categories are derived from the table: each once, every code's category among them", () => {
    expect(new Set(TaskCategories).size).toBe(TaskCategories.length)
    const made = Object.values(CodeMeanings).flatMap((list) => Object.values(list).flatMap((entry): Array<string> => {
      const m: CodeMeaning = entry
      return m.category === undefined ? [] : [m.category]
    }))
    for (const c of made) expect(TaskCategories).toContain(c)
    expect(TaskCategories.slice(-3)).toEqual(["payment_review", "no_response", "other"])
  })
})
