/**
 * The test MCP server (test/fixtures/mcp/stdioServer.ts) bundled for Node (which runs no TypeScript) into
 * `node_modules/.cache`, inside the repository so its packages resolve from its node_modules.
 */
import { build } from "esbuild"
import { join } from "node:path"

const root = join(import.meta.dirname, "..", "..")

/** Bundles the fixture server once per test file; answers the `.mjs` to run with `node`. */
export const bundleMcpFixture = async (): Promise<string> => {
  const outfile = join(root, "node_modules/.cache/svc-mcp-fixture", `stdioServer-${process.pid}.mjs`)
  await build({
    entryPoints: [join(root, "test/fixtures/mcp/stdioServer.ts")],
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
