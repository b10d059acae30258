/**
 * The test MCP server (test/fixtures/mcp/stdioServer.ts) bundled for Node (which runs no TypeScript) into
 * `node_modules/.cache`, inside the repository so its packages resolve from its node_modules.
 */
import { bundleFixture } from "./bundleFixture.ts"

/** Bundles the fixture server once per test file; answers the `.mjs` to run with `node`. */
export const bundleMcpFixture = (): Promise<string> => bundleFixture("test/fixtures/mcp/stdioServer.ts", "svc-mcp-fixture")
