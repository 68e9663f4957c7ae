import { canWriteClaims, getJson } from "./api.js"
import { facts, h, link, redraw, replace, table } from "./dom.js"
import { correctClaimForm } from "./correct-claim.js"
import { address, dateTime, dollars, field, list, num, optStr, personName, str, strings, statusLabel } from "./format.js"
import { moveClaimForm } from "./move-claim.js"
import { statusChecksSection } from "./status-checks-view.js"

const section = (title: string, id: string, ...body: ReadonlyArray<Node | null>) =>
  h("section", { "aria-labelledby": id }, h("h2", { id }, title), ...body)

const providers = (claim: unknown) => {
  const billing = field(claim, "billing_provider")
  const rendering = field(claim, "rendering_provider")
  const facility = field(claim, "service_facility")
  return h(
    "div",
    { class: "columns" },
    h("div", {}, h("h3", {}, "Billing provider"), facts([["Name", str(billing, "organization_name") || personName(billing)], ["NPI", str(billing, "npi")], ["Tax id", str(billing, "tax_id")], ["Address", address(billing)]])),
    h("div", {}, h("h3", {}, "Rendering provider"), facts([["Name", personName(rendering)], ["NPI", str(rendering, "npi")]])),
    facility === null || facility === undefined
      ? null
      : h("div", {}, h("h3", {}, "Service facility"), facts([["Name", str(facility, "organization_name")], ["NPI", str(facility, "npi")], ["Address", address(facility)]]))
  )
}

const serviceLines = (claim: unknown, total: number) => {
  const lines = list(claim, "service_lines")
  return table(
    "Service lines with their charges",
    ["Procedure", "Modifiers", "Quantity", "Units", "Date of service", "Diagnosis pointers", "Charge"],
    lines.map((l) => [
      str(l, "procedure_code"),
      strings(l, "modifiers").join(", ") || "—",
      str(l, "quantity"),
      str(l, "units"),
      optStr(l, "date_of_service") ?? optStr(claim, "date_of_service") ?? "—",
      // Zero-based in the API; the claim form (and the 837P) count from 1.
      list(l, "diagnosis_pointers").map((p) => (typeof p === "number" ? String(p + 1) : "?")).join(", "),
      field(l, "charge_amount_cents") === undefined ? "—" : dollars(num(l, "charge_amount_cents"))
    ]),
    { numeric: [2, 6], foot: ["Total", "", "", "", "", "", dollars(total)] }
  )
}

const describeEvent = (event: unknown) => {
  const payload = field(event, "payload")
  const type = str(event, "event_type")
  if (type.endsWith(".Created")) return `Created with claim status ${statusLabel(str(payload, "status"))}`
  if (type.endsWith(".StatusUpdated")) return `Claim moved from ${statusLabel(str(payload, "previous_status"))} to ${statusLabel(str(payload, "status"))}`
  return type
}

const timeline = (data: unknown) => {
  const t = field(data, "timeline")
  const events = list(t, "events")
  return section(
    "Timeline",
    "timeline-title",
    events.length === 0
      ? h("p", { class: "empty" }, "No events.")
      : h(
          "ol",
          { class: "timeline" },
          events.map((e) => {
            const note = optStr(field(e, "payload"), "note")
            return h("li", {}, h("time", { datetime: str(e, "timestamp") }, dateTime(str(e, "timestamp"))), " ", describeEvent(e), note === null ? null : h("span", { class: "note" }, ` Note: ${note}`))
          })
        )
  )
}

/** Cents as dollars, or a dash where the answer has no amount. */
const money = (value: unknown, key: string) => {
  const v = field(value, key)
  return typeof v === "number" && Number.isFinite(v) ? dollars(v) : "—"
}

/** CAS01 in words (the 835's claim adjustment group codes). */
const GROUPS: Readonly<Record<string, string>> = {
  CO: "contractual obligation",
  PR: "patient responsibility",
  OA: "other adjustment",
  PI: "payer initiated reduction",
  CR: "correction or reversal"
}

/** Adjustments as a list: group and reason code, amount, and the group in words. */
const adjustments = (value: unknown) => {
  const items = list(value, "adjustments")
  if (items.length === 0) return "—"
  return h(
    "ul",
    { class: "adjustments" },
    items.map((a) => {
      const group = str(a, "group")
      const words = GROUPS[group]
      return h("li", {}, h("code", {}, `${group}-${str(a, "reason")}`), ` ${money(a, "amount_cents")}`, words === undefined ? null : h("span", { class: "note" }, ` (${words})`))
    })
  )
}

/** Whether the claim has remittances beyond those a read carries (its 20 most recent). */
const moreRemittances = (claim: unknown): boolean => field(claim, "more_remittances") === true

/** One remittance: what the payer said of the claim, then of each service line. */
const remittance = (r: unknown, i: number) => {
  const check = str(r, "check_number") || "—"
  const paidOn = str(r, "payment_date") || "—"
  const lines = list(r, "service_lines")
  const id = `remittance-${i}`
  return h(
    "section",
    { class: "remittance", "aria-labelledby": id },
    h("h3", { id }, `Check ${check}, paid ${paidOn}`),
    facts([
      ["Check or EFT number", check],
      ["Payment date", paidOn],
      ["Payer claim number", optStr(r, "payer_claim_control_number") ?? "—"],
      ["Billed", money(r, "charge_amount_cents")],
      ["Paid", money(r, "paid_amount_cents")],
      ["Patient responsibility", money(r, "patient_responsibility_cents")],
      ["Claim adjustments", adjustments(r)]
    ]),
    lines.length === 0
      ? h("p", { class: "help" }, "The remittance names no service lines.")
      : table(
          `Service lines of check ${check}`,
          ["Procedure", "Billed", "Paid", "Adjustments"],
          lines.map((l) => [str(l, "procedure_code") || "—", money(l, "charge_amount_cents"), money(l, "paid_amount_cents"), adjustments(l)]),
          { numeric: [1, 2] }
        )
  )
}

