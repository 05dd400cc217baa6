"""The first job in PyTorch: two processes started by torch.multiprocessing, talking
through gloo over the loopback interface (Debian's PyTorch has no MPI backend)."""
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


# [snippet: hello]
def main(rank, world, port):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=world)
    t = torch.full((4,), rank + 1.0)   # rank 0: 1s, rank 1: 2s
    before = t.clone()
    dist.all_reduce(t)                 # the sum over the ranks, on every rank
    mean = before.clone()
    dist.all_reduce(mean)              # gloo has no ReduceOp.AVG:
    mean /= world                      # the sum, divided
    # [end]
    befores = [torch.empty(4) for _ in range(world)]
    afters = [torch.empty(4) for _ in range(world)]
    dist.all_gather(befores, before)
    dist.all_gather(afters, t)
    if rank == 0:
        print("world size", world)
        for r in range(world):
            print(f"rank {r}: {befores[r]} -> all_reduce -> {afters[r]}")
        print("average:", mean)
    dist.destroy_process_group()


# [snippet: spawn]
if __name__ == "__main__":
    with socket.socket() as s:  # a free port for rank 0 to listen on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(main, args=(2, port), nprocs=2)  # main(rank, 2, port) in 2 processes
# [end]
