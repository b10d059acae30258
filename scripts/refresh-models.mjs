// Rewrites the model catalog snapshot bundled in the package, services/models/catalog.bundled.json
// (docs/models.md "The bundled snapshot"), from models.dev's api.json:
//
//   node scripts/refresh-models.mjs                       # fetches $SVC_MODELS_DEV_URL/api.json (default https://models.dev)
//   node scripts/refresh-models.mjs --from api.json       # reads a downloaded copy instead
//   node scripts/refresh-models.mjs --providers openai,anthropic,mistral
//
// Only the providers the gateway has layers for (openai, anthropic; --providers to change) are kept, with only the
// fields the gateway reads (services/models/schema.ts), in a stable order (providers and models by id, fields in
// the order below), so a refresh's diff shows what changed. The gateway's own `builtin` provider is kept as the
// current file has it (models.dev does not know it).
import { readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const target = fileURLToPath(new URL("../services/models/catalog.bundled.json", import.meta.url))
const args = process.argv.slice(2)
const option = (name) => {
  const at = args.indexOf(name)
  return at === -1 ? undefined : args[at + 1]
}

const PROVIDER_FIELDS = ["id", "name", "npm", "api", "env", "doc"]
const MODEL_FIELDS = ["id", "name", "family", "attachment", "reasoning", "tool_call", "temperature", "release_date", "last_updated", "modalities", "cost", "limit"]
const COST_FIELDS = ["input", "output", "cache_read", "cache_write"]
const LIMIT_FIELDS = ["context", "output"]
const MODALITY_FIELDS = ["input", "output"]

const pick = (value, fields) => {
  const out = {}
  for (const field of fields) if (value?.[field] !== undefined) out[field] = value[field]
  return out
}
const byId = (record) => Object.keys(record).sort()

const model = (m) => {
  const out = pick(m, MODEL_FIELDS)
  if (m.modalities !== undefined) out.modalities = pick(m.modalities, MODALITY_FIELDS)
  if (m.cost !== undefined) out.cost = pick(m.cost, COST_FIELDS)
  if (m.limit !== undefined) out.limit = pick(m.limit, LIMIT_FIELDS)
  return out
}

const provider = (p) => {
  const out = pick(p, PROVIDER_FIELDS)
  out.env = Array.isArray(p.env) ? p.env : []
  out.models = {}
  for (const id of byId(p.models ?? {})) out.models[id] = model(p.models[id])
  return out
}

const load = async () => {
  const from = option("--from")
  if (from !== undefined) return JSON.parse(readFileSync(from, "utf8"))
  const base = (process.env.SVC_MODELS_DEV_URL || "https://models.dev").replace(/\/+$/, "")
  const response = await fetch(`${base}/api.json`, { signal: AbortSignal.timeout(30_000), headers: { accept: "application/json" } })
  if (!response.ok) throw new Error(`${base}/api.json answered status ${response.status}`)
  return response.json()
}

const wanted = (option("--providers") ?? "openai,anthropic").split(",").map((p) => p.trim()).filter((p) => p !== "")
const catalog = await load()
if (typeof catalog !== "object" || catalog === null || Array.isArray(catalog)) throw new Error("api.json is not an object of providers")
const current = JSON.parse(readFileSync(target, "utf8"))
const merged = {}
for (const id of wanted) {
  if (catalog[id] === undefined) throw new Error(`api.json has no provider ${id}`)
  merged[id] = provider(catalog[id])
}
if (current.builtin !== undefined) merged.builtin = provider(current.builtin)
const sorted = {}
for (const id of byId(merged)) sorted[id] = merged[id]
writeFileSync(target, `${JSON.stringify(sorted, null, 2)}\n`)
const models = Object.values(sorted).reduce((n, p) => n + Object.keys(p.models).length, 0)
console.log(`${target}: ${Object.keys(sorted).length} providers, ${models} models`)
