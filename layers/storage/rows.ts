/**
 * Decoding rows read from the gateway's own database. A row that does not
 * match its schema is corrupt storage, never a client's mistake, so it is a
 * defect (logged as internal), not a typed error.
 *
 * @module
 */
import { Effect, Schema } from "effect"

/** Turns a `SchemaError` from decoding or encoding rows into a defect; other errors stay typed. */
export const orDieOnSchema = <A, E, R>(
  effect: Effect.Effect<A, E | Schema.SchemaError, R>
): Effect.Effect<A, Exclude<E, Schema.SchemaError>, R> =>
  Effect.catchTag(effect as Effect.Effect<A, Schema.SchemaError, R>, "SchemaError", Effect.die) as Effect.Effect<
    A,
    Exclude<E, Schema.SchemaError>,
    R
  >

/**
 * A decoder for the rows of statements returning `row`: compiled once, it
 * decodes every row of a statement's result; a row that does not decode is a
 * defect.
 */
export const rowDecoder = <S extends Schema.Top>(row: S) => {
  const decode = Schema.decodeUnknownEffect(Schema.Array(row))
  return <E, R>(statement: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
    Effect.flatMap(statement, (rows) => Effect.orDie(decode(rows))) as Effect.Effect<ReadonlyArray<S["Type"]>, E, R>
}
