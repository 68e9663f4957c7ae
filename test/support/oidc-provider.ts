import { createServer, type Server } from "node:net"
import type { Server as HttpServer } from "node:http"
import Provider from "oidc-provider"

/** A port free at the moment of asking (the provider's issuer URL must be known before it starts). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe: Server = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

export interface TestAccount {
  readonly email: string
  readonly emailVerified?: boolean
}

export interface TestClient {
  readonly clientId: string
  readonly clientSecret: string
  readonly redirectUris: ReadonlyArray<string>
}

export interface RunningProvider {
  readonly issuer: string
  readonly close: () => Promise<void>
}

/**
 * A real OpenID provider (oidc-provider) on loopback: code flow with PKCE required, the `email`
 * scope, and its development login and consent pages, which `authorizeAt` fills in over HTTP.
 * Accounts are named by their login, which is what the login page is given.
 */
export const startProvider = async (
  port: number,
  clients: ReadonlyArray<TestClient>,
  accounts: Readonly<Record<string, TestAccount>>,
  options: { readonly idTokenTtlSeconds?: number } = {}
): Promise<RunningProvider> => {
  const issuer = `http://127.0.0.1:${port}`
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: [...c.redirectUris],
      grant_types: ["authorization_code"],
      response_types: ["code"]
    })),
    pkce: { required: () => true },
    conformIdTokenClaims: false,
    claims: { email: ["email", "email_verified"] },
    features: { devInteractions: { enabled: true } },
    ttl: { IdToken: options.idTokenTtlSeconds ?? 3600 },
    findAccount: (_ctx: unknown, id: string) => {
      const account = accounts[id]
      if (account === undefined) return undefined
      return { accountId: id, claims: () => ({ sub: id, email: account.email, email_verified: account.emailVerified ?? true }) }
    }
  })
  const server: HttpServer = provider.listen(port)
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once("listening", () => resolve())))
  return { issuer, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

/**
 * A browser at the provider: follows redirects from `location` with the provider's cookies, logs in
 * as `login` and consents, until the provider sends it to a URL starting with `returnTo`; that URL.
 */
export const authorizeAt = async (location: string, login: string, returnTo: string): Promise<URL> => {
  const jar = new Map<string, string>()
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ")
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";")
      const eq = pair.indexOf("=")
      if (eq > 0) jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim())
    }
  }
  let url = new URL(location)
  for (let step = 0; step < 12; step++) {
    if (url.href.startsWith(returnTo)) return url
    const res = await fetch(url, { redirect: "manual", headers: { cookie: cookie() } })
    keep(res)
    const next = res.headers.get("location")
    if (next !== null) {
      url = new URL(next, url)
      continue
    }
    const page = await res.text()
    if (res.status !== 200 || !url.pathname.startsWith("/interaction/")) throw new Error(`provider answered ${res.status} at ${url.pathname}`)
    const form: Record<string, string> = page.includes('name="login"') ? { prompt: "login", login, password: "any" } : { prompt: "consent" }
    const posted = await fetch(url, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: cookie(), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString()
    })
    keep(posted)
    const after = posted.headers.get("location")
    if (after === null) throw new Error(`provider answered ${posted.status} to the ${form.prompt} form`)
    url = new URL(after, url)
  }
  throw new Error("the provider never sent the browser back")
}
