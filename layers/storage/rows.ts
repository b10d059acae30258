/**
 * Decoding rows read from the gateway's own database: one style, `SqlSchema`
 * (docs/architecture.md "Storage"). A repository declares each query with
 * `SqlSchema.findAll` / `findOne` / `findOneOption` / `void` and a row schema
 * when the statement's shape is fixed, and with {@link findRows} (the same
 * `SqlSchema.findAll`) when the statement is built at call time (optional
 * filters, `RETURNING` writes). A row that does not match its schema fails
 * with `SchemaError`, which the repository edge turns into a defect
 * (layers/storage/repositoryEdge.ts): corrupt storage, never a client's
 * mistake.
 *
 * @module
 */
import { type Effect, Schema } from "effect"
import { SqlSchema } from "effect/sql"

/**
 * `SqlSchema.findAll` for statements built by the caller: compiled once for
 * `row`, it runs a statement and decodes every row of its result.
 */
export const findRows = <S extends Schema.Top>(row: S) => {
  const find = SqlSchema.findAll({
    // The request is the statement itself, passed through unchanged.
    Request: Schema.Any,
    Result: row,
    execute: (statement: Effect.Effect<ReadonlyArray<unknown>, unknown, unknown>) => statement
  })
  return <E, R>(statement: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
    find(statement) as Effect.Effect<Array<S["Type"]>, E | Schema.SchemaError, R | S["DecodingServices"]>
}
