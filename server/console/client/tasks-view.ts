import { canWriteClaims, canWriteTasks, describeError, getJson, postJson, session } from "./api.js"
import { facts, h, link, navigate, notice, redraw, replace, table } from "./dom.js"
import { dateTime, dollars, field, list, num, optStr, str, statusLabel, strings } from "./format.js"
import { pager } from "./encounters-view.js"
import { moveClaimForm } from "./move-claim.js"

const counted = new Intl.NumberFormat("en-US")
const DAY_MS = 86_400_000

/** What each task type asks of the biller, in plain words. */
const TYPE_LABELS: Readonly<Record<string, string>> = {
  rejection_resolution: "Rejection to resolve",
  denial_resolution: "Denial to resolve",
  payment_review: "Payment to review",
  claim_follow_up: "Claim to follow up"
}
const typeLabel = (type: string) => TYPE_LABELS[type] ?? statusLabel(type)

/** Where a cause came from, in plain words. */
const KIND_LABELS: Readonly<Record<string, string>> = {
  "999": "The clearinghouse's 999 acknowledgment rejected the claim's batch",
  "277CA": "The payer's 277CA acknowledgment rejected the claim",
  "835": "The payer's 835 remittance",
  status_change: "The claim's status was changed",
  no_response: "No answer from the payer"
}

const age = (iso: string, now: number) => {
  const days = Math.floor((now - Date.parse(iso)) / DAY_MS)
  return days <= 0 ? "today" : days === 1 ? "1 day" : `${counted.format(days)} days`
}

const due = (iso: string, now: number) => {
  const late = Date.parse(iso) < now
  return h("span", { class: late ? "nowrap overdue" : "nowrap" }, `${iso.slice(0, 10)}${late ? " (overdue)" : ""}`)
}

/** The filter form of the queue: status, type, category; choosing reloads the list. */
const filterForm = (params: URLSearchParams) => {
  const info = session()
  const select = (name: string, label: string, values: ReadonlyArray<string>, all: string, show: (v: string) => string) =>
    h(
      "div",
      { class: "field" },
      h("label", { for: `wq-${name}` }, label),
      h(
        "select",
        { id: `wq-${name}`, name },
        h("option", { value: "" }, all),
        values.map((v) => h("option", { value: v, selected: params.get(name) === v }, show(v)))
      )
    )
  const form = h(
    "form",
    { class: "filters", "aria-label": "Filter the work queue" },
    select("status", "Status", info?.taskStatuses ?? [], "Any status", statusLabel),
    select("type", "Type", info?.taskTypes ?? [], "Any type", typeLabel),
    select("category", "Category", info?.taskCategories ?? [], "Any category", statusLabel),
    h("button", { type: "submit" }, "Apply filters")
  )
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    const next = new URLSearchParams()
    for (const name of ["status", "type", "category"]) {
      const el = form.querySelector(`[name=${name}]`)
      if (el instanceof HTMLSelectElement && el.value !== "") next.set(name, el.value)
    }
    navigate(`/console/work-queue?${next}`)
  })
  return form
}

/** The work queue: open tasks counted by type and category, then the list by due date with age and amount. */
export const renderTasks = async (main: HTMLElement, params: URLSearchParams) => {
  if (!params.has("status")) params.set("status", "open")
  const query = new URLSearchParams({ limit: "50" })
  for (const key of ["status", "type", "category", "page_token"]) {
    const v = params.get(key)
    if (v !== null && v !== "") query.set(key, v)
  }
  const [counts, page] = await Promise.all([getJson("/console/api/tasks/counts"), getJson(`/console/api/tasks?${query}`)])
  const now = Date.now()
  const byType = list(counts, "counts")
  const summary = table(
    "Open tasks by type and category",
    ["Type", "Category", "Open"],
    byType.map((c) => [
      link(`/console/work-queue?${new URLSearchParams({ status: "open", type: str(c, "type") })}`, typeLabel(str(c, "type"))),
      link(`/console/work-queue?${new URLSearchParams({ status: "open", type: str(c, "type"), category: str(c, "category") })}`, statusLabel(str(c, "category"))),
      counted.format(num(c, "count"))
    ]),
    { numeric: [2], foot: ["All open tasks", "", `${counted.format(byType.reduce((n: number, c) => n + num(c, "count"), 0))}${field(counts, "complete") === false ? "+" : ""}`] }
  )
  const items = list(page, "items")
  const rows = items.map((t) => [
    link(`/console/work-queue/${encodeURIComponent(str(t, "id"))}`, `${typeLabel(str(t, "type"))}: ${str(t, "external_id")}`),
    statusLabel(str(t, "category")),
    due(str(t, "due_at"), now),
    age(str(t, "created_at"), now),
    field(t, "billed_cents") === null ? "—" : dollars(num(t, "billed_cents")),
    statusLabel(optStr(t, "claim_status") ?? "—"),
    statusLabel(str(t, "status")),
    optStr(t, "assignee") ?? "—"
  ])
  const base = new URLSearchParams()
  for (const key of ["status", "type", "category"]) {
    const v = params.get(key)
    if (v !== null && v !== "") base.set(key, v)
  }
  replace(
    main,
    h("h1", {}, "Work queue"),
    h("p", { class: "help" }, "Rejections, denials, payments to review and claims the payer has not answered: made by the service as their causes arrive, closed when the claim moves on."),
    h("div", { class: "split" }, h("div", {}, summary), h("div", {}, filterForm(params))),
    items.length === 0
      ? h("p", { class: "empty" }, "No tasks match these filters.")
      : table("Tasks, oldest due first", ["Task", "Category", "Due", "Age", "Billed", "Claim status", "Status", "Assignee"], rows, { numeric: [3, 4] }),
    pager("/console/work-queue", base, page, { prev: "← Sooner due", next: "Later due →", label: "Pages of tasks" })
  )
}

