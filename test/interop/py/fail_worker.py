"""A handler for the stock RunPod worker SDK that always raises."""

import runpod


def handler(job):
    raise ValueError("python handler refused: %s" % job["input"].get("reason", "no reason"))


if __name__ == "__main__":
    runpod.serverless.start({"handler": handler})
