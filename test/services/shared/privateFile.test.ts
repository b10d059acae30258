/** services/shared/privateFile.ts: private files written whole or not at all (issue 20 §1). */
import { afterEach, describe, expect, it } from "@effect/vitest"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { writePrivateFile } from "../../../services/shared/privateFile.ts"

const dirs: Array<string> = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-private-file-"))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const modeOf = (path: string) => statSync(path).mode & 0o777

describe("writePrivateFile", () => {
  it("creates the file 0600 and a missing directory 0700 whatever the umask, leaving nothing else", async () => {
    const dir = join(tempDir(), "state")
    const path = join(dir, "key")
    const umask = process.umask(0o000)
    try {
      expect(await writePrivateFile(path, "secret\n", "create")).toBe(true)
    } finally {
      process.umask(umask)
    }
    expect(readFileSync(path, "utf8")).toBe("secret\n")
    expect(modeOf(path)).toBe(0o600)
    expect(modeOf(dir)).toBe(0o700)
    expect(readdirSync(dir)).toEqual(["key"])
  })

  it("create: never overwrites an existing file, and says so", async () => {
    const path = join(tempDir(), "key")
    writeFileSync(path, "first")
    expect(await writePrivateFile(path, "second", "create")).toBe(false)
    expect(readFileSync(path, "utf8")).toBe("first")
    expect(readdirSync(tempDir())).toEqual([])
  })

  it("create: of concurrent writers exactly one wins, and the file is whole", async () => {
    const path = join(tempDir(), "key")
    const contents = Array.from({ length: 12 }, (_, i) => `writer-${i}-`.repeat(1000))
    const results = await Promise.all(contents.map((c) => writePrivateFile(path, c, "create")))
    expect(results.filter(Boolean)).toHaveLength(1)
    expect(readFileSync(path, "utf8")).toBe(contents[results.indexOf(true)])
  })

  it("replace: swaps the content in one step and keeps 0600", async () => {
    const dir = tempDir()
    const path = join(dir, "token.json")
    await writePrivateFile(path, "old", "replace")
    expect(await writePrivateFile(path, "new", "replace")).toBe(true)
    expect(readFileSync(path, "utf8")).toBe("new")
    expect(modeOf(path)).toBe(0o600)
    expect(readdirSync(dir)).toEqual(["token.json"])
  })

  it("a failure leaves the target as it was and no temporary file", async () => {
    const dir = tempDir()
    // A non-empty directory in the way: the rename into place fails.
    const path = join(dir, "in-the-way")
    mkdirSync(path)
    writeFileSync(join(path, "inside"), "x")
    await expect(writePrivateFile(path, "content", "replace")).rejects.toThrow()
    expect(readdirSync(dir)).toEqual(["in-the-way"])
    expect(readdirSync(path)).toEqual(["inside"])
  })
})