/**
 * The claim's remittances (what each 835 said of it), newest payment first: a summary table, then
 * each one with its adjustments and service lines. Read defensively from `latest_claim.remittances`:
 * a missing amount shows as a dash. When the answer says there are more than it carries, a link
 * leads to the claim's full list.
 */
const remittances = (claim: unknown) => {
  const items = [...list(claim, "remittances")]
    .map((r, i) => ({ r, i }))
    .sort((a, b) => (str(b.r, "payment_date") < str(a.r, "payment_date") ? -1 : str(b.r, "payment_date") > str(a.r, "payment_date") ? 1 : b.i - a.i))
    .map(({ r }) => r)
  if (items.length === 0) return null
  const more = moreRemittances(claim)
  const claimId = str(claim, "id")
  const paid = items.reduce((sum: number, r) => sum + num(r, "paid_amount_cents"), 0)
  return section(
    "Remittances",
    "remittances-title",
    more === false
      ? null
      : h(
          "p",
          { class: "help" },
          `The ${items.length} most recent remittances are shown. `,
          h("a", { href: `/api/claims/${encodeURIComponent(claimId)}/remittances` }, "Every remittance of this claim (API, with an API key)")
        ),
    table(
      "Remittances of this claim, newest payment first",
      ["Check or EFT", "Payment date", "Payer claim number", "Billed", "Paid", "Patient responsibility"],
      items.map((r) => [
        str(r, "check_number") || "—",
        h("span", { class: "nowrap" }, str(r, "payment_date") || "—"),
        optStr(r, "payer_claim_control_number") ?? "—",
        money(r, "charge_amount_cents"),
        money(r, "paid_amount_cents"),
        money(r, "patient_responsibility_cents")
      ]),
      { numeric: [3, 4, 5], ...(items.length > 1 ? { foot: ["Paid in all", "", "", "", dollars(paid), ""] } : {}) }
    ),
    ...items.map(remittance)
  )
}

const intakeLink = (id: string | null) =>
  section(
    "Intake request",
    "intake-title",
    id === null
      ? h("p", { class: "help" }, "The request it came from is not in the intake log.")
      : h("p", {}, link(`/console/intake/${encodeURIComponent(id)}`, "The request this encounter came from, as received"))
  )

export const renderEncounter = async (main: HTMLElement, id: string) => {
  const data = await getJson(`/console/api/encounters/${encodeURIComponent(id)}`)
  const encounter = field(data, "encounter")
  const claim = field(encounter, "latest_claim")
  const patient = field(claim, "patient")
  const externalId = str(encounter, "external_id")
  const total = num(data, "total_charge_cents")
  const claimFacts = facts([
    ["Claim id", h("code", {}, str(claim, "id"))],
    ["Status", h("span", { class: "status" }, statusLabel(str(claim, "status")))],
    ["Status changed", dateTime(str(claim, "status_changed_at"))],
    ["Patient control number", str(claim, "patient_control_number")],
    ["Payer", [str(claim, "payer_name"), str(claim, "payer_id")].filter((s) => s !== "").join(" · ")],
    ["Responsible party", str(claim, "responsible_party")]
  ])
  const move = canWriteClaims()
    ? moveClaimForm(str(claim, "id"), `encounter ${externalId}`, str(claim, "status"), strings(data, "allowed_transitions"), (status) =>
        redraw(`Claim moved to ${statusLabel(status)}.`)
      )
    : null
  replace(
    main,
    h("p", { class: "crumbs" }, link("/console/encounters", "← Encounters")),
    h("h1", {}, `Encounter ${externalId}`),
    facts([
      ["Patient", personName(patient)],
      ["Date of service", optStr(claim, "date_of_service") ?? "—"],
      ["Total charge", dollars(total)],
      ["Paid", list(claim, "remittances").length === 0 ? "" : dollars(list(claim, "remittances").reduce((sum: number, r) => sum + num(r, "paid_amount_cents"), 0))],
      ["Claim status", statusLabel(str(claim, "status"))],
      ["Created", dateTime(str(encounter, "created_at"))],
      ["Source", str(encounter, "source")]
    ]),
    section("Patient", "patient-title", facts([["Name", personName(patient)], ["Date of birth", str(patient, "date_of_birth")], ["Gender", str(patient, "gender")], ["Address", address(patient)], ["Patient id (external)", str(patient, "external_id")]])),
    section("Providers", "providers-title", providers(claim)),
    section(
      "Diagnoses",
      "diagnoses-title",
      table("Diagnoses; service lines point at them by number, from 1 as on the claim form", ["Pointer", "Code type", "Code"], list(claim, "diagnoses").map((d, i) => [String(i + 1), str(d, "code_type"), str(d, "code")]))
    ),
    section("Service lines", "lines-title", serviceLines(claim, total)),
    section(
      "Claim",
      "claim-title",
      claimFacts,
      move === null ? h("p", { class: "help" }, "Moving a claim needs a key with the scope claims:write.") : h("h3", {}, "Move this claim"),
      move,
      ...(canWriteClaims()
        ? [
            h("h3", {}, "Correct claim"),
            correctClaimForm(str(claim, "id"), `encounter ${externalId}`, strings(data, "allowed_corrections"), () => redraw("A new claim was made; it is now the latest."))
          ]
        : [])
    ),
    remittances(claim),
    statusChecksSection(str(claim, "id"), optStr(claim, "last_checked_at") ?? undefined),
    timeline(data),
    intakeLink(optStr(data, "intake_request_id"))
  )
}
