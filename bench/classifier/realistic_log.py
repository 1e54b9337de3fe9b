# Writes SIZE bytes of realistic training output to stdout (HF Trainer dicts, tqdm bars,
# NCCL INFO, DeepSpeed and Megatron lines), then a CUDA OOM traceback to stderr; exit 1.
# Usage: realistic_log.py SIZE
import sys
size = int(sys.argv[1])
lines = []
for i in range(20000):
    k = i % 5
    if k == 0:
        lines.append("{'loss': %.4f, 'grad_norm': 1.%03d, 'learning_rate': 1e-05, 'epoch': %.2f}\n" % (2.5 - i * 1e-5, i % 997, i / 20000))
    elif k == 1:
        lines.append(" %d%%|####      | %d/100000 [01:%02d<09:00,  3.01it/s]\n" % (i % 100, i, i % 60))
    elif k == 2:
        lines.append("node%03d:%d:%d [%d] NCCL INFO Channel %02d/0 : 0[%d] -> 1[%d] via P2P/IPC\n" % (i % 64, 1000 + i, 1100 + i, i % 8, i % 32, i % 8, (i + 1) % 8))
    elif k == 3:
        lines.append("[2026-11-24 10:%02d:%02d,%03d] [INFO] [logging.py:96:log_dist] [Rank 0] step=%d, skipped=0, lr=[1e-05], mom=[(0.9, 0.999)]\n" % (i % 60, i % 60, i % 1000, i))
    else:
        lines.append(" iteration %8d/  500000 | consumed samples: %12d | elapsed time per iteration (ms): 512.3 | lm loss: 2.%06d |\n" % (i, i * 512, i))
block = "".join(lines).encode()
out = sys.stdout.buffer
written = 0
while written + len(block) <= size:
    out.write(block)
    written += len(block)
out.write(block[: size - written])
out.flush()
sys.stderr.write("Traceback (most recent call last):\n  File \"train.py\", line 88, in <module>\n    loss.backward()\n"
                 "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
                 "of 79.15 GiB of which 1.02 GiB is free.\n")
sys.exit(1)
