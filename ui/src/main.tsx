/** The console's entry: mounts {@link App} into `#app`. */
import { render } from "preact"
import { App } from "./app/App.tsx"
import "./styles.css"

render(<App />, document.getElementById("app")!)
