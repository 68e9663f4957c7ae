/**
 * Webhook outbox cost: do creates stay within 10 % of their throughput without webhooks when the
 * workspace has one enabled endpoint?
 *
 *   bun bench/webhooks.ts [--duration 5] [--rounds 3] [--connections 32] [--binary]
 *
 * Two servers on fresh SQLite files, started the same way: `plain` (no endpoint) and `one
 * endpoint` (an enabled endpoint to a receiver that answers 204 at once, `webhook-receiver.ts`, in
 * a process of its own; every create then also writes a delivery and the worker delivers it). Each
 * round loads one, then the other, for `duration` seconds with `connections` connections of
 * unique creates: from wrk when it is on PATH (as `run.ts` does), else from concurrent fetch loops
 * in this process. The report shows each server's best round, the ratio, and each server's CPU
 * time per create (lowest round; the hooked server's includes delivering). Appended to
 * bench/results/webhooks.md.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { validPayload } from "../test/support/payloads.js"
import { cpuMicros } from "./scenario-data.js"
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
const wrk = Bun.which("wrk")
const work = scratch("encounterd-webhooks-bench-")

const receiver = Bun.spawn([process.execPath, join(import.meta.dir, "webhook-receiver.ts")], { stdout: "pipe", stderr: "inherit" })
/** The receiver's port: the first line it prints. */
const receiverPort = await (async () => {
  const reader = receiver.stdout.getReader()
  let text = ""
  while (!text.includes("\n")) {
    const chunk = await reader.read()
    if (chunk.done) throw new Error("the receiver exited before listening")
    text += new TextDecoder().decode(chunk.value)
  }
  reader.releaseLock()
  return Number(text.split("\n")[0])
})()
const received = async (): Promise<number> => Number(await (await fetch(`http://127.0.0.1:${receiverPort}/count`)).text())

const start = (name: string) =>
  work.serve(
    encounterdCommand(flags.binary, ["serve", "--port", "0", "--db", join(work.dir, `${name}.sqlite`), "--rate-limit", "0", "--webhook-allow-private"]),
    `${name}.log`,
    true
  )

/** wrk's script: POSTs of the valid payload, each with a new external_id (per thread and counter). */
const wrkScript = (server: Running, label: string): string => {
  const [head, tail] = JSON.stringify(validPayload("EXTERNAL-ID-MARK")).split("EXTERNAL-ID-MARK")
  const path = join(work.dir, `${label}.lua`)
  writeFileSync(
    path,
    [
      `local head = ${JSON.stringify(head)}`,
      `local tail = ${JSON.stringify(tail)}`,
      "local threads = 0",
      'function setup(thread) threads = threads + 1; thread:set("tid", threads) end',
      `local tag = ${JSON.stringify(label)}`,
      "local counter = 0",
      `function init(args) tag = ${JSON.stringify(label)} .. "-t" .. tostring(tid) .. "-" end`,
      'wrk.method = "POST"',
      'wrk.path = "/api/encounters"',
      `wrk.headers["authorization"] = "Bearer ${server.key ?? ""}"`,
      'wrk.headers["content-type"] = "application/json"',
      "function request() counter = counter + 1; return wrk.format(nil, nil, nil, head .. tag .. counter .. tail) end",
      "function done(summary, latency, requests)",
      '  io.write(string.format("RESULT %d %d %d\\n", summary.requests, summary.errors.status, summary.duration))',
      "end"
    ].join("\n")
  )
  return path
}

interface Run {
  readonly perSecond: number
  readonly cpuPerCreate: number
}

/** Creates answered per second over `duration` seconds, and the server's CPU µs per create. */
const load = async (server: Running, label: string): Promise<Run> => {
  const cpuBefore = cpuMicros(server.pid)
  let ok = 0
  let seconds = duration
  if (wrk !== null) {
    const run = Bun.spawnSync([wrk, "-t2", `-c${connections}`, `-d${duration}s`, "-s", wrkScript(server, label), server.url], { stdout: "pipe" })
    const m = /RESULT (\d+) (\d+) (\d+)/.exec(run.stdout.toString())
    if (m === null) throw new Error(`wrk printed no result: ${run.stdout.toString()}`)
    ok = Number(m[1]) - Number(m[2])
    seconds = Number(m[3]) / 1e6
  } else {
    const until = performance.now() + duration * 1000
    let n = 0
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < until) {
          const res = await fetch(`${server.url}/api/encounters`, {
            method: "POST",
            headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" },
            body: JSON.stringify(validPayload(`${label}-${n++}`))
          })
          await res.arrayBuffer()
          if (res.status === 202) ok++
        }
      })
    )
  }
  // Deliveries of the run still under way are part of its cost: let them finish before reading CPU.
  await Bun.sleep(1000)
  return { perSecond: ok / seconds, cpuPerCreate: (cpuMicros(server.pid) - cpuBefore) / Math.max(1, ok) }
}

await work.run(async () => {
  const plain = await start("plain")
  const hooked = await start("hooked")
  const endpoint = await fetch(`${hooked.url}/api/webhooks/endpoints`, {
    method: "POST",
    headers: { authorization: `Bearer ${hooked.key}`, "content-type": "application/json" },
    body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/hook` })
  })
  if (endpoint.status !== 201) throw new Error(`endpoint: ${endpoint.status} ${await endpoint.text()}`)
  const best = { plain: { perSecond: 0, cpuPerCreate: Infinity }, hooked: { perSecond: 0, cpuPerCreate: Infinity } }
  const keep = (b: { perSecond: number; cpuPerCreate: number }, r: Run) => {
    b.perSecond = Math.max(b.perSecond, r.perSecond)
    b.cpuPerCreate = Math.min(b.cpuPerCreate, r.cpuPerCreate)
  }
  for (let round = 0; round < rounds; round++) {
    keep(best.plain, await load(plain, `plain-${round}`))
    keep(best.hooked, await load(hooked, `hooked-${round}`))
    console.error(`round ${round + 1}: plain ${fmt(best.plain.perSecond)}/s, one endpoint ${fmt(best.hooked.perSecond)}/s (best so far)`)
  }
  const delivered = await received()
  await work.stop(plain.proc, "plain server")
  await work.stop(hooked.proc, "hooked server")
  receiver.kill("SIGTERM")
  const ratio = best.hooked.perSecond / best.plain.perSecond
  return [
    `## Webhook outbox cost, ${new Date().toISOString()}`,
    "",
    machineLine(),
    `${flags.binary ? "dist/encounterd" : "bun bin/main.ts"} serve on SQLite (synchronous FULL), ${connections} connections (${wrk !== null ? "wrk" : "fetch loops"}), ${duration} s per run, best of ${rounds} rounds; the receiver in its own process`,
    "",
    "| server | creates/s | server CPU µs per create |",
    "|---|---:|---:|",
    `| no endpoint | ${fmt(best.plain.perSecond)} | ${fmt(best.plain.cpuPerCreate, 0)} |`,
    `| one enabled endpoint (delivered at once to a local receiver) | ${fmt(best.hooked.perSecond)} | ${fmt(best.hooked.cpuPerCreate, 0)} |`,
    "",
    `Ratio ${fmt(ratio * 100)} % (target: at least ${TARGET * 100} %): ${ratio >= TARGET ? "met" : "NOT met"}. Deliveries received: ${delivered}.`,
    ""
  ].join("\n")
}, "webhooks.md")
