import { isIP } from "node:net"

/** An IPv6 address as 8 groups of 16 bits (`::` expanded, a dotted IPv4 tail in two groups); undefined when not one. */
const groupsOf = (address: string): ReadonlyArray<number> | undefined => {
  if (isIP(address) !== 6) return undefined
  let text = address
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = "", tail] = text.split("::")
  const parse = (s: string) => (s === "" ? [] : s.split(":").map((g) => parseInt(g, 16)))
  const left = parse(head)
  const right = tail === undefined ? [] : parse(tail)
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right]
}

/**
 * One spelling per address: IPv4 as it is (also when IPv4-mapped, `::ffff:a.b.c.d`), IPv6 with
 * its eight groups written out; undefined when the text is not an address.
 */
export const normalAddress = (address: string): string | undefined => {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address.split("%")[0] ?? ""
  if (isIP(bare) === 4) return bare
  const g = groupsOf(bare)
  if (g === undefined) return undefined
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return [g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff].join(".")
  return g.map((x) => x.toString(16)).join(":")
}

/**
 * What a per-address limit counts by: an IPv4 address, or an IPv6 address's /64 (one subscriber
 * or host usually holds a whole /64, so counting single addresses would let it pass the limit).
 */
export const addressLimitKey = (address: string): string => {
  const normal = normalAddress(address)
  if (normal === undefined) return address
  return normal.includes(":") ? `${normal.split(":").slice(0, 4).join(":")}::/64` : normal
}

/** `1.2.3.4`, `1.2.3.4:5678`, `[::1]:5678` or `::1` → the address alone. */
const withoutPort = (hop: string): string => {
  if (hop.startsWith("[")) return hop.slice(1, hop.indexOf("]"))
  return /^\d+\.\d+\.\d+\.\d+:\d+$/.test(hop) ? hop.slice(0, hop.lastIndexOf(":")) : hop
}

/**
 * The client of a request: the TCP peer, unless the peer is a trusted reverse proxy; then the
 * last address of `X-Forwarded-For` that is not a trusted proxy (each proxy appends the address it
 * was reached from; earlier entries are the client's own say and are not believed).
 */
export const clientAddress = (peer: string | undefined, forwardedFor: string | null, trusted: ReadonlySet<string>): string | undefined => {
  const from = peer === undefined ? undefined : normalAddress(peer)
  if (from === undefined || forwardedFor === null || !trusted.has(from)) return from ?? peer
  const hops = forwardedFor.split(",").map((h) => h.trim()).filter((h) => h !== "")
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = normalAddress(withoutPort(hops[i]!))
    // A hop that is not an address was not written by a proxy we trust: count by the proxy then.
    if (hop === undefined) return from
    if (!trusted.has(hop)) return hop
  }
  return from
}

/** The trusted proxies as `clientAddress` compares them; undefined entries are not addresses. */
export const trustedSet = (addresses: ReadonlyArray<string>): ReadonlySet<string> =>
  new Set(addresses.flatMap((a) => {
    const n = normalAddress(a.trim())
    return n === undefined ? [] : [n]
  }))
