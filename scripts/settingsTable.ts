/**
 * The README's configuration table, rendered from the settings declarations
 * (src/app/settings.ts `SETTINGS_GROUPS`: layers/coreSettings.ts, then each
 * subsystem's `services/<subsystem>/settings.ts` in the root's order). It sits in README.md
 * between {@link BEGIN} and {@link END}; `npm run docs:settings`
 * (scripts/gen-settings-table.mjs) rewrites it, and test/config-readme.test.ts
 * fails when the README differs from the declarations.
 */
import { DECLARED_SETTINGS, SETTINGS_GROUPS } from "../src/app/settings.ts"
import type { SettingsGroup } from "../layers/settings.ts"

/** The marker before the generated table. */
export const BEGIN = "<!-- settings-table: generated from the settings declarations by `npm run docs:settings`; do not edit -->"
/** The marker after the generated table. */
export const END = "<!-- /settings-table -->"

const cell = (text: string): string => text.replaceAll("|", "\\|")

/** One row per setting (variable, flag, default, meaning, declaring subsystem), grouped by subsystem in `SETTINGS_GROUPS` order. */
export const renderSettingsTable = (): string => {
  const rows = (SETTINGS_GROUPS as ReadonlyArray<SettingsGroup>).flatMap((group) =>
    DECLARED_SETTINGS.filter((d) => d.subsystem === group.subsystem && d.setting === group.settings[d.key]).map(({ setting, subsystem }) =>
      `| \`${setting.env}\` | \`${setting.flag}\` | \`${cell(setting.defaultText)}\` | ${cell(setting.doc)} | ${
        subsystem === "core" ? "`layers/coreSettings.ts`" : `\`services/${subsystem}/settings.ts\``
      } |`
    )
  )
  return [BEGIN, "| Environment | Flag | Default | Meaning | Declared in |", "|---|---|---|---|---|", ...rows, END].join("\n")
}

/** `readme` with the text between the markers (markers included) replaced by {@link renderSettingsTable}; throws without the markers. */
export const withSettingsTable = (readme: string): string => {
  const begin = readme.indexOf(BEGIN)
  const end = readme.indexOf(END)
  if (begin === -1 || end < begin) throw new Error(`README.md has no settings table markers (${BEGIN} … ${END})`)
  return readme.slice(0, begin) + renderSettingsTable() + readme.slice(end + END.length)
}
