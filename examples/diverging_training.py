"""A tiny, real training loop (pure Python, no GPU) whose learning rate is too
high: the loss explodes to inf/NaN and the script stops with an error, as real
training scripts with a NaN guard do."""
import math
import random
import sys

random.seed(0)
data = [(x, 3.0 * x + 1.0 + random.gauss(0, 0.1)) for x in [random.uniform(-2, 2) for _ in range(256)]]
w, b, lr = 0.0, 0.0, 2.5  # lr far too high for this problem

print("***** Running training *****", flush=True)
print("  Num examples = %d, lr = %g" % (len(data), lr), flush=True)
for step in range(1, 2001):
    gw = gb = loss = 0.0
    for x, y in data:
        err = w * x + b - y
        loss += err * err
        gw += 2 * err * x
        gb += 2 * err
    loss /= len(data)
    w -= lr * gw / len(data)
    b -= lr * gb / len(data)
    if step % 5 == 0 or not math.isfinite(loss):
        print("step %d | loss %.6g | lr %g" % (step, loss, lr), flush=True)
    if not math.isfinite(loss):
        print("Loss is %s at step %d, stopping." % (loss, step), file=sys.stderr, flush=True)
        sys.exit(1)
print("done", flush=True)
