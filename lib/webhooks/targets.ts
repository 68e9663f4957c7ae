import { lookup } from "node:dns/promises"
import { isIP } from "node:net"
import { Data, Effect } from "effect"
import { urlProblem } from "../domain/webhook.js"

/**
 * Which addresses a webhook may be sent to. A webhook URL is chosen by an API caller, so without
 * a check it would let any key holder make the server send requests into its own network (SSRF):
 * to itself, to the database, to a cloud metadata service on 169.254.169.254.
 */

export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "unique-local"
  | "cgnat"
  | "reserved"
  | "unspecified"
  | "multicast"
  | "broadcast"

const v4 = (address: string): number | undefined => {
  if (isIP(address) !== 4) return undefined
  return address.split(".").reduce((n, part) => n * 256 + Number(part), 0)
}

/** 8 groups of 16 bits; `::` expanded, a dotted IPv4 tail split into two groups, a zone dropped. */
const v6 = (address: string): ReadonlyArray<number> | undefined => {
  const plain = address.split("%")[0] ?? ""
  if (isIP(plain) !== 6) return undefined
  let text = plain
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted !== null) {
    const n = v4(dotted[1] ?? "") ?? 0
    text = text.slice(0, dotted.index) + `${Math.floor(n / 65536).toString(16)}:${(n % 65536).toString(16)}`
  }
  const [head = "", tail] = text.split("::")
  const parse = (s: string) => (s === "" ? [] : s.split(":").map((g) => parseInt(g, 16)))
  const left = parse(head)
  const right = tail === undefined ? [] : parse(tail)
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right]
}

const inV4 = (n: number, base: string, bits: number): boolean => {
  const b = v4(base) ?? 0
  const size = 2 ** (32 - bits)
  return Math.floor(n / size) === Math.floor(b / size)
}

const classifyV4 = (n: number): AddressClass => {
  if (inV4(n, "0.0.0.0", 8)) return "unspecified"
  if (inV4(n, "127.0.0.0", 8)) return "loopback"
  if (inV4(n, "10.0.0.0", 8) || inV4(n, "172.16.0.0", 12) || inV4(n, "192.168.0.0", 16)) return "private"
  if (inV4(n, "100.64.0.0", 10)) return "cgnat"
  if (inV4(n, "169.254.0.0", 16)) return "link-local"
  if (inV4(n, "224.0.0.0", 4)) return "multicast"
  if (n === 0xffffffff) return "broadcast"
  // Reserved for the future, protocol assignments, documentation and benchmarking networks.
  const reserved: ReadonlyArray<readonly [string, number]> = [
    ["240.0.0.0", 4],
    ["192.0.0.0", 24],
    ["192.0.2.0", 24],
    ["198.51.100.0", 24],
    ["203.0.113.0", 24],
    ["198.18.0.0", 15]
  ]
  return reserved.some(([base, bits]) => inV4(n, base, bits)) ? "reserved" : "public"
}

/** The IPv4 address carried in the low 32 bits. */
const low32 = (g: ReadonlyArray<number>): number => (g[6] ?? 0) * 65536 + (g[7] ?? 0)

/**
 * A range that reaches through a translator or tunnel the operator's network may run: never a
 * public target. The IPv4 address it carries decides when that one is refused too (so that, with
 * private targets allowed, one carrying a multicast or unspecified address stays refused).
 */
const carrying = (inner: AddressClass, otherwise: AddressClass): AddressClass => (inner === "public" ? otherwise : inner)

const classifyV6 = (g: ReadonlyArray<number>): AddressClass => {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g
  const upper64Zero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0
  const upper80Zero = upper64Zero && g4 === 0
  if (upper80Zero && g5 === 0 && g6 === 0 && g7 === 0) return "unspecified"
  if (upper80Zero && g5 === 0 && g6 === 0 && g7 === 1) return "loopback"
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) reach the IPv4 address they carry.
  if (upper80Zero && g5 === 0xffff) return classifyV4(low32(g))
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return classifyV4(low32(g))
  // SIIT's IPv4-translated addresses (::ffff:0:a.b.c.d, RFC 7915) reach a translator, then the IPv4 address.
  if (upper64Zero && g4 === 0xffff && g5 === 0) return carrying(classifyV4(low32(g)), "reserved")
  // NAT64's local-use prefix (64:ff9b:1::/48, RFC 8215) belongs to a translator inside the network;
  // the IPv4 address is taken where a /96 prefix puts it, the last 32 bits.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return carrying(classifyV4(low32(g)), "private")
  // Teredo (2001::/32, RFC 4380) tunnels to a server (groups 2 and 3) and a client whose address is
  // the last 32 bits inverted.
  if (g0 === 0x2001 && g1 === 0) return carrying(classifyV4(~low32(g) >>> 0), carrying(classifyV4(g2 * 65536 + g3), "reserved"))
  // 6to4 (2002:AABB:CCDD::/48) tunnels to the IPv4 address in groups 1 and 2.
  if (g0 === 0x2002) return classifyV4(g1 * 65536 + g2)
  if (upper80Zero && g5 === 0) return "reserved" // deprecated IPv4-compatible ::a.b.c.d
  if ((g0 & 0xfe00) === 0xfc00) return "unique-local"
  if ((g0 & 0xffc0) === 0xfe80) return "link-local"
  if ((g0 & 0xffc0) === 0xfec0) return "private" // deprecated site-local
  if ((g0 & 0xff00) === 0xff00) return "multicast"
  if (g0 === 0x2001 && g1 === 0x0db8) return "reserved" // documentation
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return "reserved" // discard-only
  return "public"
}

