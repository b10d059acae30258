/**
 * What a field shows while it is being typed in, following a value that can change from elsewhere (the address, a
 * live reload): the draft starts as `value` and is set back to it each time `value` changes (by `key`, default its
 * JSON), never on the first render. An effect that set it on mount too ran after the first paint and cleared what a
 * quick hand (or a browser test) had already typed.
 */
import { useEffect, useRef, useState } from "preact/hooks"

/** `[draft, setDraft]` of a field following `value`. */
export const useDraft = <A>(value: A, key: string = JSON.stringify(value)): [A, (draft: A) => void] => {
  const [draft, setDraft] = useState(value)
  const shown = useRef(key)
  useEffect(() => {
    if (shown.current === key) return
    shown.current = key
    setDraft(value)
  }, [key])
  return [draft, setDraft]
}
