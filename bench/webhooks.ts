/**
 * Webhook outbox cost: do creates stay within 10 % of their throughput without webhooks when the
 * workspace has one enabled endpoint?
 *
 *   bun bench/webhooks.ts [--duration 5] [--rounds 3] [--connections 32] [--binary]
 *
 * Two servers on fresh SQLite files, started the same way: `plain` (no endpoint) and `one
 * endpoint` (an enabled endpoint to a receiver in this process that answers 204 at once; every
 * create then also writes a delivery and the worker delivers it). Each round loads one, then the
 * other, with `connections` concurrent create loops for `duration` seconds; the report shows each
 * server's best round and the ratio. Appended to bench/results/webhooks.md.
 */
import { join } from "node:path"
import { parseArgs } from "node:util"
import { validPayload } from "../test/support/payloads.js"
import { encounterdCommand, ensureBinary, fmt, machineLine, type Running, scratch } from "./support.js"

const { values: flags } = parseArgs({
  options: {
    duration: { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "32" },
    binary: { type: "boolean", default: false }
  }
})
const duration = Number(flags.duration)
const rounds = Number(flags.rounds)
const connections = Number(flags.connections)
if (!(duration > 0) || !Number.isInteger(rounds) || rounds < 1 || !(connections > 0)) throw new Error("bad flags")
if (flags.binary) ensureBinary()

const TARGET = 0.9
const work = scratch("encounterd-webhooks-bench-")
let delivered = 0
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: async (request) => {
    await request.arrayBuffer()
    delivered++
    return new Response(null, { status: 204 })
  }
})

const start = (name: string) =>
  work.serve(
    encounterdCommand(flags.binary, ["serve", "--port", "0", "--db", join(work.dir, `${name}.sqlite`), "--rate-limit", "0", "--webhook-allow-private"]),
    `${name}.log`,
    true
  )

/** Creates answered 202 per second over `duration` seconds of `connections` loops. */
const load = async (server: Running, label: string, round: number): Promise<number> => {
  const until = performance.now() + duration * 1000
  let ok = 0
  let n = 0
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const res = await fetch(`${server.url}/api/encounters`, {
          method: "POST",
          headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" },
          body: JSON.stringify(validPayload(`${label}-${round}-${n++}`))
        })
        await res.arrayBuffer()
        if (res.status === 202) ok++
      }
    })
  )
  return ok / duration
}

await work.run(async () => {
  const plain = await start("plain")
  const hooked = await start("hooked")
  const endpoint = await fetch(`${hooked.url}/api/webhooks/endpoints`, {
    method: "POST",
    headers: { authorization: `Bearer ${hooked.key}`, "content-type": "application/json" },
    body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/hook` })
  })
  if (endpoint.status !== 201) throw new Error(`endpoint: ${endpoint.status} ${await endpoint.text()}`)
  const best = { plain: 0, hooked: 0 }
  for (let round = 0; round < rounds; round++) {
    best.plain = Math.max(best.plain, await load(plain, "plain", round))
    best.hooked = Math.max(best.hooked, await load(hooked, "hooked", round))
    console.error(`round ${round + 1}: plain ${fmt(best.plain)}/s, one endpoint ${fmt(best.hooked)}/s (best so far)`)
  }
  await work.stop(plain.proc, "plain server")
  await work.stop(hooked.proc, "hooked server")
  void receiver.stop(true)
  const ratio = best.hooked / best.plain
  return [
    `## Webhook outbox cost, ${new Date().toISOString()}`,
    "",
    machineLine(),
    `${flags.binary ? "dist/encounterd" : "bun bin/main.ts"} serve on SQLite (synchronous FULL), ${connections} connections, ${duration} s per run, best of ${rounds} rounds`,
    "",
    "| server | creates/s |",
    "|---|---|",
    `| no endpoint | ${fmt(best.plain)} |`,
    `| one enabled endpoint (delivered at once to a local receiver) | ${fmt(best.hooked)} |`,
    "",
    `Ratio ${fmt(ratio * 100)} % (target: at least ${TARGET * 100} %): ${ratio >= TARGET ? "met" : "NOT met"}. Deliveries received: ${delivered}.`,
    ""
  ].join("\n")
}, "webhooks.md")
