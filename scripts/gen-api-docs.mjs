// Writes docs/api.md, the API reference, from the declarations (scripts/apiReference.ts): `npm run docs:api`.
// `--check` writes nothing and exits 1 when docs/api.md differs (test/docs/api-reference.test.ts does the same).
import { generateFile } from "./generatedFile.mjs"

await generateFile({
  entry: "scripts/apiReference.ts",
  target: "docs/api.md",
  render: ({ renderApiReference }) => renderApiReference(),
  stale: "docs/api.md is out of date: run `npm run docs:api`"
})
