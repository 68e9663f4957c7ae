import { describe, expect, test } from "bun:test"
import { addressLimitKey, clientAddress, normalAddress, trustedSet } from "../../server/client-address.js"

describe("the client address of a request", () => {
  const trusted = trustedSet(["127.0.0.1", "::1", "10.0.0.2"])

  test("one spelling per address", () => {
    expect(normalAddress("::ffff:127.0.0.1")).toBe("127.0.0.1")
    expect(normalAddress("0:0:0:0:0:0:0:1")).toBe(normalAddress("::1"))
    expect(normalAddress("[2001:db8::1]")).toBe("2001:db8:0:0:0:0:0:1")
    expect(normalAddress("fe80::1%eth0")).toBe("fe80:0:0:0:0:0:0:1")
    expect(normalAddress("proxy.internal")).toBeUndefined()
  })

  test("the peer, unless it is a trusted proxy; X-Forwarded-For from anyone else is ignored", () => {
    expect(clientAddress("192.0.2.7", null, trusted)).toBe("192.0.2.7")
    expect(clientAddress("192.0.2.7", "203.0.113.9", trusted)).toBe("192.0.2.7")
    expect(clientAddress("::ffff:127.0.0.1", "203.0.113.9", trusted)).toBe("203.0.113.9")
    expect(clientAddress(undefined, "203.0.113.9", trusted)).toBeUndefined()
  })

  test("behind trusted proxies: the last address that is not one of them (what the client wrote itself is not believed)", () => {
    expect(clientAddress("127.0.0.1", "198.51.100.1, 203.0.113.9", trusted)).toBe("203.0.113.9")
    expect(clientAddress("127.0.0.1", "198.51.100.1, 203.0.113.9, 10.0.0.2", trusted)).toBe("203.0.113.9")
    expect(clientAddress("::1", "[2001:db8::5]:4711", trusted)).toBe("2001:db8:0:0:0:0:0:5")
    expect(clientAddress("127.0.0.1", "203.0.113.9:4711", trusted)).toBe("203.0.113.9")
    // A hop that is not an address: counted as the proxy itself rather than believed.
    expect(clientAddress("127.0.0.1", "203.0.113.9, unknown", trusted)).toBe("127.0.0.1")
    expect(clientAddress("127.0.0.1", "", trusted)).toBe("127.0.0.1")
  })

  test("what a per-address limit counts by: IPv4 as it is, IPv6 by its /64", () => {
    expect(addressLimitKey("192.0.2.7")).toBe("192.0.2.7")
    expect(addressLimitKey("::ffff:192.0.2.7")).toBe("192.0.2.7")
    expect(addressLimitKey("2001:db8:1:2::1")).toBe(addressLimitKey("2001:db8:1:2:aaaa:bbbb:cccc:dddd"))
    expect(addressLimitKey("2001:db8:1:2::1")).not.toBe(addressLimitKey("2001:db8:1:3::1"))
  })
})
