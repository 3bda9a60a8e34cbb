"""A stand-in for the `runpod/mock-worker` image's /handler.py: the stock worker SDK with the
mock worker's input contract (runpod-workers/mock-worker, src/handler.py), written for the
interop tests.

Input fields: mock_return (the output; a list is streamed item by item by the generator
handlers), mock_delay (seconds to sleep, per item for generators), mock_error (raise),
mock_crash (the process exits with code 1 at once), mock_refresh (ask for a fresh worker),
mock_progress ({updates: [...], wait_time}). Flags: --generator, --async_generator,
--return_aggregate_stream.
"""

import argparse
import asyncio
import os
import sys
import time

import runpod


def _prepare(job):
    job_input = job["input"]
    if job_input.get("mock_crash"):
        os._exit(1)
    if job_input.get("mock_error"):
        raise RuntimeError("Mock error")
    return job_input


def handler(job):
    job_input = _prepare(job)
    time.sleep(job_input.get("mock_delay", 0))
    for update in job_input.get("mock_progress", {}).get("updates", []):
        runpod.serverless.progress_update(job, update)
        time.sleep(job_input["mock_progress"].get("wait_time", 0))
    output = job_input.get("mock_return", "Hello World!")
    if job_input.get("mock_refresh"):
        return {"refresh_worker": True, "mock_return": output}
    return output


def generator_handler(job):
    job_input = _prepare(job)
    for item in job_input.get("mock_return", ["Hello World!"]):
        time.sleep(job_input.get("mock_delay", 0))
        yield item


async def async_generator_handler(job):
    job_input = _prepare(job)
    for item in job_input.get("mock_return", ["Hello World!"]):
        await asyncio.sleep(job_input.get("mock_delay", 0))
        yield item


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--generator", action="store_true")
    parser.add_argument("--async_generator", action="store_true")
    parser.add_argument("--return_aggregate_stream", action="store_true")
    args, rest = parser.parse_known_args()
    # The SDK parses its own flags (--rp_log_level ...) from what is left.
    sys.argv = [sys.argv[0]] + rest
    if args.generator:
        chosen = generator_handler
    elif args.async_generator:
        chosen = async_generator_handler
    else:
        chosen = handler
    runpod.serverless.start({"handler": chosen, "return_aggregate_stream": args.return_aggregate_stream})
