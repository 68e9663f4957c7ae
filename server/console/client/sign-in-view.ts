import { ApiError, describeError, signIn } from "./api.js"
import { h, notice, replace } from "./dom.js"
import { str } from "./format.js"

const field = (id: string, label: string, attrs: Record<string, string | boolean>) =>
  h("div", { class: "field" }, h("label", { for: id }, label), h("input", { id, name: id, ...attrs }))

/** The sign-in form: email and password (and the workspace when the email has several). */
export const renderSignIn = (main: HTMLElement, reason: string | undefined, done: () => void) => {
  const email = field("email", "Email", { type: "email", autocomplete: "username", required: true, spellcheck: "false" })
  const password = field("password", "Password", { type: "password", autocomplete: "current-password", required: true })
  const workspace = field("workspace", "Workspace", { type: "text", autocomplete: "off", spellcheck: "false", "aria-describedby": "workspace-help" })
  workspace.hidden = true
  workspace.append(h("p", { id: "workspace-help", class: "help" }, "This email signs in to several workspaces: give the workspace's short name."))
  const status = h("div", { id: "sign-in-status" })
  const form = h("form", { class: "sign-in", "aria-labelledby": "sign-in-title" }, email, password, workspace, h("button", { type: "submit" }, "Sign in"), status)
  const value = (box: HTMLElement) => box.querySelector("input")?.value ?? ""
  form.addEventListener("submit", (event) => {
    event.preventDefault()
    replace(status)
    signIn(value(email), value(password), workspace.hidden ? undefined : value(workspace)).then(
      () => {
        const input = password.querySelector("input")
        if (input !== null) input.value = ""
        done()
      },
      (e: unknown) => {
        if (e instanceof ApiError && str(e.problem, "code") === "workspace_required") {
          workspace.hidden = false
          workspace.querySelector("input")?.focus()
        }
        replace(status, notice("error", ...describeError(e)))
      }
    )
  })
  replace(main, h("h1", { id: "sign-in-title", tabindex: "-1" }, "Sign in"), reason === undefined ? null : notice("error", reason), form)
  email.querySelector("input")?.focus()
}