/** The form that changes a task: its status, assignee and a note. */
const changeForm = (task: unknown) => {
  const id = str(task, "id")
  const status = h(
    "select",
    { id: "task-status", name: "status" },
    (session()?.taskStatuses ?? []).map((s) => h("option", { value: s, selected: s === str(task, "status") }, statusLabel(s)))
  )
  const assignee = h("input", { id: "task-assignee", name: "assignee", type: "text", autocomplete: "off", maxlength: "200", value: optStr(task, "assignee") ?? "" })
  const note = h("input", { id: "task-note", name: "note", type: "text", autocomplete: "off", maxlength: "2000" })
  const out = h("div", {})
  const form = h(
    "form",
    { class: "move", "aria-label": "Change the task" },
    h("label", { for: "task-status" }, "Status"),
    status,
    h("label", { for: "task-assignee" }, "Assignee"),
    assignee,
    h("label", { for: "task-note" }, "Note (optional)"),
    note,
    h("button", { type: "submit" }, "Save task"),
    out
  )
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    const body = {
      status: status.value,
      assignee: assignee.value.trim() === "" ? null : assignee.value.trim(),
      ...(note.value.trim() === "" ? {} : { note: note.value.trim() })
    }
    postJson(`/console/api/tasks/${encodeURIComponent(id)}`, body).then(
      () => redraw("Task saved."),
      (e: unknown) => replace(out, notice("error", ...describeError(e)))
    )
  })
  const done = h("button", { type: "button" }, "Mark done")
  done.addEventListener("click", () => {
    postJson(`/console/api/tasks/${encodeURIComponent(id)}`, { status: "done" }).then(
      () => redraw("Task marked done."),
      (e: unknown) => replace(out, notice("error", ...describeError(e)))
    )
  })
  return h("div", { class: "task-actions" }, str(task, "status") === "open" || str(task, "status") === "in_progress" ? done : null, form)
}

/** One task: what caused it in plain words (each code and its meaning, the file it came in), and what fixes it. */
export const renderTask = async (main: HTMLElement, id: string) => {
  const task = await getJson(`/console/api/tasks/${encodeURIComponent(id)}`)
  const now = Date.now()
  const cause = field(task, "cause")
  const meanings = list(task, "meanings")
  const claimStatus = optStr(task, "claim_status")
  const causes = list(task, "causes").map((c) =>
    h(
      "li",
      {},
      h("p", {}, `${KIND_LABELS[str(c, "kind")] ?? str(c, "kind")} (${dateTime(str(c, "at"))}): ${str(c, "text")}`),
      optStr(c, "file_id") === null ? null : h("p", {}, "From the file ", link(`/console/clearinghouse/files/${encodeURIComponent(str(c, "file_id"))}`, str(c, "file_id")), optStr(c, "check_id") === null ? "" : `, check or EFT ${str(c, "check_id")}`)
    )
  )
  const external = str(task, "external_id")
  replace(
    main,
    h("h1", {}, `${typeLabel(str(task, "type"))}: ${external}`),
    facts([
      ["Status", statusLabel(str(task, "status"))],
      ["Category", statusLabel(str(task, "category"))],
      ["Due", due(str(task, "due_at"), now)],
      ["Age", age(str(task, "created_at"), now)],
      ["Assignee", optStr(task, "assignee") ?? "—"],
      ["Claim", h("span", {}, link(`/console/encounters/${encodeURIComponent(str(task, "encounter_id"))}`, `Encounter ${external}`), ` (${statusLabel(claimStatus ?? "unknown")})`)],
      ["Billed", field(task, "billed_cents") === null ? "—" : dollars(num(task, "billed_cents"))],
      ...(optStr(task, "closed_reason") === null ? [] : [["Closed", str(task, "closed_reason")] as const])
    ]),
    h("h2", {}, "Why"),
    h("p", {}, `${KIND_LABELS[str(cause, "kind")] ?? str(cause, "kind")}.`),
    meanings.length === 0
      ? null
      : table("The codes and what they mean", ["Code", "Meaning"], meanings.map((m) => [h("code", {}, str(m, "code")), optStr(m, "text") ?? "Not in the code table"])),
    h("ol", { class: "causes" }, causes),
    h("h2", {}, "Fix it"),
    canWriteClaims() && claimStatus !== null
      ? moveClaimForm(str(task, "claim_id"), external, claimStatus, strings(task, "allowed_transitions"), (s) => redraw(`Claim of ${external} moved to ${statusLabel(s)}.`))
      : notice("ok", "Moving the claim (to correct and send it again) needs a key with the scope claims:write."),
    canWriteTasks() ? changeForm(task) : notice("ok", "Changing the task needs a key with the scope tasks:write."),
    list(task, "notes").length === 0
      ? null
      : h("section", { "aria-label": "Notes" }, h("h2", {}, "Notes"), h("ul", {}, list(task, "notes").map((n) => h("li", {}, `${dateTime(str(n, "at"))}: ${str(n, "text")}`))))
  )
}
