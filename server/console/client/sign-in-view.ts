import { describeError, signIn } from "./api.js"
import { h, notice, replace } from "./dom.js"

/** The sign-in form: an API key, checked by the server, which then keeps a session for it. */
export const renderSignIn = (main: HTMLElement, reason: string | undefined, done: () => void) => {
  const input = h("input", { id: "api-key", name: "api_key", type: "password", autocomplete: "off", required: true, spellcheck: "false", "aria-describedby": "api-key-help" })
  const status = h("div", { id: "sign-in-status" })
  const form = h(
    "form",
    { class: "sign-in", "aria-labelledby": "sign-in-title" },
    h("label", { for: "api-key" }, "API key"),
    input,
    h("p", { id: "api-key-help", class: "help" }, "The key of your workspace (eik_…). The console acts with its workspace and scopes; the key itself is not kept."),
    h("button", { type: "submit" }, "Sign in"),
    status
  )
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    replace(status)
    signIn(input.value).then(
      () => {
        input.value = ""
        done()
      },
      (e: unknown) => replace(status, notice("error", ...describeError(e)))
    )
  })
  replace(main, h("h1", { id: "sign-in-title", tabindex: "-1" }, "Sign in"), reason === undefined ? null : notice("error", reason), form)
  input.focus()
}
