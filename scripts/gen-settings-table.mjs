// Rewrites README.md's configuration table from the settings declarations (scripts/settingsTable.ts):
// `npm run docs:settings`. `--check` writes nothing and exits 1 when README.md differs (test/config-readme.test.ts
// does the same).
import { generateFile } from "./generatedFile.mjs"

await generateFile({
  entry: "scripts/settingsTable.ts",
  target: "README.md",
  render: ({ withSettingsTable }, current) => withSettingsTable(current),
  stale: "README.md's settings table is out of date: run `npm run docs:settings`"
})
