"""A plain handler for the stock RunPod worker SDK: returns its input transformed."""

import os

import runpod


def handler(job):
    text = job["input"]["text"]
    return {
        "upper": text.upper(),
        "length": len(text),
        "words": text.split(),
        "job_id": job["id"],
        "worker_id": os.environ.get("RUNPOD_POD_ID"),
    }


if __name__ == "__main__":
    runpod.serverless.start({"handler": handler})
