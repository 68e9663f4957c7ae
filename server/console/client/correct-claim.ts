import { describeError, postJson, session } from "./api.js"
import { h, notice, replace } from "./dom.js"

let counter = 0

/** What each correction makes, as the form offers it. */
const ACTION_LABELS: Readonly<Record<string, string>> = {
  resubmit: "Resubmit (a new original claim)",
  replace: "Replace (frequency 7, names the payer's claim number)",
  void: "Void (frequency 8, cancels the claim at the payer)",
  secondary: "Bill the secondary payer (with the primary's remittance)"
}

/**
 * The control that makes a new claim from the encounter's latest one: only the corrections its
 * status takes (the server says which), and an optional note; asked for, then confirmed, since the
 * new claim becomes the encounter's latest at once. Corrected content goes through the API or the
 * CLI (`--payload`). `done` runs after the correction.
 */
export const correctClaimForm = (claimId: string, label: string, allowed: ReadonlyArray<string>, done: (action: string) => void) => {
  const n = ++counter
  if (allowed.length === 0) return h("p", { class: "help" }, "This claim's status takes no correction.")
  const select = h("select", { id: `correct-${n}`, name: "action", required: true }, allowed.map((a) => h("option", { value: a }, ACTION_LABELS[a] ?? a)))
  const limit = session()?.noteMaxLength
  const note = h("input", { id: `correct-note-${n}`, name: "note", type: "text", autocomplete: "off", ...(limit === undefined ? {} : { maxlength: String(limit) }) })
  const status = h("div", {})
  const button = h("button", { type: "submit" }, "Correct claim")
  const form = h(
    "form",
    { class: "move", "aria-label": `Correct the claim of ${label}` },
    h("label", { for: `correct-${n}` }, "Correction"),
    select,
    h("label", { for: `correct-note-${n}` }, "Note (optional)"),
    note,
    button,
    status
  )
  const editing = (on: boolean) => {
    select.disabled = !on
    note.disabled = !on
    button.disabled = !on
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    const action = select.value
    editing(false)
    const question = h("p", { id: `correct-confirm-${n}` }, `Make a new claim for ${label}: ${ACTION_LABELS[action] ?? action}?`)
    const confirm = h("button", { type: "button", "aria-describedby": `correct-confirm-${n}` }, "Confirm correction")
    const cancel = h("button", { type: "button", class: "secondary" }, "Cancel")
    confirm.addEventListener("click", () => {
      confirm.disabled = true
      const body = note.value.trim() === "" ? { action } : { action, note: note.value.trim() }
      postJson(`/console/api/claims/${encodeURIComponent(claimId)}/corrections`, body).then(
        () => done(action),
        (e: unknown) => {
          editing(true)
          replace(status, notice("error", ...describeError(e)))
          button.focus()
        }
      )
    })
    cancel.addEventListener("click", () => {
      replace(status)
      editing(true)
      button.focus()
    })
    replace(status, h("div", { class: "confirm", role: "group", "aria-label": `Confirm the correction of ${label}` }, question, confirm, cancel))
    confirm.focus()
  })
  return form
}
