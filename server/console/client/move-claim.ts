import { describeError, postJson, session } from "./api.js"
import { h, notice, replace } from "./dom.js"
import { statusLabel } from "./format.js"

let counter = 0

/**
 * The control that moves a claim: only the statuses the transition table allows from its current
 * one (the server says which), and an optional note. `done` runs after the move.
 */
export const moveClaimForm = (
  claimId: string,
  label: string,
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
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    button.disabled = true
    const body = note.value.trim() === "" ? { status: select.value } : { status: select.value, note: note.value.trim() }
    postJson(`/console/api/claims/${encodeURIComponent(claimId)}/status`, body).then(
      () => done(select.value),
      (e: unknown) => {
        button.disabled = false
        replace(status, notice("error", ...describeError(e)))
      }
    )
  })
  return form
}
