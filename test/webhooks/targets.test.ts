import { describe, expect, test } from "bun:test"
import { Effect, Either, Layer } from "effect"
import { type AddressClass, addressRefusal, checkTargetUrl, classifyAddress, type Resolve } from "../../lib/webhooks/targets.js"
import { runWith } from "../support/run.js"

const table: ReadonlyArray<readonly [string, AddressClass | undefined]> = [
  ["8.8.8.8", "public"],
  ["93.184.216.34", "public"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["10.0.0.1", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["172.32.0.1", "public"],
  ["192.168.1.1", "private"],
  ["169.254.169.254", "link-local"],
  ["100.64.0.1", "cgnat"],
  ["100.127.255.255", "cgnat"],
  ["100.128.0.1", "public"],
  ["0.0.0.0", "unspecified"],
  ["224.0.0.1", "multicast"],
  ["255.255.255.255", "broadcast"],
  ["240.0.0.1", "reserved"],
  ["198.18.0.1", "reserved"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["[::1]", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:10.1.2.3", "private"],
  ["::ffff:8.8.8.8", "public"],
  ["64:ff9b::a9fe:a9fe", "link-local"],
  ["2002:c0a8:0101::1", "private"],
  // NAT64 local-use (64:ff9b:1::/48): a translator inside the network, never public; the IPv4 address it carries decides beyond that.
  ["64:ff9b:1::10.0.0.1", "private"],
  ["64:ff9b:1::127.0.0.1", "loopback"],
  ["64:ff9b:1::8.8.8.8", "private"],
  ["64:ff9b:1:ffff::a9fe:a9fe", "link-local"],
  ["64:ff9b:1::224.0.0.1", "multicast"],
  ["64:ff9b:2::8.8.8.8", "public"],
  // SIIT's IPv4-translated addresses (::ffff:0:0:0/96).
  ["::ffff:0:127.0.0.1", "loopback"],
  ["::ffff:0:10.1.2.3", "private"],
  ["::ffff:0:169.254.169.254", "link-local"],
  ["::ffff:0:8.8.8.8", "reserved"],
  ["::ffff:0:0:0", "unspecified"],
  // Teredo (2001::/32): server in groups 2-3, client inverted in the last 32 bits.
  ["2001:0:4136:e378:8000:63bf:f7f7:f7f7", "reserved"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved"],
  ["2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"],
  ["2001:0:4136:e378::f5ff:fffe", "private"],
  ["2001:0:a00:1::f7f7:f7f7", "private"],
  ["2001::1", "reserved"],
  ["2001:4860:4860::8888", "public"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["febf::1", "link-local"],
  ["fc00::1", "unique-local"],
  ["fd12:3456:789a::1", "unique-local"],
  ["ff02::1", "multicast"],
  ["2001:db8::1", "reserved"],
  ["2606:4700:4700::1111", "public"],
  ["localhost", undefined],
  ["999.1.1.1", undefined],
  ["fe80::zz", undefined]
]

describe("address classes", () => {
  for (const [address, cls] of table) {
    test(`${address} is ${cls ?? "not an IP address"}`, () => {
      expect(classifyAddress(address)).toBe(cls)
    })
  }

  test("allowPrivate lifts loopback, private, link-local, unique-local and CGNAT, never multicast", () => {
    for (const a of ["127.0.0.1", "10.0.0.1", "169.254.1.1", "fd00::1", "100.64.0.1", "::ffff:127.0.0.1"]) {
      expect(addressRefusal(a, false)).toBeDefined()
      expect(addressRefusal(a, true)).toBeUndefined()
    }
    for (const a of ["0.0.0.0", "::", "224.0.0.1", "ff02::1", "255.255.255.255", "64:ff9b:1::224.0.0.1", "::ffff:0:0:0"]) {
      expect(addressRefusal(a, true)).toBeDefined()
    }
    expect(addressRefusal("8.8.8.8", false)).toBeUndefined()
  })

  test("NAT64 local-use, SIIT and Teredo addresses are refused whatever IPv4 address they carry, unless private targets are allowed", () => {
    for (const a of ["64:ff9b:1::10.0.0.1", "64:ff9b:1::8.8.8.8", "::ffff:0:127.0.0.1", "::ffff:0:8.8.8.8", "2001:0:4136:e378:8000:63bf:f7f7:f7f7"]) {
      expect(addressRefusal(a, false)).toContain("--webhook-allow-private")
      expect(addressRefusal(a, true)).toBeUndefined()
    }
  })

  test("the refusal names the flag that allows private targets", () => {
    expect(addressRefusal("64:ff9b:1::10.0.0.1", false)).toBe(
      "64:ff9b:1::10.0.0.1 is a private address (refused unless private targets are allowed: --webhook-allow-private)"
    )
    expect(addressRefusal("224.0.0.1", true)).toBe("224.0.0.1 is a multicast address")
  })
})

describe("checkTargetUrl, at creation", () => {
  const reasonOf = async (url: string, allowPrivate: boolean, resolve?: Resolve) => {
    const out = await runWith(
      Layer.empty,
      Effect.either(checkTargetUrl(url, resolve === undefined ? { allowPrivate } : { allowPrivate, resolve }))
    )
    return Either.isLeft(out) ? out.left.reason : "accepted"
  }
  const publicOnly: Resolve = async () => [{ address: "93.184.216.34", family: 4 }]
  const nowhere: Resolve = async () => {
    throw new Error("ENOTFOUND")
  }

  test("literal IPs are judged directly, IPv6 in brackets too", async () => {
    expect(await reasonOf("http://127.0.0.1:9000/hook", false)).toBe(
      "127.0.0.1 is a loopback address (refused unless private targets are allowed: --webhook-allow-private)"
    )
    expect(await reasonOf("http://[64:ff9b:1::a00:1]/hook", false)).toContain("is a private address")
    expect(await reasonOf("http://[::ffff:0:7f00:1]/hook", false)).toContain("is a loopback address")
    expect(await reasonOf("http://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/hook", false)).toContain("is a reserved address")
    expect(await reasonOf("http://[::ffff:127.0.0.1]/hook", false)).toContain("loopback")
    expect(await reasonOf("http://2130706433/hook", false)).toContain("127.0.0.1 is a loopback address")
    expect(await reasonOf("http://[fd00::5]/hook", false)).toContain("unique-local")
    expect(await reasonOf("http://127.0.0.1:9000/hook", true)).toBe("accepted")
    expect(await reasonOf("https://8.8.8.8/hook", false)).toBe("accepted")
  })

  test("localhost is resolved (by the system) and refused without allowPrivate", async () => {
    expect(await reasonOf("http://localhost:9000/hook", false)).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a loopback address/)
    expect(await reasonOf("http://localhost:9000/hook", true)).toBe("accepted")
  })

  test("a name is refused when any of its addresses is", async () => {
    const split: Resolve = async () => [
      { address: "93.184.216.34", family: 4 },
      { address: "10.0.0.7", family: 4 }
    ]
    expect(await reasonOf("https://hooks.example.com/x", false, split)).toContain("hooks.example.com resolves to 10.0.0.7, a private address")
    expect(await reasonOf("https://hooks.example.com/x", false, publicOnly)).toBe("accepted")
  })

  test("a name that does not resolve, or a bad URL, is refused", async () => {
    expect(await reasonOf("https://nowhere.example/x", false, nowhere)).toBe("the host nowhere.example does not resolve")
    expect(await reasonOf("ftp://example.com/x", true, publicOnly)).toBe("must be an absolute http or https URL")
    expect(await reasonOf("https://u:p@example.com/x", true, publicOnly)).toContain("must not carry credentials")
  })
})
