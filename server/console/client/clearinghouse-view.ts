import { getJson } from "./api.js"
import { connectionsSection } from "./connections-view.js"
import { facts, h, link, replace, table } from "./dom.js"
import { pager } from "./encounters-view.js"
import { dateTime, field, list, num, optStr, str, statusLabel } from "./format.js"

const OUTCOMES = [
  ["status_changed", "status changed"],
  ["unchanged", "unchanged"],
  ["unmatched", "unmatched"],
  ["conflict", "conflict"]
] as const

const orDash = (s: string | null) => (s === null || s === "" ? "—" : s)
const bytes = (n: number) => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KiB`)
const isa13 = (n: string) => n.padStart(9, "0")

/** What a file did, counted per outcome from its summary ("2 status changed, 1 unmatched"), or why it was refused. */
const fileOutcome = (file: unknown) => {
  const error = optStr(file, "error")
  if (error !== null) return h("span", { class: "outcome rejected" }, `refused: ${error}`)
  const summary = field(file, "summary")
  if (num(summary, "total") === 0) return h("span", { class: "help" }, "no claims named")
  return OUTCOMES.map(([key, label]) => [label, num(summary, key)] as const)
    .filter(([, n]) => n > 0)
    .map(([label, n]) => `${n} ${label}`)
    .join(", ")
}

const fileTitle = (file: unknown) => (str(file, "kind") === "invalid" ? "Refused file" : `${str(file, "kind")} file`)

const batchesSection = async (params: URLSearchParams) => {
  const query = new URLSearchParams({ limit: "25" })
  const token = params.get("batches_token") ?? ""
  if (token !== "") query.set("page_token", token)
  const page = await getJson(`/console/api/x12/batches?${query}`)
  const items = list(page, "items")
  const kept = new URLSearchParams(params)
  kept.delete("batches_token")
  const rows = items.map((b) => {
    const control = isa13(str(b, "interchange_control_number"))
    return [
      h("span", { class: "nowrap" }, dateTime(str(b, "created_at"))),
      control,
      str(b, "group_control_number"),
      String(list(b, "claim_ids").length),
      // A download, not a view: the browser follows it itself.
      h("a", { href: `/console/api/x12/batches/${encodeURIComponent(str(b, "id"))}/file`, download: `837p-${control}.x12` }, `837P file ${control}`)
    ]
  })
  return h(
    "section",
    { "aria-labelledby": "batches-title" },
    h("h2", { id: "batches-title" }, "837P batches sent"),
    items.length === 0
      ? h("p", { class: "empty" }, "No batches sent yet.")
      : table("837P batches, newest first", ["Created", "Interchange control number", "Group control number", "Claims", "File"], rows, { numeric: [3] }),
    pager("/console/clearinghouse", kept, page, { param: "batches_token", label: "Pages of batches" })
  )
}

const filesSection = async (params: URLSearchParams) => {
  const query = new URLSearchParams({ limit: "25" })
  const token = params.get("files_token") ?? ""
  if (token !== "") query.set("page_token", token)
  const page = await getJson(`/console/api/x12/files?${query}`)
  const items = list(page, "items")
  const kept = new URLSearchParams(params)
  kept.delete("files_token")
  const rows = items.map((f) => {
    const control = optStr(f, "interchange_control_number")
    return [
      link(`/console/clearinghouse/files/${encodeURIComponent(str(f, "id"))}`, dateTime(str(f, "received_at")), { class: "nowrap" }),
      h("span", { class: `outcome ${str(f, "kind") === "invalid" ? "rejected" : "accepted"}` }, str(f, "kind")),
      orDash(optStr(f, "sender_id")),
      control === null ? "—" : isa13(control),
      fileOutcome(f),
      bytes(num(f, "size"))
    ]
  })
  return h(
    "section",
    { "aria-labelledby": "files-title" },
    h("h2", { id: "files-title" }, "Files received"),
    items.length === 0
      ? h("p", { class: "empty" }, "No files received yet.")
      : table("Files received (999, 277CA, 835), newest first", ["Received", "Kind", "Sender", "Interchange control number", "What it did", "Size"], rows, { numeric: [5] }),
    pager("/console/clearinghouse", kept, page, { param: "files_token", label: "Pages of files" })
  )
}

/** The exchange with the clearinghouse: batches sent and files received back, each list paged. */
export const renderClearinghouse = async (main: HTMLElement, params: URLSearchParams) => {
  const [connections, batches, files] = await Promise.all([connectionsSection(), batchesSection(params), filesSection(params)])
  replace(
    main,
    h("h1", {}, "Clearinghouse"),
    h(
      "p",
      { class: "help" },
      "The 837P batches sent and the files the clearinghouse sent back (999, 277CA, 835), newest first. Batches are sent and files imported through the API (/api/x12) or the CLI, or carried by the SFTP connections below."
    ),
    connections,
    batches,
    files
  )
}

/** One file received: where it came from and what it did to each claim it names, 100 at a time. */
export const renderX12File = async (main: HTMLElement, id: string, params: URLSearchParams) => {
  const query = new URLSearchParams({ limit: "100" })
  const token = params.get("page_token") ?? ""
  if (token !== "") query.set("page_token", token)
  const [file, page] = await Promise.all([
    getJson(`/console/api/x12/files/${encodeURIComponent(id)}`),
    getJson(`/console/api/x12/files/${encodeURIComponent(id)}/outcomes?${query}`)
  ])
  const control = optStr(file, "interchange_control_number")
  const claims = list(page, "items")
  const rows = claims.map((c) => [
    orDash(optStr(c, "patient_control_number")),
    optStr(c, "claim_id") === null ? "—" : h("code", {}, str(c, "claim_id")),
    OUTCOMES.find(([key]) => key === str(c, "outcome"))?.[1] ?? str(c, "outcome"),
    optStr(c, "previous_status") === null ? "—" : statusLabel(str(c, "previous_status")),
    optStr(c, "status") === null ? "—" : statusLabel(str(c, "status")),
    str(c, "detail")
  ])
  replace(
    main,
    h("p", { class: "crumbs" }, link("/console/clearinghouse", "← Clearinghouse")),
    h("h1", {}, `${fileTitle(file)} received ${dateTime(str(file, "received_at"))}`),
    facts([
      ["Kind", str(file, "kind")],
      ["Received", dateTime(str(file, "received_at"))],
      ["Sender", orDash(optStr(file, "sender_id"))],
      ["Interchange control number", control === null ? "—" : isa13(control)],
      [
        "Reused control number",
        optStr(file, "reused_control_number_of") === null
          ? ""
          : h("span", {}, "an earlier file has this sender and number with other content: ", link(`/console/clearinghouse/files/${encodeURIComponent(str(file, "reused_control_number_of"))}`, "that file"))
      ],
      ["Size", bytes(num(file, "size"))],
      ["What it did", optStr(file, "error") === null ? fileOutcome(file) : ""],
      ["SHA-256", h("code", {}, str(file, "sha256"))],
      ["Refused because", optStr(file, "error")]
    ]),
    h(
      "section",
      { "aria-labelledby": "file-claims-title" },
      h("h2", { id: "file-claims-title" }, "Claims"),
      rows.length === 0
        ? h("p", { class: "empty" }, "The file names no claims.")
        : table("What the file did to each claim it names", ["Patient control number", "Claim", "Outcome", "Previous status", "Status", "Detail"], rows),
      pager(`/console/clearinghouse/files/${encodeURIComponent(id)}`, new URLSearchParams(), page, { label: "Pages of claims", prev: "← Earlier", next: "Later →" })
    )
  )
}
