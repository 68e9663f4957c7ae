/**
 * Bundles `compat-entry.ts` (encounterd's compat builder and transition table) into
 * `bench/reference/compat.gen.mjs`, the ESM file the reference servers import. The bench and the
 * reference test build it before starting a reference, so it always matches the checkout.
 *
 *   bun bench/reference/build-compat.ts
 */
import { join } from "node:path"

const here = import.meta.dir
export const compatBundle = join(here, "compat.gen.mjs")

export const buildCompat = async (): Promise<void> => {
  const result = await Bun.build({
    entrypoints: [join(here, "compat-entry.ts")],
    target: "node",
    format: "esm",
    minify: false
  })
  const [output] = result.outputs
  if (!result.success || output === undefined) {
    throw new Error(`could not bundle the compat builder: ${result.logs.map((l) => String(l)).join("\n")}`)
  }
  await Bun.write(compatBundle, await output.text())
}

if (import.meta.main) await buildCompat()
