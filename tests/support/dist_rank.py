"""One rank of torch.distributed (Python) that does what `dls_dist_worker collectives` does,
collective for collective, so that a Python rank and a C++ rank can share one process group
(tests/train/parallel/distributed_test.cpp): proof that DistributedContext joins the group, and lays
out the store's keys, exactly as init_process_group("gloo", init_method="env://") does.
Prints "rank R ok: ..." and exits 0, or raises."""
import os

import torch
import torch.distributed as dist


def all_gather_rows(rows, world):
    """DistributedContext::all_gather_rows: the row counts, then the rows padded to the
    longest share."""
    counts = [torch.zeros(1, dtype=torch.long) for _ in range(world)]
    dist.all_gather(counts, torch.tensor([rows.shape[0]]))
    longest = max(int(c) for c in counts)
    padded = torch.zeros((longest,) + tuple(rows.shape[1:]), dtype=rows.dtype)
    padded[: rows.shape[0]] = rows
    blocks = [torch.empty_like(padded) for _ in range(world)]
    dist.all_gather(blocks, padded)
    return [blocks[r][: int(counts[r])] for r in range(world)]


def main():
    dist.init_process_group("gloo")  # env://: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
    rank, world = dist.get_rank(), dist.get_world_size()

    # DistributedContext::broadcast packs the tensors into one flat tensor per dtype, in
    # order of first appearance: the float parameters, then the int64 buffer.
    torch.manual_seed(100 + rank)
    weight, bias = torch.randn(3, 4), torch.randn(5)
    counter = torch.full((2,), 10 * rank + 7, dtype=torch.long)
    floats = torch.cat([weight.reshape(-1), bias.reshape(-1)])
    dist.broadcast(floats, 0)
    dist.broadcast(counter, 0)
    torch.manual_seed(100)
    assert torch.equal(floats, torch.cat([torch.randn(3, 4).reshape(-1), torch.randn(5)])), "broadcast floats"
    assert torch.equal(counter, torch.full((2,), 7, dtype=torch.long)), "broadcast int64"

    # all_reduce_gradients: one flat float tensor (the parameters' gradients one after another).
    grads = torch.cat([torch.arange(12) * (rank + 1) * 1.0, torch.arange(5) * (rank + 1) * 2.0]).float()
    dist.all_reduce(grads)
    total = world * (world + 1) // 2
    assert torch.equal(grads, torch.cat([torch.arange(12) * total * 1.0, torch.arange(5) * total * 2.0]).float())

    numbers = torch.tensor([1.5 * rank, 1.0], dtype=torch.double)
    dist.all_reduce(numbers)
    assert numbers.tolist() == [1.5 * world * (world - 1) / 2, float(world)], "numbers"

    blocks = all_gather_rows(torch.full((rank + 1, 2), rank, dtype=torch.long), world)
    for r in range(world):
        assert torch.equal(blocks[r], torch.full((r + 1, 2), r, dtype=torch.long)), "gather"

    torch.manual_seed(200 + rank)
    noise = torch.randn(100003)
    dist.all_reduce(noise)
    copies = all_gather_rows(noise.view(1, -1), world)
    assert all(torch.equal(c, copies[0]) for c in copies), "sum: ranks got different bits"

    dist.barrier()
    print(f"rank {rank} ok: world {world}, python, agent store "
          f"{os.environ.get('TORCHELASTIC_USE_AGENT_STORE', 'unset')}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
