import { describeError, postJson, session } from "./api.js"
import { h, notice, replace } from "./dom.js"
import { statusLabel } from "./format.js"

let counter = 0

/**
 * The control that moves a claim: only the statuses the transition table allows from its current
 * one (the server says which), and an optional note. A move is asked for first and confirmed in a
 * second step ("Move the claim of … from draft to coded?"), since it is written at once and tells
 * the workspace's webhooks. `done` runs after the move.
 */
export const moveClaimForm = (
  claimId: string,
  label: string,
  from: string,
  allowed: ReadonlyArray<string>,
  done: (status: string) => void,
  options: { readonly compact?: boolean } = {}
) => {
  const n = ++counter
  if (allowed.length === 0) return h("p", { class: "help" }, "This status is final: the claim cannot move.")
  const select = h(
    "select",
    { id: `move-${n}`, name: "status", required: true },
    allowed.map((s) => h("option", { value: s }, statusLabel(s)))
  )
  const limit = session()?.noteMaxLength
  const note = h("input", { id: `note-${n}`, name: "note", type: "text", autocomplete: "off", ...(limit === undefined ? {} : { maxlength: String(limit) }) })
  // In a table row the labels are read out but not shown, and the note is left for the detail view.
  const labelClass = options.compact === true ? "visually-hidden" : undefined
  const status = h("div", {})
  const button = h("button", { type: "submit" }, "Move claim")
  const form = h(
    "form",
    { class: options.compact === true ? "move compact" : "move", "aria-label": `Move the claim of ${label}` },
    h("label", { for: `move-${n}`, class: labelClass }, `New status for ${label}`),
    select,
    options.compact === true ? null : h("label", { for: `note-${n}` }, "Note (optional)"),
    options.compact === true ? null : note,
    button,
    status
  )
  const editing = (on: boolean) => {
    select.disabled = !on
    note.disabled = !on
    button.disabled = !on
  }
  const send = (to: string, confirm: HTMLButtonElement) => {
    confirm.disabled = true
    const body = note.value.trim() === "" ? { status: to } : { status: to, note: note.value.trim() }
    postJson(`/console/api/claims/${encodeURIComponent(claimId)}/status`, body).then(
      () => done(to),
      (e: unknown) => {
        editing(true)
        replace(status, notice("error", ...describeError(e)))
        button.focus()
      }
    )
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    const to = select.value
    editing(false)
    const question = h("p", { id: `confirm-${n}` }, `Move the claim of ${label} from ${statusLabel(from)} to ${statusLabel(to)}?`)
    const confirm = h("button", { type: "button", "aria-describedby": `confirm-${n}` }, "Confirm move")
    const cancel = h("button", { type: "button", class: "secondary" }, "Cancel")
    confirm.addEventListener("click", () => send(to, confirm))
    cancel.addEventListener("click", () => {
      replace(status)
      editing(true)
      button.focus()
    })
    replace(status, h("div", { class: "confirm", role: "group", "aria-label": `Confirm the move of ${label}` }, question, confirm, cancel))
    confirm.focus()
  })
  return form
}
