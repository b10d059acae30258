/**
 * The state of an action a person starts (a button, a form): `busy` while it
 * runs, the `error` it failed with (shown with `<ErrorNote error={…} />`) and
 * an optional `done` message (a one-line confirmation). Replaces the
 * hand-written `setBusy(true) … try/catch/finally` of every page.
 *
 * ```tsx
 * const action = useAction()
 * <form onSubmit={action.submit(async (form) => { await call(…); return "Saved." })}>
 * <button disabled={action.busy} onClick={() => action.run(async () => { … })}>
 * ```
 */
import { useState } from "preact/hooks"

/** A task: resolves with the `done` message (a string) or nothing; a rejection becomes `error`. */
export type ActionTask = () => Promise<string | void>

/** What {@link useAction} answers. */
export interface Action {
  /** True while a task runs (disable the buttons that start one). */
  readonly busy: boolean
  /** What the last task failed with (an ApiError, an Error…); `undefined` when none. */
  readonly error: unknown
  /** The last task's message when it resolved with one; `undefined` otherwise. */
  readonly done: string | undefined
  /**
   * Runs `task`: sets `busy`, clears `error` and `done`, then sets `done` to
   * the message it resolves with, or `error` to what it rejects with, and
   * clears `busy`. Resolves `true` when the task succeeded, `false` when it
   * failed (never rejects).
   */
  readonly run: (task: ActionTask) => Promise<boolean>
  /**
   * An `onSubmit` handler: prevents the page load, then {@link Action.run}s
   * `task` with the form (read write-only fields from it at once: the task
   * starts synchronously).
   */
  readonly submit: (task: (form: HTMLFormElement) => Promise<string | void>) => (event: Event) => void
  /** Shows an error without running anything (a check that failed before the call). */
  readonly setError: (error: unknown) => void
  /** Clears `error` and `done` (another item was selected). */
  readonly reset: () => void
}

/** The state of one action; see {@link Action}. */
export const useAction = (): Action => {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(undefined)
  const [done, setDone] = useState<string | undefined>(undefined)

  const run = async (task: ActionTask): Promise<boolean> => {
    setBusy(true)
    setError(undefined)
    setDone(undefined)
    try {
      const message = await task()
      if (typeof message === "string") setDone(message)
      return true
    } catch (failure) {
      setError(failure)
      return false
    } finally {
      setBusy(false)
    }
  }

  const submit = (task: (form: HTMLFormElement) => Promise<string | void>) => (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    void run(() => task(form))
  }

  const reset = () => {
    setError(undefined)
    setDone(undefined)
  }

  return { busy, error, done, run, submit, setError, reset }
}
