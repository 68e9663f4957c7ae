import { describe, expect, test } from "bun:test"
import { ApiKeyId } from "../../lib/domain/ids.js"
import { IDLE_MS, makeSessionStore } from "../../server/console/sessions.js"
import { sameSecret as sameToken } from "../../server/same-secret.js"

const key = { hash: "h".repeat(64), id: ApiKeyId.make("01a2079a-a420-7000-a0df-2fce210a5dab") }

const storeAt = (start: number, maxSessions = 100) => {
  let now = start
  const store = makeSessionStore({ maxSessions, idleMs: IDLE_MS, now: () => now })
  return { store, advance: (ms: number) => (now += ms) }
}

describe("console session store", () => {
  test("a session idle for more than 12 hours is gone; use restarts its idle time", () => {
    const { store, advance } = storeAt(1_000_000)
    const a = store.create(key)
    const b = store.create(key)
    advance(IDLE_MS - 1000)
    expect(store.find(a.token)?.keyId).toBe(key.id)
    advance(2000)
    expect(store.find(a.token)).toBeDefined()
    expect(store.find(b.token)).toBeUndefined()
    advance(IDLE_MS + 1)
    expect(store.find(a.token)).toBeUndefined()
  })

  test("tokens and CSRF tokens are random and distinct; the session keeps neither the key nor the token", () => {
    const { store } = storeAt(0)
    const a = store.create(key)
    const b = store.create(key)
    expect(a.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(new Set([a.token, b.token, a.session.csrf, b.session.csrf]).size).toBe(4)
    expect(Object.values(a.session)).not.toContain(a.token)
    expect(store.find(`${a.token.slice(0, -1)}x`)).toBeUndefined()
  })

  test("the store is bounded: at capacity the least recently used session is dropped", () => {
    const { store, advance } = storeAt(0, 3)
    const a = store.create(key)
    advance(1)
    const b = store.create(key)
    advance(1)
    const c = store.create(key)
    advance(1)
    store.find(a.token)
    const d = store.create(key)
    expect(store.size()).toBe(3)
    expect([a, b, c, d].map((s) => store.find(s.token) !== undefined)).toEqual([true, false, true, true])
  })

  test("sign-out removes exactly that session", () => {
    const { store } = storeAt(0)
    const a = store.create(key)
    const b = store.create(key)
    store.remove(a.token)
    expect([store.find(a.token), store.find(b.token)?.keyId]).toEqual([undefined, key.id])
  })

  test("CSRF tokens compare equal only when identical, whatever their lengths", () => {
    expect(sameToken("abc", "abc")).toBe(true)
    expect(sameToken("abc", "abd")).toBe(false)
    expect(sameToken("abc", "abcd")).toBe(false)
    expect(sameToken("", "x")).toBe(false)
  })
})
