/**
 * The webhook bench's receiver, in a process of its own so that answering deliveries never slows
 * the load generator: answers 204 to every POST, `GET /count` answers how many it received.
 * Prints its port on stdout once listening.
 */
let received = 0
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: async (request) => {
    if (request.method === "GET") return new Response(String(received))
    await request.arrayBuffer()
    received++
    return new Response(null, { status: 204 })
  }
})
console.log(server.port)
process.on("SIGTERM", () => {
  void server.stop(true)
  process.exit(0)
})
