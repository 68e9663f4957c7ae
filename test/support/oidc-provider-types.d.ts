// oidc-provider ships no type declarations: what the tests use of it.
declare module "oidc-provider" {
  import type { Server } from "node:http"
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>)
    listen(port: number): Server
  }
}
