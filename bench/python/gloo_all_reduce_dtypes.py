"""Gloo's all-reduce of one gradient buffer in fp32 and in fp16, two ranks on localhost with
one thread each: whether sending half the bytes (DistributedDataParallel's fp16 compression)
would shorten the data-parallel step on CPUs. Rounds alternate the dtypes; rank 0 prints the
sorted times, and the cost of converting the buffer to fp16 and back.

    for r in 0 1; do RANK=$r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29612 \\
        /usr/bin/python3 bench/python/gloo_all_reduce_dtypes.py [MEGABYTES] & done; wait

MEGABYTES (fp32) defaults to 43.8, the cpu preset's dense all-reduce volume per step.
"""
import sys
import time

import torch
import torch.distributed as dist

ROUNDS = 4


def timed_ms(action):
    start = time.perf_counter()
    action()
    return 1000 * (time.perf_counter() - start)


def main():
    megabytes = float(sys.argv[1]) if len(sys.argv) > 1 else 43.8
    dist.init_process_group("gloo")
    torch.set_num_threads(1)
    numel = int(megabytes * 1e6) // 4
    buffers = {"fp32": torch.randn(numel), "fp16": torch.randn(numel).half()}
    times = {name: [] for name in buffers}
    for buffer in buffers.values():  # warm-up: connections, allocations
        dist.all_reduce(buffer)
    for _ in range(ROUNDS):
        for name, buffer in buffers.items():
            dist.barrier()
            times[name].append(timed_ms(lambda: dist.all_reduce(buffer)))
    gradients = buffers["fp32"]
    conversion = [timed_ms(lambda: gradients.copy_(gradients.half())) for _ in range(ROUNDS)]
    if dist.get_rank() == 0:
        print(f"{numel:,} gradients ({megabytes} MB as fp32), 2 ranks, ms per all-reduce:")
        for name, values in times.items():
            print(f"  {name}: " + ", ".join(f"{v:.1f}" for v in sorted(values)))
        print("  fp32 -> fp16 -> fp32 conversion: " + ", ".join(f"{v:.1f}" for v in sorted(conversion)))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
