import { expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { readmeExample, readmeExamples, readmeOutput } from "./support/readme.js"

/**
 * The README's embedding examples are the files under examples/, shown verbatim, and print what
 * the README says. Here the Effect one runs under Bun from the sources; test/node/pack-install.test.ts
 * runs both under Node from an installed tarball.
 */
const root = join(import.meta.dir, "..")

test("the README shows each file of examples/ verbatim, with its output", () => {
  const files = readmeExamples().filter((f) => f.startsWith("examples/"))
  expect(files.sort()).toEqual(["examples/effect.mjs", "examples/promise-node.mjs"])
  // The one other example, the curl walk-through, runs in test/readme-walkthrough.test.ts.
  expect(readmeExamples().filter((f) => !f.startsWith("examples/"))).toEqual(["walkthrough.sh"])
  for (const file of files) {
    expect(readmeExample(file)).toBe(readFileSync(join(root, file), "utf8"))
    expect(readmeOutput(file).length).toBeGreaterThan(0)
  }
})

test("examples/effect.mjs runs under Bun and prints what the README shows", async () => {
  const proc = Bun.spawn([process.execPath, join(root, "examples", "effect.mjs")], { cwd: root, stdout: "pipe", stderr: "pipe" })
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  expect(stderr).toBe("")
  expect(code).toBe(0)
  expect(stdout).toBe(readmeOutput("examples/effect.mjs"))
})
