/**
 * PostgreSQL schemas for the workflow benchmark: each gateway and each
 * baseline gets a fresh `svc_bench_<random>` schema (selected through
 * `search_path`), dropped with everything in it afterwards.
 *
 * @module
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import * as PgClient from "../layers/storage/PgClient.ts"

/** The PostgreSQL server to benchmark on: `SVC_BENCH_DATABASE_URL`, else `SVC_TEST_DATABASE_URL`; unset: none. */
export const benchPostgresUrl = (): string | undefined =>
  process.env.SVC_BENCH_DATABASE_URL || process.env.SVC_TEST_DATABASE_URL || undefined

const admin = (url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, f).pipe(
    Effect.provide(PgClient.layer({ url, maxConnections: 1, applicationName: "svc-bench" })),
    Effect.asVoid
  ))

/** Creates a fresh schema; its name. */
export const createSchema = async (url: string): Promise<string> => {
  const schema = `svc_bench_${randomBytes(6).toString("hex")}`
  await admin(url, (sql) => sql`CREATE SCHEMA ${sql(schema)}`)
  return schema
}

/** Drops the schema and everything in it. */
export const dropSchema = (url: string, schema: string): Promise<void> =>
  admin(url, (sql) => sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`)
