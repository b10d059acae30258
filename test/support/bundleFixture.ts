/**
 * A TypeScript fixture bundled for Node (which runs no TypeScript) into `node_modules/.cache/<cacheDir>`, inside the
 * repository so its packages resolve from its node_modules. Every package stays external: one copy of effect shared
 * with @effect/sql-pg and @effect/platform-node (a bundled second copy breaks `Redacted`: "Unable to get redacted
 * value").
 */
import { build } from "esbuild"
import { basename, join } from "node:path"

const root = join(import.meta.dirname, "..", "..")

/** Bundles `entry` (a path from the repository root) once per test process; answers the `.mjs` to run with `node`. */
export const bundleFixture = async (entry: string, cacheDir: string): Promise<string> => {
  const outfile = join(root, "node_modules/.cache", cacheDir, `${basename(entry, ".ts")}-${process.pid}.mjs`)
  await build({
    entryPoints: [join(root, entry)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "error"
  })
  return outfile
}
