"""An async handler for the stock RunPod worker SDK: reports progress, waits `hold` s, returns.

Being async, a wait can be interrupted by the SDK's per-job stop channel (job-stop), which
the cancel test relies on.
"""

import asyncio

import runpod


async def handler(job):
    hold = job["input"].get("hold", 1.5)
    runpod.serverless.progress_update(job, {"phase": "halfway", "pct": 50})
    # Long enough for the test to see the progress as the output of the IN_PROGRESS status.
    await asyncio.sleep(hold)
    return {"phase": "done", "pct": 100, "held": hold}


if __name__ == "__main__":
    runpod.serverless.start({"handler": handler})
