/** `npm run build`: compiles `dist/encounterd` for this machine, commit and build time included. */
import { buildArgs, root } from "./build-args.js"

const result = Bun.spawnSync([process.execPath, ...buildArgs({ outfile: "dist/encounterd" })], { cwd: root, stdout: "inherit", stderr: "inherit" })
process.exit(result.exitCode)
