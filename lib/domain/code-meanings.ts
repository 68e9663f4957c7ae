/**
 * What the codes payers and clearinghouses send mean, and what kind of work each one makes: one
 * table for the claim adjustment reason codes (CARC), the remittance advice remark codes (RARC),
 * the 277 claim status category (STC01-1) and status (STC01-2) codes and the 999 error codes
 * (IK304 segment, IK403 element, IK502 transaction set). The texts are the code lists' current
 * texts (their first sentence where the list adds usage notes), for the codes mapped here only;
 * a code not in the table is shown as its code. Task categories (`TaskCategories`) derive from
 * the `category` of each entry, so a category cannot be named that no code makes.
 */

export type CodeList = "carc" | "rarc" | "stc_category" | "stc_status" | "ik3" | "ik4" | "ik5"

export interface CodeMeaning {
  readonly text: string
  /** The work category this code puts a task in; none for codes that only explain. */
  readonly category?: string
}

const m = (text: string, category?: string): CodeMeaning => (category === undefined ? { text } : { text, category })

export const CodeMeanings = {
  carc: {
    "1": m("Deductible Amount", "patient_responsibility"),
    "2": m("Coinsurance Amount", "patient_responsibility"),
    "3": m("Co-payment Amount", "patient_responsibility"),
    "4": m("The procedure code is inconsistent with the modifier used.", "coding"),
    "5": m("The procedure code/type of bill is inconsistent with the place of service.", "coding"),
    "11": m("The diagnosis is inconsistent with the procedure.", "coding"),
    "15": m("The authorization number is missing, invalid, or does not apply to the billed services or provider.", "authorization"),
    "16": m("Claim/service lacks information or has submission/billing error(s).", "missing_information"),
    "18": m("Exact duplicate claim/service", "duplicate"),
    "22": m("This care may be covered by another payer per coordination of benefits.", "coordination_of_benefits"),
    "26": m("Expenses incurred prior to coverage.", "eligibility"),
    "27": m("Expenses incurred after coverage terminated.", "eligibility"),
    "29": m("The time limit for filing has expired.", "timely_filing"),
    "31": m("Patient cannot be identified as our insured.", "eligibility"),
    "45": m("Charge exceeds fee schedule/maximum allowable or contracted/legislated fee arrangement.", "contractual"),
    "50": m("These are non-covered services because this is not deemed a 'medical necessity' by the payer.", "medical_necessity"),
    "96": m("Non-covered charge(s).", "not_covered"),
    "97": m("The benefit for this service is included in the payment/allowance for another service/procedure that has already been adjudicated.", "bundled"),
    "109": m("Claim/service not covered by this payer/contractor. You must send the claim/service to the correct payer/contractor.", "wrong_payer"),
    "119": m("Benefit maximum for this time period or occurrence has been reached.", "not_covered"),
    "140": m("Patient/Insured health identification number and name do not match.", "eligibility"),
    "181": m("Procedure code was invalid on the date of service.", "coding"),
    "185": m("The rendering provider is not eligible to perform the service billed.", "provider_eligibility"),
    "197": m("Precertification/notification/authorization/pre-treatment absent.", "authorization"),
    "204": m("This service/equipment/drug is not covered under the patient's current benefit plan", "not_covered"),
    "252": m("An attachment/other documentation is required to adjudicate this claim/service.", "missing_information")
  },
  rarc: {
    MA04: m("Secondary payment cannot be considered without the identity of or payment information from the primary payer. The information was either not reported or was illegible."),
    MA130: m("Your claim contains incomplete and/or invalid information, and no appeal rights are afforded because the claim is unprocessable. Please submit a new claim with the complete/correct information."),
    M51: m("Missing/incomplete/invalid procedure code(s)."),
    M76: m("Missing/incomplete/invalid diagnosis or condition."),
    N30: m("Patient ineligible for this service."),
    N290: m("Missing/incomplete/invalid rendering provider primary identifier.")
  },
  stc_category: {
    A0: m("Acknowledgement/Forwarded-The claim/encounter has been forwarded to another entity."),
    A1: m("Acknowledgement/Receipt-The claim/encounter has been received. This does not mean that the claim has been accepted for adjudication."),
    A2: m("Acknowledgement/Acceptance into adjudication system-The claim/encounter has been accepted into the adjudication system."),
    A3: m("Acknowledgement/Returned as unprocessable claim-The claim/encounter has been rejected and has not been entered into the adjudication system.", "unprocessable"),
    A4: m("Acknowledgement/Not Found-The claim/encounter can not be found in the adjudication system.", "not_found"),
    A5: m("Acknowledgement/Split Claim-The claim/encounter has been split upon acceptance into the adjudication system."),
    A6: m("Acknowledgement/Rejected for Missing Information - The claim/encounter is missing the information specified in the Status details and has been rejected.", "missing_information"),
    A7: m("Acknowledgement/Rejected for Invalid Information - The claim/encounter has invalid information as specified in the Status details and has been rejected.", "invalid_information"),
    A8: m("Acknowledgement / Rejected for relational field in error.", "invalid_information"),
    R0: m("Requests for additional Information/General Requests-Requests that don't fall into other R-type categories.", "information_requested"),
    R1: m("Requests for additional Information/Entity Requests-Requests for information about specific entities (subscribers, patients, providers)", "information_requested"),
    R3: m("Requests for additional Information/Claim/Line-Requests for information that could normally be submitted on a claim.", "information_requested"),
    R4: m("Requests for additional Information/Documentation-Requests for additional supporting documentation. Examples: certification, x-ray, notes.", "documentation_requested"),
    R5: m("Request for additional information/more specific detail-Additional information as a follow up to a previous request is needed. The original information was received but is inadequate. Examples: Procedure code, diagnosis code, charges.", "information_requested"),
    P1: m("Pending/In Process-The claim or encounter is in the adjudication system."),
    F1: m("Finalized/Payment-The claim/line has been paid."),
    F2: m("Finalized/Denial-The claim/line has been denied.")
  },
  stc_status: {
    "21": m("Missing or invalid information."),
    "33": m("Subscriber and subscriber id not found.", "member_id"),
    "54": m("Duplicate of a previously processed claim/line.", "duplicate"),
    "78": m("Duplicate of an existing claim/line, awaiting processing.", "duplicate"),
    "97": m("Patient eligibility not found with entity.", "eligibility"),
    "109": m("Entity not eligible.", "provider_eligibility"),
    "116": m("Claim submitted to incorrect payer.", "wrong_payer"),
    "145": m("Entity's specialty/taxonomy code.", "provider_identifier"),
    "164": m("Entity's contract/member number.", "member_id"),
    "187": m("Date(s) of service.", "dates_of_service"),
    "255": m("Diagnosis code.", "coding"),
    "454": m("Procedure code for services rendered.", "coding"),
    "562": m("Entity's National Provider Identifier (NPI).", "provider_identifier")
  },
  ik3: {
    "1": m("Unrecognized segment ID", "segment_error"),
    "2": m("Unexpected segment", "segment_error"),
    "3": m("Required Segment Missing", "missing_segment"),
    "4": m("Loop Occurs Over Maximum Times", "segment_error"),
    "5": m("Segment Exceeds Maximum Use", "segment_error"),
    "7": m("Segment Not in Proper Sequence", "segment_error"),
    "8": m("Segment Has Data Element Errors"),
    I4: m("Implementation \"Not Used\" Segment Present", "segment_error"),
    I6: m("Implementation Dependent Segment Missing", "missing_segment")
  },
  ik4: {
    "1": m("Required Data Element Missing", "missing_element"),
    "2": m("Conditional Required Data Element Missing", "missing_element"),
    "4": m("Data Element Too Short", "element_format"),
    "5": m("Data Element Too Long", "element_format"),
    "6": m("Invalid Character In Data Element", "element_format"),
    "7": m("Invalid Code Value", "invalid_code"),
    "8": m("Invalid Date", "invalid_date"),
    I6: m("Code Value Not Used in Implementation", "invalid_code"),
    I9: m("Implementation Dependent Data Element Missing", "missing_element"),
    I12: m("Implementation Pattern Match Failure", "element_format")
  },
  ik5: {
    "1": m("Transaction Set Not Supported", "envelope"),
    "2": m("Transaction Set Trailer Missing", "envelope"),
    "3": m("Transaction Set Control Number in Header and Trailer Do Not Match", "envelope"),
    "4": m("Number of Included Segments Does Not Match Actual Count", "envelope"),
    "5": m("One or More Segments in Error"),
    I5: m("Implementation One or More Segments in Error")
  }
} as const satisfies { readonly [L in CodeList]: Readonly<Record<string, CodeMeaning>> }

