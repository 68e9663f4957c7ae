import { afterAll, describe, expect, test } from "bun:test"
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Either, Layer } from "effect"
import { keyId, newSecretBoxKey, open, seal, secretBoxKey } from "../../lib/webhooks/secret-box.js"
import { defaultKeyFile, KEY_FILE_NAME, loadOrCreateKeyFile, loadStoreKey, parseSecretBoxKey } from "../../lib/webhooks/secret-key.js"
import { newSecret } from "../../lib/webhooks/signature.js"
import { runWith } from "../support/run.js"

const dir = mkdtempSync(join(tmpdir(), "encounterd-webhook-key-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("secret box (AES-256-GCM)", () => {
  const key = newSecretBoxKey()
  const secret = newSecret()

  test("seal then open gives the plaintext back; the sealed form does not contain it", () => {
    const sealed = seal(secret, key, "ep_1")
    expect(sealed).toStartWith(`v1.${keyId(key)}.`)
    expect(sealed).not.toContain(secret.slice(6, 20))
    expect(open(sealed, key, "ep_1")).toEqual(Either.right(secret))
  })

  test("two seals of one secret differ (a fresh IV each time)", () => {
    expect(seal(secret, key)).not.toBe(seal(secret, key))
  })

  test("another key, another context, an altered byte or a malformed value do not open", () => {
    const sealed = seal(secret, key, "ep_1")
    const reason = (r: Either.Either<string, { readonly reason: string }>) => (Either.isLeft(r) ? r.left.reason : "opened")
    expect(reason(open(sealed, newSecretBoxKey(), "ep_1"))).toBe("sealed under another key")
    expect(reason(open(sealed, key, "ep_2"))).toBe("altered, or sealed for another record")
    const last = sealed.at(-2) === "A" ? "B" : "A"
    const altered = sealed.slice(0, -2) + last + sealed.slice(-1)
    expect(reason(open(altered, key, "ep_1"))).toBe("altered, or sealed for another record")
    expect(reason(open("whsec_plain", key))).toBe("not a sealed secret")
    expect(reason(open(`v1.${keyId(key)}.AAAA`, key))).toBe("truncated")
  })

  test("a key must be 32 bytes", () => {
    expect(Either.isLeft(secretBoxKey(new Uint8Array(16)))).toBe(true)
    expect(Either.isRight(secretBoxKey(new Uint8Array(32)))).toBe(true)
  })
})

describe("the key file", () => {
  test("created on first use with mode 0600, then read back unchanged", async () => {
    const path = join(dir, "a", KEY_FILE_NAME)
    const first = await runWith(Layer.empty, loadOrCreateKeyFile(path))
    expect(statSync(path).mode & 0o777).toBe(0o600)
    const again = await runWith(Layer.empty, loadOrCreateKeyFile(path))
    expect(Buffer.from(again).equals(Buffer.from(first))).toBe(true)
    expect(readFileSync(path, "utf8").trim()).toBe(Buffer.from(first).toString("base64"))
  })

  test("for a store: a missing file is made only while the store holds no sealed secret, else refused and not made", async () => {
    const refusedPath = join(dir, "store-a", KEY_FILE_NAME)
    const refused = await runWith(Layer.empty, Effect.either(loadStoreKey(refusedPath, Effect.succeed(true))))
    expect(Either.isLeft(refused) && refused.left.message).toStartWith(`Webhook secret key ${refusedPath}: is missing, and the database holds`)
    expect(existsSync(refusedPath)).toBe(false)
    const madePath = join(dir, "store-b", KEY_FILE_NAME)
    const made = await runWith(Layer.empty, loadStoreKey(madePath, Effect.succeed(false)))
    expect(statSync(madePath).mode & 0o777).toBe(0o600)
    // Once there, the file is read whatever the store holds.
    const read = await runWith(Layer.empty, loadStoreKey(madePath, Effect.succeed(true)))
    expect(Buffer.from(read).equals(Buffer.from(made))).toBe(true)
  })

  test("a key file others may read is refused", async () => {
    const path = join(dir, "loose.key")
    writeFileSync(path, Buffer.from(newSecretBoxKey()).toString("base64"))
    chmodSync(path, 0o644)
    const out = await runWith(Layer.empty, Effect.either(loadOrCreateKeyFile(path)))
    expect(Either.isLeft(out) && out.left.reason).toBe("is readable by group or others; chmod 600 it")
  })

  test("a key file with something else than a key is refused", async () => {
    const path = join(dir, "bad.key")
    writeFileSync(path, "not a key\n", { mode: 0o600 })
    const out = await runWith(Layer.empty, Effect.either(loadOrCreateKeyFile(path)))
    expect(Either.isLeft(out) && out.left.message).toBe(`Webhook secret key ${path}: must hold base64 of 32 bytes`)
  })

  test("contents: standard or URL-safe base64 of 32 bytes", () => {
    const key = newSecretBoxKey()
    expect(Either.isRight(parseSecretBoxKey(` ${Buffer.from(key).toString("base64")}\n`))).toBe(true)
    expect(Either.isRight(parseSecretBoxKey(Buffer.from(key).toString("base64url")))).toBe(true)
    expect(Either.isLeft(parseSecretBoxKey(Buffer.alloc(16).toString("base64")))).toBe(true)
  })

  test("beside a SQLite file; none for PostgreSQL or memory", () => {
    expect(defaultKeyFile("./data/encounterd.sqlite")).toBe(join("data", KEY_FILE_NAME))
    expect(defaultKeyFile("/var/lib/encounterd/db.sqlite")).toBe(`/var/lib/encounterd/${KEY_FILE_NAME}`)
    expect(defaultKeyFile("postgres://postgres@127.0.0.1:5432/postgres")).toBeUndefined()
    expect(defaultKeyFile(":memory:")).toBeUndefined()
  })
})
