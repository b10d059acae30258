/**
 * Reloading the playbook directory when it changes (issue 13 §1;
 * docs/playbooks.md "Reload"): Effect's `FileSystem.watch` on the directory
 * (recursive), a burst of events debounced into one reload; once the
 * watcher is installed, one more reload covers changes made before it was.
 * When watching is unavailable, or the watch stream fails or ends (e.g. the
 * directory was removed), a warning is logged and the directory is polled
 * instead: every {@link POLL_INTERVAL} the paths, mtimes and sizes of the
 * playbook files are compared, and a difference reloads.
 *
 * The timers run on the live clock, even where the rest of the gateway runs
 * on a `TestClock`: files change in real time.
 *
 * @module
 */
import { Cause, Clock, Deferred, Duration, Effect, Exit, FileSystem, Schedule, Stream } from "effect"
import { directorySignature } from "./loader.ts"

/** Quiet time after the last file event before reloading. */
export const DEBOUNCE = Duration.millis(100)

/** Interval of the polling fallback. */
export const POLL_INTERVAL = Duration.seconds(2)

/**
 * Polls `dir` forever, reloading when its signature changes (once at the
 * start too). The signature is taken before each reload: a change made
 * while reloading then shows as a difference at the next poll.
 */
const poll = (dir: string, reload: Effect.Effect<void>) =>
  Effect.gen(function*() {
    let last = yield* directorySignature(dir)
    yield* reload
    yield* Effect.gen(function*() {
      const current = yield* directorySignature(dir)
      if (current === last) return
      last = current
      yield* reload
    }).pipe(Effect.repeat(Schedule.spaced(POLL_INTERVAL)))
  })

/**
 * Keeps `dir` loaded: runs `reload` after every burst of changes, forever
 * (fork it in the layer's scope). Never fails.
 */
export const watchDirectory = (dir: string, reload: Effect.Effect<void>): Effect.Effect<void, never, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const ready = yield* Deferred.make<void>()
    const events = fs.watch(dir, { recursive: true, onReady: () => void Deferred.doneUnsafe(ready, Effect.void) })
    const exit = yield* events.pipe(
      Stream.as(undefined),
      // Ends with the watch stream (a backend that never reports ready must not keep it open).
      Stream.merge(Stream.fromEffect(Deferred.await(ready)), { haltStrategy: "left" }),
      Stream.debounce(DEBOUNCE),
      Stream.runForEach(() => reload),
      Effect.exit
    )
    const why = Exit.isFailure(exit) ? Cause.pretty(exit.cause).split("\n")[0] : "the watch stream ended"
    yield* Effect.logWarning(`playbooks: cannot watch ${dir} (${why}); polling it every ${Duration.format(POLL_INTERVAL)} instead`)
    yield* poll(dir, reload)
  }).pipe(Effect.provideService(Clock.Clock, Clock.Clock.defaultValue()))
