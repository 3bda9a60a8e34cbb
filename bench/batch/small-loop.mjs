// bench/batch/small-loop.mjs: the loop of bench/batch/small.ts as a user runs it, `node loop.mjs`:
// its own process, plain Node (no tsx), the npm `runpod-sdk` client's `endpoint.runSync` at a fixed
// concurrency over inputs {"i": 0..N-1}. Exits 0 once every job completed, else 1 with the reason.
//
//   node bench/batch/small-loop.mjs BASE_URL API_KEY ENDPOINT_ID INPUTS CONCURRENCY
/* global process, console */
import runpodSdk from 'runpod-sdk';

const [baseUrl, apiKey, endpointId, inputs, concurrency] = process.argv.slice(2);
const ep = runpodSdk(apiKey, { baseUrl }).endpoint(endpointId);
let next = 0;
try {
  await Promise.all(
    Array.from({ length: Number(concurrency) }, async () => {
      while (next < Number(inputs)) {
        const i = next++;
        const r = await ep.runSync({ input: { i } }, 60_000);
        if (r.status !== 'COMPLETED') throw new Error(`job ${i} ended ${r.status}`);
      }
    }),
  );
} catch (err) {
  console.error(`loop: ${err.message}`);
  process.exitCode = 1;
}
