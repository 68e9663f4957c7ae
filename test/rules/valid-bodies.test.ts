import { describe, expect, test } from "bun:test"
import { makeValidBodies } from "../../lib/rules/valid-bodies.js"

const bytes = (s: string) => new TextEncoder().encode(s)

describe("valid bodies", () => {
  test("remembers a body's external id by the digest of its exact bytes", () => {
    const bodies = makeValidBodies()
    const a = bodies.digest(bytes('{"external_id":"a"}'))
    bodies.remember(a, "a")
    expect(bodies.externalId(bodies.digest(bytes('{"external_id":"a"}')))).toBe("a")
    // One byte more (a space) is another body: it takes the full path.
    expect(bodies.externalId(bodies.digest(bytes('{"external_id":"a"} ')))).toBeUndefined()
  })

  test("forgets the least recently remembered body beyond its capacity", () => {
    const bodies = makeValidBodies(2)
    const [a, b, c] = ["a", "b", "c"].map((s) => bodies.digest(bytes(s)))
    bodies.remember(a!, "a")
    bodies.remember(b!, "b")
    bodies.remember(a!, "a")
    bodies.remember(c!, "c")
    expect(bodies.externalId(a!)).toBe("a")
    expect(bodies.externalId(b!)).toBeUndefined()
    expect(bodies.externalId(c!)).toBe("c")
  })
})