/** The class of an IP address (v4, or v6 with or without brackets and zone); undefined when not one. */
export const classifyAddress = (address: string): AddressClass | undefined => {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address
  const n = v4(bare)
  if (n !== undefined) return classifyV4(n)
  const groups = v6(bare)
  return groups === undefined ? undefined : classifyV6(groups)
}

/** The `serve` (and `webhooks create`) flag that lets webhooks target private addresses. */
export const ALLOW_PRIVATE_FLAG = "--webhook-allow-private"

/** No TCP receiver lives at these, on-premises or not. */
const NEVER: ReadonlySet<AddressClass> = new Set(["unspecified", "multicast", "broadcast"])

/** Whether a class is refused. `allowPrivate` (on-premises receivers) lifts all but NEVER. */
export const isRefused = (cls: AddressClass, allowPrivate: boolean): boolean =>
  cls !== "public" && (NEVER.has(cls) || !allowPrivate)

/**
 * Why `address` may not be a target, or undefined when it may: `127.0.0.1 is a loopback address …`,
 * or with `host`, `localhost resolves to 127.0.0.1, a loopback address …`.
 */
export const addressRefusal = (address: string, allowPrivate: boolean, host?: string): string | undefined => {
  const cls = classifyAddress(address)
  if (cls === undefined) return `${address} is not an IP address`
  if (!isRefused(cls, allowPrivate)) return undefined
  const what = `${/^[aeiu]/.test(cls) ? "an" : "a"} ${cls} address${NEVER.has(cls) ? "" : ` (refused unless private targets are allowed: ${ALLOW_PRIVATE_FLAG})`}`
  return host === undefined ? `${address} is ${what}` : `${host} resolves to ${address}, ${what}`
}

export interface ResolvedAddress {
  readonly address: string
  readonly family: number
}

/** Host name to addresses; tests pass their own. */
export type Resolve = (hostname: string) => Promise<ReadonlyArray<ResolvedAddress>>

/** The system resolver (`/etc/hosts`, then DNS), every address, as connections would see them. */
export const systemResolve: Resolve = (hostname) => lookup(hostname, { all: true })

/** A target was refused; `reason` is meant for the caller, at the path `url`. */
export class TargetRefused extends Data.TaggedError("TargetRefused")<{ readonly reason: string }> {
  override get message() {
    return `The webhook URL is refused: ${this.reason}`
  }
}

/** The URL's host without IPv6 brackets. */
export const hostOf = (url: URL): string =>
  url.hostname.startsWith("[") && url.hostname.endsWith("]") ? url.hostname.slice(1, -1) : url.hostname

export interface TargetOptions {
  readonly allowPrivate: boolean
  readonly resolve?: Resolve
}

/**
 * The creation-time check: the URL's shape, then its host. A literal IP is judged directly; a name
 * is resolved and refused when any of its addresses is (delivery checks the address again, since
 * DNS may answer differently later).
 */
export const checkTargetUrl = (url: string, options: TargetOptions): Effect.Effect<void, TargetRefused> =>
  Effect.gen(function* () {
    const problem = urlProblem(url)
    if (problem !== undefined) return yield* new TargetRefused({ reason: problem })
    const host = hostOf(new URL(url))
    const direct = classifyAddress(host) !== undefined
    const addresses = direct
      ? [host]
      : yield* Effect.tryPromise(() => (options.resolve ?? systemResolve)(host)).pipe(
          Effect.map((found) => found.map((a) => a.address)),
          Effect.catchAll(() => Effect.succeed([]))
        )
    if (addresses.length === 0) return yield* new TargetRefused({ reason: `the host ${host} does not resolve` })
    for (const address of addresses) {
      const reason = addressRefusal(address, options.allowPrivate, direct ? undefined : host)
      if (reason !== undefined) return yield* new TargetRefused({ reason })
    }
  })
