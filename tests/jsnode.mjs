// Runs one function of the JS vector tests under Node.js, as Playwright's
// page.evaluate would on the blank page of tests/e2e/conftest.py (`blank`):
// stdin is {source, arg, root}; `source` is a function's text (called with
// `arg`) whose `import("/static/js/...")` are the repository's modules. Prints
// {result, errors} as JSON: errors are what the page would have logged as
// script errors (an uncaught exception, an unhandled rejection); a function
// that throws prints {thrown}. The page's globals that the modules use
// without a DOM: `window` (the global object, as in a browser) and
// `location` (the blank page's, http://blank.test/).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const { source, arg, root } = JSON.parse(readFileSync(0, "utf8"));
const errors = [];
process.on("uncaughtException", (err) => errors.push(String(err)));
process.on("unhandledRejection", (err) => errors.push(String(err)));
globalThis.window = globalThis;
globalThis.location = new URL("http://blank.test/");

const modules = pathToFileURL(`${root}/static/js/`).href;
// Then exit: a module's timers (socket.js pings) would keep Node running.
const write = (value) => {
  // undefined as null, as Playwright hands it to Python (None)
  const text = JSON.stringify(value, (key, v) => (v === undefined ? null : v));
  process.stdout.write(text, () => process.exit(0));
};
try {
  const fn = (0, eval)(`(${source.replaceAll('"/static/js/', `"${modules}`).replaceAll("`/static/js/", `\`${modules}`)})`);
  const result = typeof fn === "function" ? await fn(arg) : await fn;
  await new Promise((resolve) => setImmediate(resolve)); // (errors of the same turn)
  write({ result, errors });
} catch (err) {
  write({ thrown: String(err && err.stack ? err.stack : err), errors });
}
