import { canWriteClaims, getJson } from "./api.js"
import { facts, h, link, redraw, replace, table } from "./dom.js"
import { address, dateTime, dollars, field, list, num, optStr, personName, str, strings, statusLabel } from "./format.js"
import { moveClaimForm } from "./move-claim.js"

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
      list(l, "diagnosis_pointers").map(String).join(", "),
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

/** Remittances are shown when the data carries them; nothing produces them yet. */
const remittances = (encounter: unknown) => {
  const items = list(encounter, "remittances")
  if (items.length === 0) return null
  return section(
    "Remittances",
    "remittances-title",
    table("Remittances", ["Received", "Payer", "Paid"], items.map((r) => [dateTime(str(r, "received_at")), str(r, "payer_name"), dollars(num(r, "paid_cents"))]), { numeric: [2] })
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
    ? moveClaimForm(str(claim, "id"), `encounter ${externalId}`, strings(data, "allowed_transitions"), (status) =>
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
      ["Claim status", statusLabel(str(claim, "status"))],
      ["Created", dateTime(str(encounter, "created_at"))],
      ["Source", str(encounter, "source")]
    ]),
    section("Patient", "patient-title", facts([["Name", personName(patient)], ["Date of birth", str(patient, "date_of_birth")], ["Gender", str(patient, "gender")], ["Address", address(patient)], ["Patient id (external)", str(patient, "external_id")]])),
    section("Providers", "providers-title", providers(claim)),
    section("Diagnoses", "diagnoses-title", table("Diagnoses; service lines point at them by number", ["Pointer", "Code type", "Code"], list(claim, "diagnoses").map((d, i) => [String(i), str(d, "code_type"), str(d, "code")]))),
    section("Service lines", "lines-title", serviceLines(claim, total)),
    section(
      "Claim",
      "claim-title",
      claimFacts,
      move === null ? h("p", { class: "help" }, "Moving a claim needs a key with the scope claims:write.") : h("h3", {}, "Move this claim"),
      move
    ),
    timeline(data),
    remittances(encounter),
    intakeLink(optStr(data, "intake_request_id"))
  )
}
