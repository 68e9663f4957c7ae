import { readFileSync } from "node:fs"
import type { OidcConfig } from "../server/config.js"
import { isLoopbackHost } from "../server/console/oidc.js"
import { type CommandSpec, type Parsed, str, UsageError } from "./args.js"

/** Console sign-in through an OpenID Connect provider: all three flags, or none. */
export const oidcFlagSpecs = {
  "oidc-issuer": {
    type: "string",
    env: "ENCOUNTERD_OIDC_ISSUER",
    help: "OpenID Connect provider's issuer URL (https; http only on loopback): the console offers single sign-on (needs --public-url)"
  },
  "oidc-client-id": { type: "string", env: "ENCOUNTERD_OIDC_CLIENT_ID", help: "This server's client id at the OpenID Connect provider" },
  "oidc-client-secret-file": {
    type: "string",
    env: "ENCOUNTERD_OIDC_CLIENT_SECRET_FILE",
    help: "File holding the client secret at the OpenID Connect provider"
  }
} satisfies CommandSpec["options"]

export const oidcSettings = (p: Parsed): OidcConfig | undefined => {
  const issuer = str(p, "oidc-issuer")
  const clientId = str(p, "oidc-client-id")
  const secretFile = str(p, "oidc-client-secret-file")
  if (issuer === undefined) {
    if (clientId !== undefined || secretFile !== undefined) throw new UsageError("--oidc-client-id and --oidc-client-secret-file need --oidc-issuer")
    return undefined
  }
  let url: URL
  try {
    url = new URL(issuer)
  } catch {
    throw new UsageError("--oidc-issuer must be a URL")
  }
  if (!(url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname)))) {
    throw new UsageError("--oidc-issuer must be an https URL (http only on a loopback address)")
  }
  if (clientId === undefined || clientId.trim() === "") throw new UsageError("--oidc-issuer needs --oidc-client-id")
  if (secretFile === undefined) throw new UsageError("--oidc-issuer needs --oidc-client-secret-file")
  let secret: string
  try {
    secret = readFileSync(secretFile, "utf8").trim()
  } catch {
    throw new UsageError(`--oidc-client-secret-file: cannot read ${secretFile}`)
  }
  if (secret === "") throw new UsageError("--oidc-client-secret-file is empty")
  return { issuer, clientId: clientId.trim(), clientSecret: secret }
}
