import { ApiError, describeError, getJson, signIn } from "./api.js"
import { h, notice, replace } from "./dom.js"
import { str } from "./format.js"

const field = (id: string, label: string, attrs: Record<string, string | boolean>) =>
  h("div", { class: "field" }, h("label", { for: id }, label), h("input", { id, name: id, ...attrs }))

/** What the sign-in page says when single sign-on sent the browser back with `?sign_in_error=CODE`. */
const ssoErrors: Record<string, string> = {
  sign_in_expired: "The single sign-on took too long, or was started in another browser. Try again.",
  provider_refused: "Your identity provider did not sign you in.",
  token_invalid: "Your identity provider's answer could not be verified. Try again, or ask your administrator.",
  email_unverified: "Your identity provider has not confirmed your email address.",
  unknown_user: "No active console user has your email address. Ask an administrator to add you.",
  workspace_required: "Your email signs in to several workspaces: give the workspace's short name and continue.",
  provider_unavailable: "Your identity provider cannot be reached. Try again later.",
  too_many_sign_ins: "Too many sign-ins from here. Wait a minute and try again.",
  sessions_full: "The console has too many sessions open. Try again later.",
  sso_off: "Single sign-on is not set up on this server."
}

/** The code single sign-on came back with, once: the address loses it (a reload does not show it again). */
const takeSsoError = (): string | undefined => {
  const url = new URL(window.location.href)
  const code = url.searchParams.get("sign_in_error")
  if (code === null) return undefined
  url.searchParams.delete("sign_in_error")
  window.history.replaceState(null, "", url.pathname + url.search + url.hash)
  return ssoErrors[code] ?? "Single sign-on failed. Try again."
}

/** Single sign-on, when the server has an identity provider: a link, and a workspace form when the email needs one. */
const singleSignOn = (section: HTMLElement, askWorkspace: boolean) => {
  getJson("/console/api/sign-in-options").then(
    (options) => {
      if (typeof options !== "object" || options === null || !("oidc" in options) || options.oidc !== true) return
      if (askWorkspace) {
        const form = h(
          "form",
          { class: "sign-in", "aria-label": "Single sign-on to a workspace" },
          field("sso-workspace", "Workspace", { type: "text", autocomplete: "off", spellcheck: "false", required: true }),
          h("button", { type: "submit" }, "Continue with single sign-on")
        )
        const input = form.querySelector("input")
        // A navigation, not a form submission: the page's `form-action 'self'` would stop the provider's redirect.
        form.addEventListener("submit", (event) => {
          event.preventDefault()
          window.location.assign(`/console/oidc/login?workspace=${encodeURIComponent((input?.value ?? "").trim().toLowerCase())}`)
        })
        replace(section, form)
        input?.focus()
        return
      }
      replace(section, h("p", {}, h("a", { href: "/console/oidc/login", class: "sso" }, "Sign in with single sign-on")))
    },
    () => undefined
  )
}

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
  const ssoError = takeSsoError()
  const sso = h("div", { id: "sign-in-sso" })
  const shown = ssoError ?? reason
  replace(main, h("h1", { id: "sign-in-title", tabindex: "-1" }, "Sign in"), shown === undefined ? null : notice("error", shown), form, sso)
  singleSignOn(sso, ssoError === ssoErrors.workspace_required)
  if (ssoError !== ssoErrors.workspace_required) email.querySelector("input")?.focus()
}
