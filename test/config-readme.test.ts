/**
 * The README's configuration table is generated from the settings
 * declarations (scripts/settingsTable.ts, `npm run docs:settings`) and must
 * stay equal to them (issue 21 §1); every declared setting is in it once.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { DECLARED_SETTINGS } from "../src/app/settings.ts"
import { BEGIN, END, withSettingsTable } from "../scripts/settingsTable.ts"

const README = join(import.meta.dirname, "..", "README.md")

describe("README.md configuration table", () => {
  it("equals what the settings declarations render (run `npm run docs:settings` after changing a setting)", () => {
    const current = readFileSync(README, "utf8")
    const rendered = withSettingsTable(current)
    if (current !== rendered) {
      const a = current.split("\n")
      const b = rendered.split("\n")
      const line = a.findIndex((l, i) => l !== b[i])
      expect.fail(
        `README.md's settings table differs from the declarations: run \`npm run docs:settings\` (first difference at line ${line + 1}:\n  file:     ${a[line]}\n  rendered: ${b[line]})`
      )
    }
  })

  it("lists every declared setting once, with its variable, flag and default, and the file declaring it", () => {
    const readme = readFileSync(README, "utf8")
    const table = readme.slice(readme.indexOf(BEGIN), readme.indexOf(END)).split("\n").filter((l) => l.startsWith("| `"))
    expect(table).toHaveLength(DECLARED_SETTINGS.length)
    for (const { setting, subsystem } of DECLARED_SETTINGS) {
      const row = table.find((l) => l.startsWith(`| \`${setting.env}\` | \`${setting.flag}\` | \`${setting.defaultText}\` |`))
      expect(row, setting.env).toBeDefined()
      expect(row).toContain(subsystem === "core" ? "layers/coreSettings.ts" : `services/${subsystem}/settings.ts`)
    }
  })

  it("says how to regenerate it when the README lacks the markers", () => {
    expect(() => withSettingsTable("# no table\n")).toThrow(/settings table markers/)
  })
})
