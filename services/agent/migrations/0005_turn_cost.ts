/**
 * Agent runtime migration 5 (issue 25 §2 "Usage"): each context report keeps
 * its turn's cost in micro-dollars (`usd_micros`, from the model catalog's
 * prices; 0 when the model has no known price), so `GET /usage` sums turns.
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const sql = `ALTER TABLE agent_context_reports ADD COLUMN usd_micros INTEGER NOT NULL DEFAULT 0;`

/** Adds `agent_context_reports.usd_micros`. */
export const agentTurnCost: Migration = { id: 5, name: "agent_turn_cost", sqlite: sql, postgres: sql }
