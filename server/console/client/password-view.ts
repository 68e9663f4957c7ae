import { changePassword, describeError } from "./api.js"
import { h, notice, replace } from "./dom.js"

/** The first sign-in with a one-time password (or a chosen change): the current password and a new one of 12 or more characters. */
export const renderPasswordChange = (main: HTMLElement, done: () => void) => {
  const input = (id: string, label: string, autocomplete: string, help?: string) =>
    h(
      "div",
      { class: "field" },
      h("label", { for: id }, label),
      h("input", { id, name: id, type: "password", autocomplete, required: true, ...(help === undefined ? {} : { "aria-describedby": `${id}-help` }) }),
      help === undefined ? null : h("p", { id: `${id}-help`, class: "help" }, help)
    )
  const current = input("current-password", "Current (one-time) password", "current-password")
  const next = input("new-password", "New password", "new-password", "At least 12 characters; a passphrase of a few words works well.")
  const status = h("div", { id: "password-status" })
  const form = h("form", { class: "sign-in", "aria-labelledby": "password-title" }, current, next, h("button", { type: "submit" }, "Change password"), status)
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    replace(status)
    const get = (box: HTMLElement) => box.querySelector("input")?.value ?? ""
    changePassword(get(current), get(next)).then(done, (e: unknown) => replace(status, notice("error", ...describeError(e))))
  })
  replace(main, h("h1", { id: "password-title", tabindex: "-1" }, "Choose your password"), h("p", {}, "Your password was set for you and works only once: choose your own to go on."), form)
  current.querySelector("input")?.focus()
}
