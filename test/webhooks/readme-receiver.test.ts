import { afterAll, expect, test } from "bun:test"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { Layer, Schema } from "effect"
import { attemptDelivery } from "../../lib/webhooks/attempt.js"
import { newSecret } from "../../lib/webhooks/signature.js"
import { runWith } from "../support/run.js"

/** The README's receiver examples are code that must work as printed, against our own signer. */
const root = join(import.meta.dir, "..", "..")
const readme = readFileSync(join(root, "README.md"), "utf8")
const example = (name: string): string => {
  const m = new RegExp(`<!-- snippet: ${name} -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(readme)
  if (m?.[1] === undefined) throw new Error(`README has no example ${name}`)
  return m[1]
}
const dir = join(root, ".test-tmp", "webhook-examples")
mkdirSync(dir, { recursive: true })

const run = async (cmd: ReadonlyArray<string>) => {
  const proc = Bun.spawn([...cmd], { cwd: root, stdout: "pipe", stderr: "pipe" })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return { stdout, stderr, code }
}

test("README by-hand verifier accepts our signatures (rotation included) and refuses altered ones", async () => {
  writeFileSync(join(dir, "webhook-verify.ts"), example("webhook-verify"))
  const signer = JSON.stringify(join(root, "lib", "webhooks", "signature.ts"))
  writeFileSync(
    join(dir, "driver.ts"),
    `import { verifyWebhook } from "./webhook-verify.ts"
import { newSecret, signedHeaders } from ${signer}
const [fresh, old, other] = [newSecret(), newSecret(), newSecret()]
const body = JSON.stringify({ id: "ev_1", payload: { note: "é ✓" } })
const now = Math.floor(Date.now() / 1000)
const h = signedHeaders({ id: "ev_1", timestamp: now, body, secrets: [fresh, old] })
const hs = { id: h["webhook-id"] ?? "", timestamp: h["webhook-timestamp"] ?? "", signature: h["webhook-signature"] ?? "" }
console.log(JSON.stringify([
  verifyWebhook(fresh, hs, body),
  verifyWebhook(old, hs, body),
  verifyWebhook(other, hs, body),
  verifyWebhook(fresh, hs, body + " "),
  verifyWebhook(fresh, { ...hs, id: "ev_2" }, body),
  verifyWebhook(fresh, hs, body, now + 301)
]))
`
  )
  const r = await run(["bun", join(dir, "driver.ts")])
  expect(r.stderr).toBe("")
  expect(Schema.decodeUnknownSync(Schema.parseJson(Schema.Array(Schema.Boolean)))(r.stdout.trim())).toEqual([
    true,
    true,
    false,
    false,
    false,
    false
  ])
})

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

let stopReceiver = () => {}
afterAll(() => stopReceiver())

test("README package receiver answers 204 to a signed delivery and 401 to a wrong signature", async () => {
  writeFileSync(join(dir, "webhook-receiver.ts"), example("webhook-receiver"))
  const secret = newSecret()
  const port = await freePort()
  const proc = Bun.spawn(["bun", join(dir, "webhook-receiver.ts")], {
    cwd: root,
    env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: secret },
    stdout: "pipe",
    stderr: "pipe"
  })
  stopReceiver = () => proc.kill()
  const deliver = (secrets: ReadonlyArray<typeof secret>) =>
    runWith(
      Layer.empty,
      attemptDelivery(
        { url: `http://127.0.0.1:${port}/hook`, messageId: "ev_1", body: '{"id":"ev_1"}', secrets, nowMs: Date.now() },
        { version: "test", allowPrivate: true, timeoutMs: 2000 }
      )
    )
  let first = await deliver([secret])
  for (let i = 0; i < 50 && first.error?.startsWith("connection failed") === true; i++) {
    await Bun.sleep(100)
    first = await deliver([secret])
  }
  expect(first).toMatchObject({ ok: true, status: 204 })
  expect((await deliver([newSecret()])).status).toBe(401)
  expect((await deliver([newSecret(), secret])).status).toBe(204)
  proc.kill()
  // Two accepted deliveries of one webhook-id, handled once.
  const out = await new Response(proc.stdout).text()
  expect(out.match(/^event /gm)).toHaveLength(1)
  expect(out).toContain('"ev_1"')
})