const table: { readonly [L in CodeList]: Readonly<Record<string, CodeMeaning>> } = CodeMeanings
const isCodeList = (s: string): s is CodeList => s in table

/**
 * The task categories: every category some code of the table makes, in the table's order, then
 * those no code makes (a payment to review, no answer from the payer, and what no mapped code names).
 */
export const TaskCategories: ReadonlyArray<string> = [
  ...new Set(Object.values(table).flatMap((list) => Object.values(list).flatMap((e) => (e.category === undefined ? [] : [e.category])))),
  "payment_review",
  "no_response",
  "other"
]

/** A code's meaning in its list, if the table maps it. */
export const meaningOf = (list: CodeList, code: string): CodeMeaning | undefined => table[list][code]

/** A code as a cause lists it: `carc:CO-16`, `stc_status:562`, `ik4:7`. The list prefix names the table. */
export const causeCode = (list: CodeList, code: string): string => `${list}:${code}`

/** The meaning of a cause's code (`causeCode`); CARC codes carry their group (`CO-16`). */
export const meaningOfCauseCode = (code: string): CodeMeaning | undefined => {
  const at = code.indexOf(":")
  if (at < 0) return undefined
  const list = code.slice(0, at)
  const value = code.slice(at + 1)
  if (!isCodeList(list)) return undefined
  return meaningOf(list, list === "carc" ? value.replace(/^[A-Z]{2}-/, "") : value)
}

/** The first category the codes make, in their order; `other` when none of them makes one. */
export const categoryOf = (codes: ReadonlyArray<string>): string => {
  for (const c of codes) {
    const category = meaningOfCauseCode(c)?.category
    if (category !== undefined) return category
  }
  return "other"
}

/**
 * A denial's category: a contractual (CO) or payer-initiated (PI, OA) reason first, since those
 * are what the biller can fix; patient responsibility only when nothing else explains it.
 */
export const denialCodes = (adjustments: ReadonlyArray<{ readonly group: string; readonly reason: string }>): ReadonlyArray<string> => {
  const codes = adjustments.map((a) => ({ code: causeCode("carc", `${a.group}-${a.reason}`), patient: a.group === "PR" }))
  return [...codes.filter((c) => !c.patient), ...codes.filter((c) => c.patient)].map((c) => c.code)
}
