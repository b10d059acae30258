/**
 * Cross-subsystem reactions through declared ports (issue 21 §1;
 * docs/architecture.md "Cross-subsystem reactions: DomainEvents").
 *
 * A subsystem that something else must react to declares a typed
 * {@link DomainEvent} next to its service (e.g. `approvals/domainEvents.ts`)
 * and publishes it; whoever reacts subscribes to the declaration, so the
 * publisher never imports its subscribers. Three kinds of subscriber:
 *
 * - **in the transaction** ({@link DomainEvents} `inTransaction`): runs in the
 *   publisher's fiber, inside its transaction, before `publish` returns; its
 *   failure fails the publication, so the publisher's write rolls back with
 *   it (the audit chain records every `Decision` this way: all or nothing).
 * - **after commit, awaited** (`afterCommit`): runs once the publisher's
 *   transaction committed (at once outside a transaction), in the
 *   publisher's fiber, in registration order, before the publisher's
 *   `withTransaction` returns; never for a write that rolled back. A failure
 *   is logged, never the publisher's. For reactions callers observe as soon
 *   as the deciding call returns (a resolved approval continues its run).
 * - **after commit, in the background** (`subscribe`): through an Effect
 *   `PubSub`, delivered to a fiber of the subscriber's scope, so the
 *   publisher never waits for it (a run that ended fires watchers).
 *
 * @module
 */
import { Cause, Context, Effect, Layer, PubSub, type Scope } from "effect"
import { SqlClient } from "effect/sql"

/**
 * A declared domain event: its `name` (unique in the gateway, e.g.
 * `approval.resolved`) and, at the type level, its payload `A`.
 */
export interface DomainEvent<in out A> {
  readonly name: string
  /** Type-level marker of the payload (the identity at run time). */
  readonly payload: (payload: A) => A
}

/** Declares a domain event named `name` with payload `A`: `DomainEvent.make<Approval>("approval.resolved")`. */
export const DomainEvent = {
  make: <A>(name: string): DomainEvent<A> => ({ name, payload: (payload) => payload })
}

type Handler<E> = (payload: unknown) => Effect.Effect<void, E>

/** The domain-event port of the gateway (one instance per graph). */
export class DomainEvents extends Context.Service<DomainEvents, {
  /**
   * Publishes `payload`: runs the event's transactional subscribers now (in
   * the caller's transaction when there is one; a failure fails this and
   * rolls the caller back), then, after the commit (at once outside a
   * transaction), its after-commit reactions (awaited) and its background
   * subscribers (queued).
   */
  readonly publish: <A>(event: DomainEvent<A>, payload: A) => Effect.Effect<void>
  /**
   * {@link publish} for publishers whose answer must not depend on the
   * subscribers (e.g. a 401 for a refused credential): a failure is logged
   * with the event's name, never raised.
   */
  readonly publishOrLog: <A>(event: DomainEvent<A>, payload: A) => Effect.Effect<void>
  /** Registers a subscriber that runs inside the publisher's transaction (all or nothing with its write). */
  readonly inTransaction: <A>(event: DomainEvent<A>, subscriber: (payload: A) => Effect.Effect<void>) => Effect.Effect<void>
  /** Registers a reaction run after the publisher's commit, in its fiber, awaited; a failure is logged. */
  readonly afterCommit: <A>(event: DomainEvent<A>, reaction: (payload: A) => Effect.Effect<void>) => Effect.Effect<void>
  /**
   * Subscribes `reaction` through the event's `PubSub` for the lifetime of
   * the scope: every event published after this returns is delivered, in
   * order, to one fiber of that scope after the publisher's commit; a
   * failure is logged and the next event is delivered.
   */
  readonly subscribe: <A>(event: DomainEvent<A>, reaction: (payload: A) => Effect.Effect<void>) => Effect.Effect<void, never, Scope.Scope>
}>()("svc-gateway/domain-events/DomainEvents") {
  /**
   * The port with no subscriber yet (subscribers register while their
   * layers are built). Needs a `SqlClient` (`afterCommit`). Wired for the
   * gateway with the audit chain subscribed: `AuditLog.layer`.
   */
  static readonly layer = Layer.effect(
    DomainEvents,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const transactional = new Map<string, Array<Handler<never>>>()
      const reactions = new Map<string, Array<Handler<never>>>()
      const pubsubs = new Map<string, PubSub.PubSub<unknown>>()

      const register = <E>(handlers: Map<string, Array<Handler<E>>>, name: string, handler: Handler<E>) =>
        Effect.sync(() => {
          const list = handlers.get(name)
          if (list === undefined) handlers.set(name, [handler])
          else list.push(handler)
        })

      const logged = (name: string, message: string) => <E>(effect: Effect.Effect<void, E>): Effect.Effect<void> =>
        Effect.catchCause(effect, (cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.interrupt
            : Effect.logWarning(message).pipe(Effect.annotateLogs({ domain_event: name, cause: Cause.pretty(cause) })))

      /** What runs after the commit: the reactions in order, then the background subscribers' queue. */
      const deliver = (name: string, payload: unknown) =>
        Effect.gen(function*() {
          for (const reaction of reactions.get(name) ?? []) {
            yield* logged(name, "domain event reaction failed")(reaction(payload))
          }
          const pubsub = pubsubs.get(name)
          if (pubsub !== undefined) yield* PubSub.publish(pubsub, payload)
        })

      const publish = Effect.fn("DomainEvents.publish")(function*<A>(event: DomainEvent<A>, payload: A) {
        for (const subscriber of transactional.get(event.name) ?? []) yield* subscriber(payload)
        if (reactions.has(event.name) || pubsubs.has(event.name)) yield* sql.afterCommit(deliver(event.name, payload))
      })

      return DomainEvents.of({
        publish,
        publishOrLog: Effect.fn("DomainEvents.publishOrLog")((event, payload) =>
          logged(event.name, "domain event publication failed")(publish(event, payload))
        ),
        inTransaction: Effect.fn("DomainEvents.inTransaction")((event, subscriber) =>
          register(transactional, event.name, subscriber as Handler<never>)
        ),
        afterCommit: Effect.fn("DomainEvents.afterCommit")((event, reaction) => register(reactions, event.name, reaction as Handler<never>)),
        // Untraced: it forks the subscriber's loop, which a span here would parent for the layer's lifetime.
        subscribe: Effect.fnUntraced(function*(event, reaction) {
          let pubsub = pubsubs.get(event.name)
          if (pubsub === undefined) {
            pubsub = yield* PubSub.unbounded<unknown>()
            pubsubs.set(event.name, pubsub)
          }
          const subscription = yield* PubSub.subscribe(pubsub)
          const handle = reaction as Handler<never>
          yield* Effect.forkScoped(Effect.forever(Effect.flatMap(
            PubSub.take(subscription),
            (payload) => logged(event.name, "domain event subscriber failed")(handle(payload))
          )))
        })
      })
    })
  )
}
