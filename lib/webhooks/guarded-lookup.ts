import type { LookupFunction } from "node:net"
import { addressRefusal, type Resolve, type ResolvedAddress } from "./targets.js"

/**
 * A `lookup` for `http.request` that refuses a refused address at connect time. Checking the URL
 * when the endpoint was created is not enough: a name may resolve elsewhere later (DNS
 * rebinding), so the address actually connected to is the one judged. Literal IPs never reach a
 * lookup; the caller judges those itself.
 */
export const guardedLookup = (
  resolve: Resolve,
  allowPrivate: boolean,
  onRefused: (reason: string) => void
): LookupFunction => (hostname, options, callback) => {
  const fail = (code: string, message: string) => callback(Object.assign(new Error(message), { code }), "", 0)
  resolve(hostname).then(
    (found) => {
      const wanted: ReadonlyArray<ResolvedAddress> =
        options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found
      const first = wanted[0]
      if (first === undefined) return fail("ENOTFOUND", `${hostname} does not resolve`)
      // Any refused address refuses the name: a connection may fall back to any of them.
      for (const { address } of wanted) {
        const reason = addressRefusal(address, allowPrivate, hostname)
        if (reason !== undefined) {
          onRefused(reason)
          return fail("EREFUSEDTARGET", reason)
        }
      }
      if (options.all === true) callback(null, wanted.map((a) => ({ address: a.address, family: a.family })))
      else callback(null, first.address, first.family)
    },
    () => fail("ENOTFOUND", `${hostname} does not resolve`)
  )
}
