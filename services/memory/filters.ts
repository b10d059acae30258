/**
 * The SQL of memory's listing and search filters (docs/memory.md "Filters,
 * pages and limits"), shared by the keyword search and listings
 * (MemoryRepo.ts) and the vector search (MemoryVectorRepo.ts).
 *
 * @module
 */
import type { SqlClient, Statement } from "effect/sql"
import type { MemoryFilter } from "./schema.ts"

/** Which rows a listing or search reads: the agent and the wire filter. */
export interface MemoryRowFilter {
  readonly agentId: string
  readonly filter: MemoryFilter | undefined
}

/** The WHERE clauses of `filter` over `memory_items m` (the agent first: an agent's items only). */
export const filterClauses = (
  sql: SqlClient.SqlClient,
  postgres: boolean,
  { agentId, filter }: MemoryRowFilter
): Array<Statement.Fragment> => {
  const where: Array<Statement.Fragment> = [sql`m.agent_id = ${agentId}`]
  if (filter?.kinds !== undefined && filter.kinds.length > 0) where.push(sql.in("m.kind", filter.kinds))
  if (filter?.sensitivities !== undefined && filter.sensitivities.length > 0) {
    where.push(sql.in("m.sensitivity", filter.sensitivities))
  }
  const sources = filter?.provenance?.source_kinds
  if (sources !== undefined && sources.length > 0) where.push(sql.in("m.source_kind", sources))
  if (filter?.tags !== undefined && filter.tags.length > 0) {
    if (postgres) where.push(sql`(m.tags::jsonb @> ${JSON.stringify(filter.tags)}::jsonb)`)
    else for (const tag of filter.tags) where.push(sql`EXISTS (SELECT 1 FROM json_each(m.tags) WHERE json_each.value = ${tag})`)
  }
  if (filter?.created_after !== undefined) where.push(sql`m.created_at >= ${new Date(filter.created_after).toISOString()}`)
  if (filter?.created_before !== undefined) where.push(sql`m.created_at < ${new Date(filter.created_before).toISOString()}`)
  return where
}
