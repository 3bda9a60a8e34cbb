"""Drives the official PyPI `runpod` client (runpod.Endpoint) against the platform.

Usage: client.py <scenario> <json-args>. The base URL comes from RUNPOD_ENDPOINT_BASE_URL
(read by `import runpod`), the key from INTEROP_API_KEY. The last stdout line is a JSON
summary that the TypeScript test asserts on.
"""

import json
import os
import sys
import time

import runpod

runpod.api_key = os.environ["INTEROP_API_KEY"]

TERMINAL = ("COMPLETED", "FAILED", "CANCELLED", "TIMED_OUT")


def wait_until(predicate, timeout=30.0, every=0.1):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError("condition not met in %.0f s" % timeout)
        time.sleep(every)


def run_status(args):
    endpoint = runpod.Endpoint(args["endpoint"])
    job = endpoint.run(args["input"])
    first = job.status()
    output = job.output(timeout=30)
    return {
        "id": job.job_id,
        "first_status": first,
        "status": job.status(),
        "output": output,
        "base": endpoint.rp_client.endpoint_url_base,
    }


def run_sync(args):
    endpoint = runpod.Endpoint(args["endpoint"])
    return {"output": endpoint.run_sync(args["input"], timeout=30)}


def stream(args):
    endpoint = runpod.Endpoint(args["endpoint"])
    job = endpoint.run(args["input"])
    chunks = list(job.stream())
    return {"id": job.job_id, "chunks": chunks, "status": job.status()}


def cancel(args):
    endpoint = runpod.Endpoint(args["endpoint"])
    job = endpoint.run(args["input"])
    wait_until(lambda: job.status() == "IN_PROGRESS")
    answer = job.cancel()
    return {"id": job.job_id, "cancel": answer, "status": job.status()}


def health(args):
    endpoint = runpod.Endpoint(args["endpoint"])
    result = {"health": endpoint.health()}
    # A wrong key: the client turns a 401 into a RuntimeError.
    try:
        runpod.Endpoint(args["endpoint"], api_key="not-the-key").health()
        result["bad_key"] = "no error"
    except RuntimeError as err:
        result["bad_key"] = "RuntimeError: %s" % err
    return result


def purge(args):
    endpoint = runpod.Endpoint(args["endpoint"])
    jobs = [endpoint.run({"i": i}) for i in range(args["count"])]
    before = endpoint.health()
    answer = endpoint.purge_queue()
    after = endpoint.health()
    statuses = {}
    for job in jobs:
        try:
            statuses[job.job_id] = job.status()
        except Exception as err:  # a removed job may be gone (404)
            statuses[job.job_id] = "error: %s" % err
    return {"ids": [j.job_id for j in jobs], "before": before, "purge": answer, "after": after, "statuses": statuses}


def asyncio_run(args):
    """The asyncio client (AsyncioEndpoint): it always wraps as {"input": ...} and sends X-Request-ID."""
    import asyncio

    from runpod.http_client import ClientSession

    async def main():
        async with ClientSession() as session:
            endpoint = runpod.AsyncioEndpoint(args["endpoint"], session)
            job = await endpoint.run(args["input"])
            output = await job.output(timeout=30)
            status = await job.status()
            streamed = []
            if args.get("stream_endpoint"):
                stream_job = await runpod.AsyncioEndpoint(args["stream_endpoint"], session).run(args["stream_input"])
                async for chunk in stream_job.stream():
                    streamed.append(chunk)
            return {"id": job.job_id, "status": status, "output": output, "streamed": streamed}

    return asyncio.run(main())


SCENARIOS = {
    "asyncio_run": asyncio_run,
    "run_status": run_status,
    "run_sync": run_sync,
    "stream": stream,
    "cancel": cancel,
    "health": health,
    "purge": purge,
}

if __name__ == "__main__":
    scenario, raw = sys.argv[1], sys.argv[2]
    summary = SCENARIOS[scenario](json.loads(raw))
    summary["runpod_version"] = runpod.__version__
    print(json.dumps(summary))
