// Runs one autocannon scenario under Node and prints autocannon's result as JSON on stdout.
// Usage: node bench/load.mjs '<config JSON>'   (or the JSON on stdin)
// Config: { url, connections, duration, method?, headers?, body?, uniqueBody?: { template, prefix } }
// With `uniqueBody`, every request sends `template` with external_id = `${prefix}-${counter}`.
// With `sequence` ([{ path, body?, method? }]), the requests take its entries in turn, from the first again after the last.
import autocannon from "autocannon"

const readStdin = async () => {
  let text = ""
  for await (const chunk of process.stdin) text += chunk
  return text
}

const config = JSON.parse(process.argv[2] ?? (await readStdin()))

let counter = 0
const uniqueRequests = (unique) => [
  {
    setupRequest: (req) => ({
      ...req,
      body: JSON.stringify({ ...unique.template, external_id: `${unique.prefix}-${++counter}` })
    })
  }
]

let position = 0
const sequenceRequests = (sequence) => [
  {
    setupRequest: (req) => {
      const next = sequence[position++ % sequence.length]
      return { ...req, path: next.path, ...(next.method !== undefined ? { method: next.method } : {}), ...(next.body !== undefined ? { body: next.body } : {}) }
    }
  }
]

const result = await autocannon({
  url: config.url,
  connections: config.connections,
  duration: config.duration,
  method: config.method ?? "GET",
  headers: config.headers ?? {},
  ...(config.body !== undefined ? { body: config.body } : {}),
  ...(config.uniqueBody !== undefined ? { requests: uniqueRequests(config.uniqueBody) } : {}),
  ...(config.sequence !== undefined ? { requests: sequenceRequests(config.sequence) } : {})
})

process.stdout.write(`${JSON.stringify({ ...result, uniqueBodiesBuilt: counter })}\n`)
