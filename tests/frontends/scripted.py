"""The scripted model behind the real front-ends: replies from a JSON list (KEYLESS_FE_SCRIPT),
handed out one per message, streamed in chunks; every message it receives is appended to a JSON
lines file (KEYLESS_FE_RECEIVED), as the model saw it."""

import json
import os
import time

SCRIPT = os.environ["KEYLESS_FE_SCRIPT"]
RECEIVED = os.environ["KEYLESS_FE_RECEIVED"]
CHUNK = int(os.environ.get("KEYLESS_FE_CHUNK", "120"))
DELAY = float(os.environ.get("KEYLESS_FE_DELAY", "0.02"))


CANARY = "keyless doctor canary."


def reply_to(message):
    """Records `message` and returns the next scripted reply (or a fixed one when none is left).
    keyless doctor's canary is echoed, as a model asked to repeat a block would, and is not
    recorded."""
    if message.startswith(CANARY) and "\n\n" in message:
        return message.split("\n\n", 1)[1]
    with open(RECEIVED, "a", encoding="utf-8") as out:
        out.write(json.dumps(message) + "\n")
    with open(RECEIVED, encoding="utf-8") as seen:
        count = sum(1 for _ in seen)
    with open(SCRIPT, encoding="utf-8") as f:
        replies = json.load(f)
    if count <= len(replies):
        return replies[count - 1]
    return "No more scripted replies."


def chunks(text):
    """The reply in pieces, as a model streams it."""
    for at in range(0, len(text), CHUNK):
        time.sleep(DELAY)
        yield text[at : at + CHUNK]
