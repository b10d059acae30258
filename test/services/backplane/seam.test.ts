/**
 * The backplane is the only way to another connection (docs/architecture.md
 * "Backplane"): the live `ConnectionHandle` (the socket's `send`/`close`) is
 * named only by the backplane, the registry view that re-exports it and the
 * WS transport (the connection actor and the dispatch of its own requests);
 * every other module sees `ConnectionEntry` (plain data) and delivers through
 * the Backplane or its views.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative, resolve } from "node:path"

const ROOT = resolve(import.meta.dirname, "../../..")

const sources = (dir: string): Array<string> =>
  readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name)
    return statSync(join(ROOT, path)).isDirectory() ? sources(path) : name.endsWith(".ts") ? [path] : []
  })

const ALLOWED = new Set([
  "services/backplane/Backplane.ts",
  "services/backplane/local.ts",
  "services/backplane/postgres.ts",
  "services/backplane/schema.ts",
  "services/ws-sessions/ConnectionRegistry.ts",
  "src/ws/connection.ts",
  "src/ws/dispatch.ts"
])

describe("the backplane seam", () => {
  it("only the backplane and the WS transport name the live ConnectionHandle", () => {
    const naming = [...sources("services"), ...sources("src"), ...sources("layers")]
      .filter((file) => /\bConnectionHandle\b/.test(readFileSync(join(ROOT, file), "utf8")))
      .map((file) => relative(ROOT, join(ROOT, file)))
    expect(naming.filter((file) => !ALLOWED.has(file))).toEqual([])
  })
})
