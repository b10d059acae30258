/**
 * The console's default directory (src/app/routes/uiLocation.ts): the
 * `dist/ui` of the package root found by walking up from a module's own
 * location, whatever its depth (sources, tsc's `dist/src/...`, the bundled
 * CLI's `dist/cli/` chunks, an installed `node_modules/svc-gateway`).
 */
import { NodeServices } from "@effect/platform-node"
import { Effect, Option } from "effect"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"
import { findPackageRoot, packageUiDir } from "../../../src/app/routes/uiLocation.ts"

const run = <A>(effect: Effect.Effect<A, never, NodeServices.NodeServices>) => Effect.runPromise(Effect.provide(effect, NodeServices.layer))
const ROOT = resolve(import.meta.dirname, "../../..")

/** `<tmp>/app/node_modules/svc-gateway/` with its package.json, below an app whose package.json has another name. */
const installed = () => {
  const app = mkdtempSync(join(tmpdir(), "svc-ui-location-"))
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "my-app" }))
  const pkg = join(app, "node_modules", "svc-gateway")
  for (const dir of ["dist/cli", "dist/src/app/routes", "src/app/routes", "dist/ui/assets"]) mkdirSync(join(pkg, dir), { recursive: true })
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "svc-gateway", version: "0.1.0" }))
  // A folder with an unreadable (invalid) package.json on the way up is skipped.
  writeFileSync(join(pkg, "dist", "package.json"), "{ not json")
  return { app, pkg }
}

describe("the console's default directory", () => {
  it("is this checkout's dist/ui when running from the sources", async () => {
    expect(await run(packageUiDir)).toEqual(Option.some(join(ROOT, "dist", "ui")))
  })

  it.each([
    ["the bundled CLI", "dist/cli/chunk-ABC.mjs"],
    ["tsc's output", "dist/src/app/routes/uiLocation.js"],
    ["the sources", "src/app/routes/uiLocation.ts"]
  ])("is found from %s of an installed package", async (_name, module) => {
    const { pkg } = installed()
    expect(await run(findPackageRoot(pathToFileURL(join(pkg, module))))).toEqual(Option.some(pkg))
  })

  it("is not found when no package.json above is named svc-gateway (the gateway bundled into another program)", async () => {
    const { app } = installed()
    mkdirSync(join(app, "build"))
    expect(await run(findPackageRoot(pathToFileURL(join(app, "build", "server.mjs"))))).toEqual(Option.none())
  })

  it("is not found from a URL that is not a file", async () => {
    expect(await run(findPackageRoot(new URL("https://example.com/x.js")))).toEqual(Option.none())
  })
})
