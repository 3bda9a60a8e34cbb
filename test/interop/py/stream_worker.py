"""A generator handler for the stock RunPod worker SDK: one chunk per step."""

import time

import runpod


def handler(job):
    count = job["input"].get("chunks", 3)
    delay = job["input"].get("delay", 0.05)
    for i in range(count):
        if i > 0:
            time.sleep(delay)
        yield {"index": i, "text": "py chunk %d" % i}


if __name__ == "__main__":
    runpod.serverless.start({"handler": handler, "return_aggregate_stream": True})
