// The page of `infcalc serve` in a real browser: Debian's chromium, driven
// through chromedriver's W3C WebDriver protocol with Node's own fetch (no
// npm packages). Loads the page, moves the batch slider with the keyboard as
// a user would, and checks that the table and both charts change; saves a
// screenshot. Usage: node e2e.mjs PAGE_URL DRIVER_URL SCREENSHOT.png PROFILE_DIR
import { writeFileSync } from "node:fs";

const [page, driver, shot, profile] = process.argv.slice(2);
const ELEMENT = "element-6066-11e4-a6e0-29c5fa0a1e4a";
const elementId = (el) => el[ELEMENT] || el.ELEMENT || Object.values(el)[0];

async function wd(method, path, body) {
  const res = await fetch(driver + path, {
    method,
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json.value)}`);
  return json.value;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(what, fn, ms = 20000) {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error("timed out waiting for " + what);
    await sleep(100);
  }
}

function fail(msg) {
  console.error("FAIL: " + msg);
  process.exitCode = 1;
}

const caps = {
  capabilities: {
    alwaysMatch: {
      browserName: "chrome",
      "goog:chromeOptions": {
        binary: "/usr/bin/chromium",
        args: ["--headless=new", "--no-sandbox", "--disable-gpu",
               "--disable-background-networking", "--no-first-run",
               "--user-data-dir=" + profile, "--window-size=1500,1350"],
      },
    },
  },
};

const session = await wd("POST", "/session", caps);
const sid = session.sessionId;
const run = (script) => wd("POST", `/session/${sid}/execute/sync`, { script, args: [] });
try {
  await wd("POST", `/session/${sid}/url`, { url: page + "?model=llama3-70b&hw=tpu-v5e&chips=16&batch=8&context=2048" });
  const state = () => run(`
    const img = (id) => { const i = document.getElementById(id);
      return i.complete && i.naturalWidth > 0 ? i.src : ""; };
    const rows = document.querySelector("#point tbody").rows;
    return { table: rows.length ? document.getElementById("point").innerText : "",
             batch: document.getElementById("batch_v").textContent,
             chartBatch: img("chart_batch"), chartContext: img("chart_context"),
             error: document.getElementById("error").textContent,
             url: location.href };`);
  const before = await until("the first table and charts", async () => {
    const s = await state();
    return s.table && s.chartBatch && s.chartContext ? s : null;
  });
  console.log(`loaded: batch ${before.batch}; table has ${before.table.split("\n").length} rows`);
  if (!before.table.includes("step time")) fail("the table has no step time");
  // v5e has achieved rates: the expected step beside the ideal bound
  if (!/expected step\s+[0-9.]+ ms \([0-9.]+x the ideal bound\)/.test(before.table))
    fail("the table has no expected step beside the ideal bound");
  if (before.batch !== "8") fail(`the address's batch 8 was not applied (slider says ${before.batch})`);

  // move the batch slider: focus it and press the right arrow 30 times
  const el = await wd("POST", `/session/${sid}/element`, { using: "css selector", value: "#batch" });
  await wd("POST", `/session/${sid}/element/${elementId(el)}/click`, {});
  const afterClick = await state();
  await wd("POST", `/session/${sid}/element/${elementId(el)}/value`, { text: "\uE014".repeat(30) });
  const after = await until("the table and charts to follow the slider", async () => {
    const s = await state();
    return s.batch !== afterClick.batch && s.table && s.table !== before.table &&
      s.chartBatch && s.chartBatch !== before.chartBatch && s.chartContext &&
      s.chartContext !== before.chartContext ? s : null;
  });
  console.log(`moved: batch ${before.batch} -> ${after.batch}`);
  if (after.error) fail("the page shows an error: " + after.error);
  if (!after.url.includes("batch=" + after.batch)) fail("the address does not hold the new batch: " + after.url);
  // the pictures themselves differ, not only their addresses
  const bytes = async (u) => Buffer.from(await (await fetch(u)).arrayBuffer());
  const [b0, b1] = [await bytes(before.chartBatch), await bytes(after.chartBatch)];
  if (b0.subarray(0, 4).toString("latin1") !== "\x89PNG") fail("the chart is not a PNG");
  if (b0.equals(b1)) fail("the batch chart did not change");
  const [c0, c1] = [await bytes(before.chartContext), await bytes(after.chartContext)];
  if (c0.equals(c1)) fail("the context chart did not change");
  const stepOf = (t) => (t.match(/step time\s+([^\n]+)/) || [])[1];
  console.log(`step time: ${stepOf(before.table)} -> ${stepOf(after.table)}`);
  if (stepOf(before.table) === stepOf(after.table)) fail("the step time did not change");

  // an engine profile from the list: the step becomes the expected one
  // under it, and the address holds it
  const picked = await run(`
    const e = document.getElementById("engine");
    const o = [...e.options].find((x) => x.value === "vllm-tpu-0.12");
    if (!o || e.disabled) return "";
    e.value = o.value; e.dispatchEvent(new Event("change")); return o.value;`);
  if (!picked) fail("the engine list lacks vllm-tpu-0.12 for tpu-v5e");
  const engined = await until("the table under the engine", async () => {
    const s = await state();
    return s.table.includes("(expected)") && s.url.includes("engine=vllm-tpu-0.12") &&
      s.chartBatch.includes("engine=vllm-tpu-0.12") &&
      s.chartContext.includes("engine=vllm-tpu-0.12") ? s : null;
  });
  console.log(`engine ${picked}: step time ${stepOf(engined.table)}`);
  if (engined.error) fail("the page shows an error: " + engined.error);

  const png = await wd("GET", `/session/${sid}/screenshot`);
  writeFileSync(shot, Buffer.from(png, "base64"));
  console.log("screenshot: " + shot);
} finally {
  await wd("DELETE", `/session/${sid}`).catch(() => {});
}
