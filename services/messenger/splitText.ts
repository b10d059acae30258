/**
 * Long replies in parts (docs/messenger.md "Delivery"): the Bot API refuses a `sendMessage` whose text is longer than
 * {@link MAX_MESSAGE_CHARS} characters (a 400, final), so `MessengerClient.sendMessage` sends a longer text as
 * several messages, in order, each cut at the last line break of its window, else at the last space, else at the
 * limit (never inside a surrogate pair).
 *
 * @module
 */

/** The Bot API's limit on one message's text, in characters (Unicode code points). */
export const MAX_MESSAGE_CHARS = 4096

/**
 * `text` in parts of at most `limit` code points, in order; their concatenation (with the line break or space each
 * cut was made at removed) is `text`. A text within the limit is one part.
 */
export const splitText = (text: string, limit: number = MAX_MESSAGE_CHARS): ReadonlyArray<string> => {
  const points = Array.from(text)
  if (points.length <= limit) return [text]
  const parts: Array<string> = []
  let start = 0
  while (points.length - start > limit) {
    const window = points.slice(start, start + limit)
    // Cut at a line break in the second half of the window, else at a space there, else at the limit.
    const cutAt = (separator: string) => {
      const at = window.lastIndexOf(separator)
      return at >= limit / 2 ? at : -1
    }
    const newline = cutAt("\n")
    const space = newline === -1 ? cutAt(" ") : -1
    const cut = newline !== -1 ? newline : space !== -1 ? space : limit
    parts.push(window.slice(0, cut).join(""))
    // The separator a cut was made at is dropped.
    start += cut + (newline !== -1 || space !== -1 ? 1 : 0)
  }
  parts.push(points.slice(start).join(""))
  return parts
}
