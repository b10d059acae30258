/**
 * The repository edge (docs/architecture.md "Errors", "Storage"): a
 * repository talks to the gateway's own database, so the database failing
 * (`SqlError`) or a stored row not decoding (`SchemaError`) is never the
 * caller's mistake. Both become defects here, logged with their cause, so no
 * service signature carries `SqlError`; a client sees `500 internal_error`
 * (HTTP) or `internal_error` (WS), as before. Errors a repository maps on
 * purpose (a unique-constraint conflict answered 409, …) are typed errors of
 * its own and pass through unchanged.
 *
 * @module
 */
import { Cause, Effect, Schema } from "effect"
import { isSqlError, type SqlError } from "effect/sql/SqlError"

/** What a repository turns into a defect. */
export type StorageError = SqlError | Schema.SchemaError

const isStorageError = (error: unknown): error is StorageError => isSqlError(error) || Schema.isSchemaError(error)

const die = (error: StorageError) =>
  Effect.logError("storage failed").pipe(
    Effect.annotateLogs({ cause: Cause.pretty(Cause.fail(error)) }),
    Effect.andThen(Effect.die(error))
  )

/** `effect` with its `SqlError` and `SchemaError` turned into a logged defect; other errors stay typed. */
export const orDieStorage = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, StorageError>, R> =>
  Effect.catchIf(effect as Effect.Effect<A, unknown, R>, isStorageError, die) as Effect.Effect<A, Exclude<E, StorageError>, R>

/**
 * A repository's operations as written, before {@link repositoryEdge}: its
 * interface `S` with `SqlError` and `SchemaError` allowed in every error
 * channel. `transaction` keeps its own (generic) type: give it as
 * {@link transactionAtEdge}.
 */
export type BeforeEdge<S> = {
  readonly [K in keyof S]: K extends "transaction" ? S[K]
    : S[K] extends (...args: infer P) => Effect.Effect<infer A, infer E, infer R>
      ? (...args: P) => Effect.Effect<A, E | StorageError, R>
    : S[K] extends Effect.Effect<infer A, infer E, infer R> ? Effect.Effect<A, E | StorageError, R>
    : S[K]
}

/**
 * A repository's interface `S` (inferred from where it is used:
 * `Repo.of(repositoryEdge("Repo", {...}))`) from operations that may fail with
 * `SqlError` or `SchemaError`: every operation (functions returning an
 * `Effect`, and `Effect` values) goes through {@link orDieStorage}, and is
 * traced as `<name>.<operation>` (docs/architecture.md "Conventions"): the
 * `Effect` a function returns runs in `Effect.fn("<name>.<operation>")`, an
 * `Effect` value gets the same span with `Effect.withSpan`. `name` is the repository's class name.
 */
export const repositoryEdge = <S extends object>(name: string, operations: NoInfer<BeforeEdge<S>>): S =>
  Object.fromEntries(
    Object.entries(operations).map(([operationName, operation]) => {
      const spanName = `${name}.${operationName}`
      // The operation is called as before (eagerly); only an `Effect` it returns is traced.
      const traced = Effect.fn(spanName)((effect: Effect.Effect<unknown, unknown, unknown>) => orDieStorage(effect))
      return [
        operationName,
        typeof operation === "function"
          ? (...args: Array<unknown>) => {
            const result = (operation as (...args: Array<unknown>) => unknown)(...args)
            return Effect.isEffect(result) ? traced(result) : result
          }
          : Effect.isEffect(operation)
          ? Effect.withSpan(orDieStorage(operation), spanName)
          : operation
      ]
    })
  ) as S

/**
 * `withTransaction` (a `SqlClient`'s) at the edge: the effect's writes commit
 * together or not at all; the transaction itself failing (begin, commit) is a
 * defect, the effect's own errors stay typed.
 */
export const transactionAtEdge = (
  withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, R>
) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.catchIf(withTransaction(effect) as Effect.Effect<A, unknown, R>, isSqlError, die) as Effect.Effect<A, E, R>

/**
 * Recovers from the database failing (a `SqlError` defect from a repository
 * edge) with `f`; any other defect stays one. For the few places that answer
 * an unavailable database differently from a bug: the WS upgrade (503), a WS
 * request (`internal_error`, the connection stays open), background loops
 * that retry.
 */
export const catchStorageDefect = <B, E2, R2>(f: (error: SqlError) => Effect.Effect<B, E2, R2>) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A | B, E | E2, R | R2> =>
  Effect.catchDefect(effect, (defect) => isSqlError(defect) ? f(defect) : Effect.die(defect))
